import type { OnboardingTokenEvents } from '#shared/domain/onboarding/ports.ts';
import type { OnboardingTokenRecord } from '#shared/domain/onboarding/onboarding-token.ts';
import type { CompletedReport, ReportJobStore } from '#shared/domain/reports/ports.ts';
import { processingDurationMs, type ReportErrorCode, type ReportJob } from '#shared/domain/reports/report-job.ts';
import type { Clock } from '#shared/domain/clock.ts';
import type { PendingWebhookEvents, WebhookQueue } from './ports.ts';
import { eventIdFor, type WebhookEvent } from './webhook-endpoint.ts';

/**
 * Emission: after a state change has been written, one queue message per event (fan-out to the
 * endpoints happens in the delivery function). It never fails or undoes the state change: an event
 * the queue does not take is kept as pending (`pending`, DynamoDB), and the republish schedule
 * (`republishPendingEvents`) hands it to the queue once it takes messages again. Only if keeping
 * it fails too is it handed to `onLost` (logged and counted, alarmed on). The event id and
 * timestamp are derived from the state change, so if the same change is emitted twice the
 * delivery log entry and the `webhook-id` are the same and receivers deduplicate.
 */
export interface EventPublishing {
  queue: WebhookQueue;
  pending: PendingWebhookEvents;
  clock: Clock;
  /** A finished job as its event's `data` carries it: the status response (the HTTP edge's presenter). */
  reportJobPayload(job: ReportJob): Record<string, unknown>;
  /** The queue refused the event and it was kept as pending: logged and counted, to tell an outage from a loss. */
  onKept(event: WebhookEvent, error: unknown): void;
  onLost(event: WebhookEvent, error: unknown): void;
}

async function publishQuietly(publishing: EventPublishing, event: WebhookEvent): Promise<void> {
  try {
    await publishing.queue.publishEvent(event);
    return;
  } catch (publishError) {
    try {
      await publishing.pending.keep(event, publishing.clock.now());
      publishing.onKept(event, publishError);
    } catch (keepError) {
      publishing.onLost(
        event,
        new AggregateError([publishError, keepError], 'the event was neither published nor kept'),
      );
    }
  }
}

export function reportFinishedEvent(
  job: ReportJob,
  publishing: Pick<EventPublishing, 'reportJobPayload'>,
): WebhookEvent {
  const type = job.status === 'COMPLETE' ? 'report.completed' : 'report.failed';
  return {
    eventId: eventIdFor(type, job.jobId),
    orgId: job.orgId,
    type,
    timestamp: job.updatedAt,
    data: publishing.reportJobPayload(job),
  };
}

/**
 * The report job store, emitting `report.completed` / `report.failed` whenever a job reaches its
 * final state through it: the worker, the sweep (TIMED_OUT), the dead-letter handler
 * (INTERNAL_ERROR) and a read past the deadline all finish jobs through `complete` / `fail`.
 */
export function emittingReportEvents(jobs: ReportJobStore, publishing: EventPublishing): ReportJobStore {
  return {
    createOpenJob: (job) => jobs.createOpenJob(job),
    confirm: (job) => jobs.confirm(job),
    get: (jobId) => jobs.get(jobId),
    withdraw: (job) => jobs.withdraw(job),
    start: (jobId, attempt) => jobs.start(jobId, attempt),
    release: (job, now) => jobs.release(job, now),
    findOpenJobsCreatedBefore: (cutoff, limit) => jobs.findOpenJobsCreatedBefore(cutoff, limit),
    listByOrganization: (orgId, options) => jobs.listByOrganization(orgId, options),
    // Erasure: removing a finished job's record or holding a user's slot finishes no job.
    delete: (job) => jobs.delete(job),
    holdForErasure: (orgId, userId, hold) => jobs.holdForErasure(orgId, userId, hold),
    async complete(job: ReportJob, result: CompletedReport): Promise<boolean> {
      const completed = await jobs.complete(job, result);
      if (completed) {
        const { leaseExpiresAt: _lease, ...rest } = job;
        await publishQuietly(
          publishing,
          reportFinishedEvent({ ...rest, ...result, status: 'COMPLETE', updatedAt: result.completedAt }, publishing),
        );
      }
      return completed;
    },
    async fail(job: ReportJob, errorCode: ReportErrorCode, now: Date): Promise<boolean> {
      const failed = await jobs.fail(job, errorCode, now);
      if (failed) {
        await publishQuietly(
          publishing,
          reportFinishedEvent(
            {
              ...job,
              status: 'FAILED',
              errorCode,
              durationMs: processingDurationMs(job, now),
              updatedAt: now.toISOString(),
            },
            publishing,
          ),
        );
      }
      return failed;
    },
  };
}

export function tokenEvent(record: OnboardingTokenRecord, change: 'used' | 'revoked'): WebhookEvent {
  const at = change === 'used' ? record.usedAt : record.revokedAt;
  const timestamp = at ?? new Date().toISOString();
  return {
    eventId: eventIdFor(`onboarding_token.${change}`, record.tokenId),
    orgId: record.orgId,
    type: change === 'used' ? 'onboarding_token.used' : 'onboarding_token.revoked',
    timestamp,
    data: {
      tokenId: record.tokenId,
      email: record.email,
      status: change === 'used' ? 'Used' : 'Revoked',
      ...(change === 'used' ? { usedAt: timestamp } : { revokedAt: timestamp }),
    },
  };
}

/**
 * Whether an event names the person with this e-mail (trimmed, lower-cased): only token events
 * carry an e-mail; report events name the user by id alone.
 */
export function eventNamesEmail(event: WebhookEvent, email: string): boolean {
  const named = event.data.email;
  return typeof named === 'string' && named.trim().toLowerCase() === email;
}

/** Token lifecycle events to webhooks, after `next` (the metrics) has seen them. */
export function emittingTokenEvents(next: OnboardingTokenEvents, publishing: EventPublishing): OnboardingTokenEvents {
  return {
    async tokenUsed(record) {
      await next.tokenUsed(record);
      await publishQuietly(publishing, tokenEvent(record, 'used'));
    },
    async tokenRevoked(record) {
      await next.tokenRevoked(record);
      await publishQuietly(publishing, tokenEvent(record, 'revoked'));
    },
  };
}
