import { describe, expect, it } from 'vitest';
import { republishPendingEvents } from '#shared/domain/webhooks/republish-pending-events.ts';
import type { WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { InMemoryPendingEvents, OutageQueue } from './fakes.ts';

const event = (n: number): WebhookEvent => ({
  eventId: `evt_${n}`,
  orgId: 'org-1',
  type: 'onboarding_token.used',
  timestamp: '2026-11-25T10:00:00.000Z',
  data: { tokenId: `t-${n}` },
});

async function pendingEvents(count: number): Promise<InMemoryPendingEvents> {
  const pending = new InMemoryPendingEvents();
  for (let n = 0; n < count; n++) await pending.keep(event(n), new Date(Date.UTC(2026, 10, 25, 10, 0, n)));
  return pending;
}

describe('republishing pending webhook events', () => {
  it('hands the oldest pending events to the queue, a batch at a time, and forgets each one taken', async () => {
    const pending = await pendingEvents(5);
    const queue = Object.assign(new OutageQueue(), { up: true });
    const republish = republishPendingEvents({ pending, queue, batchSize: 3 });
    expect(await republish()).toEqual({ republished: 3, stillPending: 0 });
    expect(queue.events.map((e) => e.eventId)).toEqual(['evt_0', 'evt_1', 'evt_2']);
    expect(await republish()).toEqual({ republished: 2, stillPending: 0 });
    expect(queue.events.map((e) => e.eventId)).toEqual(['evt_0', 'evt_1', 'evt_2', 'evt_3', 'evt_4']);
    expect(pending.kept).toEqual([]);
  });

  it('stops at the first event the queue refuses and keeps it and the rest for the next run', async () => {
    const pending = await pendingEvents(3);
    const queue = new OutageQueue();
    const result = await republishPendingEvents({ pending, queue, batchSize: 10 })();
    expect(result).toMatchObject({ republished: 0, stillPending: 3 });
    expect(String(result.refusedBy)).toBe('Error: SQS unreachable');
    expect(pending.kept.map((k) => k.event.eventId)).toEqual(['evt_0', 'evt_1', 'evt_2']);
    queue.up = true;
    expect(await republishPendingEvents({ pending, queue, batchSize: 10 })()).toEqual({
      republished: 3,
      stillPending: 0,
    });
    expect(queue.events.map((e) => e.eventId)).toEqual(['evt_0', 'evt_1', 'evt_2']);
  });
});
