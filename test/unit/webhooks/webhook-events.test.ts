import { describe, expect, it, vi } from 'vitest';
import {
  emittingReportEvents,
  emittingTokenEvents,
  reportFinishedEvent,
} from '#shared/domain/webhooks/webhook-events.ts';
import { discardTokenEvents } from '#shared/domain/onboarding/ports.ts';
import { ORG_ID, T0 } from '#test/support/fixtures/defaults.ts';
import { issuedTokenRecord } from '#test/support/fixtures/onboarding-tokens.ts';
import { completedReport, completeReportJob, reportJob } from '#test/support/fixtures/report-jobs.ts';
import { InMemoryReportJobStore } from '#test/unit/reports/fakes.ts';
import type { WebhookQueue } from '#shared/domain/webhooks/ports.ts';
import type { EventPublishing } from '#shared/domain/webhooks/webhook-events.ts';
import { reportJobBody } from '#shared/presenters/report-job-bodies.ts';
import { InMemoryPendingEvents, OutageQueue, RecordingQueue } from './fakes.ts';

const publishingTo = (queue: WebhookQueue, overrides: Partial<EventPublishing> = {}): EventPublishing => ({
  queue,
  pending: new InMemoryPendingEvents(),
  clock: { now: () => T0 },
  reportJobPayload: reportJobBody,
  onKept: vi.fn(),
  onLost: vi.fn(),
  ...overrides,
});

const presenting = { reportJobPayload: reportJobBody };

describe('report events', () => {
  it('publishes report.completed with the job’s status response after complete() succeeded', async () => {
    const store = new InMemoryReportJobStore();
    const queue = new RecordingQueue();
    const jobs = emittingReportEvents(store, publishingTo(queue));
    const job = reportJob({ status: 'IN_PROGRESS', attemptId: 'a1' });
    store.seed(job);
    const completedAt = new Date(T0.getTime() + 1500).toISOString();
    await jobs.complete(job, completedReport({ sizeBytes: 10, sha256: 'ab', durationMs: 1500, completedAt }));
    expect(queue.events).toEqual([
      {
        eventId: reportFinishedEvent({ ...job, status: 'COMPLETE' }, presenting).eventId,
        orgId: ORG_ID,
        type: 'report.completed',
        timestamp: completedAt,
        data: expect.objectContaining({ jobId: job.jobId, status: 'COMPLETE', sizeBytes: 10, sha256: 'ab' }),
      },
    ]);
  });

  it('publishes report.failed with the error code, and nothing when the job was no longer open', async () => {
    const store = new InMemoryReportJobStore();
    const queue = new RecordingQueue();
    const jobs = emittingReportEvents(store, publishingTo(queue));
    const job = reportJob({ status: 'PENDING' });
    store.seed(job);
    expect(await jobs.fail(job, 'TIMED_OUT', T0)).toBe(true);
    expect(await jobs.fail(job, 'INTERNAL_ERROR', T0)).toBe(false);
    expect(queue.events).toEqual([
      expect.objectContaining({ type: 'report.failed', data: expect.objectContaining({ errorCode: 'TIMED_OUT' }) }),
    ]);
  });

  it('keeps an event the queue refuses as pending, and never fails the job', async () => {
    const store = new InMemoryReportJobStore();
    const pending = new InMemoryPendingEvents();
    const onKept = vi.fn();
    const onLost = vi.fn();
    const jobs = emittingReportEvents(store, publishingTo(new OutageQueue(), { pending, onKept, onLost }));
    const job = reportJob({ status: 'PENDING' });
    store.seed(job);
    await expect(jobs.fail(job, 'USER_NOT_FOUND', T0)).resolves.toBe(true);
    expect((await store.get(job.jobId))?.status).toBe('FAILED');
    expect(pending.kept).toEqual([
      {
        event: expect.objectContaining({ type: 'report.failed', eventId: expect.any(String) }),
        keptAt: T0.toISOString(),
      },
    ]);
    expect(onKept).toHaveBeenCalledWith(pending.kept[0]!.event, expect.any(Error));
    expect(onLost).not.toHaveBeenCalled();
  });

  it('reports the event lost only when it can be neither published nor kept', async () => {
    const store = new InMemoryReportJobStore();
    const pending = Object.assign(new InMemoryPendingEvents(), { failing: true });
    const onLost = vi.fn();
    const jobs = emittingReportEvents(store, publishingTo(new OutageQueue(), { pending, onLost }));
    const job = reportJob({ status: 'PENDING' });
    store.seed(job);
    await expect(jobs.fail(job, 'USER_NOT_FOUND', T0)).resolves.toBe(true);
    expect(onLost).toHaveBeenCalledWith(expect.objectContaining({ type: 'report.failed' }), expect.any(AggregateError));
    expect((onLost.mock.calls[0]![1] as AggregateError).errors.map(String)).toEqual([
      'Error: SQS unreachable',
      'Error: DynamoDB unreachable',
    ]);
  });

  it('derives the event id from the job, so a repeated emission deduplicates', () => {
    const job = completeReportJob();
    expect(reportFinishedEvent(job, presenting).eventId).toBe(reportFinishedEvent({ ...job }, presenting).eventId);
    expect(reportFinishedEvent(job, presenting).eventId).not.toBe(
      reportFinishedEvent({ ...job, status: 'FAILED' }, presenting).eventId,
    );
  });
});

describe('token events', () => {
  it('publishes onboarding_token.used and .revoked with {tokenId, email, status, usedAt|revokedAt}', async () => {
    const queue = new RecordingQueue();
    const events = emittingTokenEvents(discardTokenEvents, publishingTo(queue));
    const record = issuedTokenRecord({ orgId: ORG_ID, tokenId: 't-1', email: 'ada@example.com' });
    await events.tokenUsed({ ...record, usedAt: '2026-03-01T12:01:00.000Z' });
    await events.tokenRevoked({ ...record, revokedAt: '2026-03-01T12:02:00.000Z' });
    expect(queue.events.map(({ type, data }) => ({ type, data }))).toEqual([
      {
        type: 'onboarding_token.used',
        data: { tokenId: 't-1', email: 'ada@example.com', status: 'Used', usedAt: '2026-03-01T12:01:00.000Z' },
      },
      {
        type: 'onboarding_token.revoked',
        data: { tokenId: 't-1', email: 'ada@example.com', status: 'Revoked', revokedAt: '2026-03-01T12:02:00.000Z' },
      },
    ]);
  });
});
