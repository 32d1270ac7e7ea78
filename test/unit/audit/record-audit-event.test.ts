import { describe, expect, it, vi } from 'vitest';
import type { AuditEvent } from '#shared/domain/audit/audit-event.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { recordAuditEvent } from '#shared/domain/audit/record-audit-event.ts';

const clock = { now: () => new Date('2026-11-25T10:00:00.000Z') };
const context = { orgId: 'acme', actor: { sub: 'staff-1', clientId: 'dashboard' }, requestId: 'req-1' };

describe('recordAuditEvent', () => {
  it('appends one event with the actor, the action’s target type, the request id and a success outcome', async () => {
    const appended: Array<{ orgId: string; event: AuditEvent }> = [];
    const record = recordAuditEvent({
      trail: { append: async (orgId, event) => void appended.push({ orgId, event }) },
      clock,
      newId: () => 'event-1',
      onLost: () => {
        throw new Error('not lost');
      },
    });

    await record(context, 'report.download_url_issued', 'job-9');

    expect(appended).toEqual([
      {
        orgId: 'acme',
        event: {
          eventId: 'event-1',
          occurredAt: '2026-11-25T10:00:00.000Z',
          action: 'report.download_url_issued',
          actor: { sub: 'staff-1', clientId: 'dashboard' },
          target: { type: 'report', id: 'job-9' },
          requestId: 'req-1',
          outcome: 'success',
        },
      },
    ]);
  });

  it('records null for an actor the token does not name', async () => {
    const append = vi.fn(async () => {});
    const record = recordAuditEvent({ trail: { append }, clock, newId: () => 'e', onLost: vi.fn() });

    await record({ ...context, actor: { sub: undefined, clientId: undefined } }, 'user.erased', 'u-1');

    expect(append).toHaveBeenCalledWith('acme', expect.objectContaining({ actor: { sub: null, clientId: null } }));
  });

  it('never fails the request: a trail that throws hands the event to onLost instead', async () => {
    const failure = new Error('DynamoDB is down');
    const onLost = vi.fn();
    const record = recordAuditEvent({
      trail: { append: () => Promise.reject(failure) },
      clock,
      newId: () => 'event-2',
      onLost,
    });

    await expect(record(context, 'webhook.deleted', 'hook-1')).resolves.toBeUndefined();

    expect(onLost).toHaveBeenCalledWith(
      expect.objectContaining({
        eventId: 'event-2',
        action: 'webhook.deleted',
        target: { type: 'webhook', id: 'hook-1' },
      }),
      'acme',
      failure,
    );
  });

  it('records an erasure’s start with outcome started, for the user', async () => {
    const append = vi.fn(async () => {});
    const record = recordAuditEvent({ trail: { append }, clock, newId: () => 'e', onLost: vi.fn() });

    await record(context, 'user.erasure_started', 'u-1', { required: true });

    expect(append).toHaveBeenCalledWith(
      'acme',
      expect.objectContaining({
        action: 'user.erasure_started',
        target: { type: 'user', id: 'u-1' },
        outcome: 'started',
      }),
    );
  });

  it('fails the request (503) when a required event cannot be appended, and loses nothing silently', async () => {
    const onLost = vi.fn();
    const record = recordAuditEvent({
      trail: { append: () => Promise.reject(new Error('DynamoDB is down')) },
      clock,
      newId: () => 'e',
      onLost,
    });

    await expect(record(context, 'user.erasure_started', 'u-1', { required: true })).rejects.toBeInstanceOf(
      DependencyUnavailableError,
    );
    expect(onLost).not.toHaveBeenCalled();
  });
});
