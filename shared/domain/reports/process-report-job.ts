import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '#shared/domain/clock.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import type {
  ReportJobMessage,
  ReportJobStore,
  ReportRedelivery,
  ReportRenderer,
  ReportSigner,
  ReportStorage,
  UserDirectory,
} from './ports.ts';
import {
  isOpen,
  isPastDeadline,
  isVoid,
  processingDurationMs,
  reportObjectKey,
  type ReportErrorCode,
  type ReportJob,
} from './report-job.ts';
import { tenantOfKey } from '#shared/domain/identity/tenant.ts';
import { sandboxScenarioOf } from '#shared/domain/sandbox/scenarios.ts';

export interface ProcessReportJobDeps {
  jobs: ReportJobStore;
  users: UserDirectory;
  storage: ReportStorage;
  render: ReportRenderer;
  sign: ReportSigner;
  clock: Clock;
  templateVersion: string;
  /** Puts off a sandbox job whose scenario completes later (docs/sandbox.md "Scenario reports"). */
  redeliverLater?: ReportRedelivery;
}

export interface ProcessingAttempt {
  /** The message's last delivery: a transient failure now ends the job instead of retrying. */
  isFinalAttempt: boolean;
  /** How long this attempt may hold the job before another may take it over (the worker's remaining time). */
  leaseMs: number;
}

export type ProcessOutcome =
  | { outcome: 'completed'; job: ReportJob }
  | { outcome: 'failed'; job: ReportJob; errorCode: ReportErrorCode; /** What failed, for the log. */ cause?: unknown }
  | {
      outcome: 'skipped';
      reason:
        | 'unknown-job'
        | 'void-job'
        | 'already-finished'
        | 'taken-by-another-attempt'
        | 'lost-to-another-writer'
        /** A sandbox scenario's job that completes later: its message comes back then. */
        | 'deferred';
    };

/**
 * Primary course: take the PENDING job (conditional, so a duplicate message never renders
 * twice at once), load the user, render, sign, store, then COMPLETE it and release the user's
 * guard in one transaction. Permanent problems end the job FAILED with a code; a transient
 * signing or storage failure gives the job back and throws, so SQS redelivers the message,
 * except on the final attempt, where it ends FAILED (RENDER_FAILED or STORAGE_FAILED). A sandbox
 * job of a scenario user does what its scenario says (shared/domain/sandbox/scenarios.ts): it is
 * put off until its scenario's time has come, or fails by the same path as any failure; every
 * sandbox report is rendered as one and signed with the sandbox's key.
 */
export function processReportJob(deps: ProcessReportJobDeps) {
  const fail = async (job: ReportJob, errorCode: ReportErrorCode, cause?: unknown): Promise<ProcessOutcome> => {
    const failed = await deps.jobs.fail(job, errorCode, deps.clock.now());
    if (!failed) return { outcome: 'skipped', reason: 'lost-to-another-writer' };
    return cause === undefined ? { outcome: 'failed', job, errorCode } : { outcome: 'failed', job, errorCode, cause };
  };

  const stillHeldBy = async (job: ReportJob): Promise<boolean> => {
    const current = await deps.jobs.get(job.jobId);
    return current?.status === 'IN_PROGRESS' && current.attemptId === job.attemptId;
  };

  return async (message: ReportJobMessage, attempt: ProcessingAttempt): Promise<ProcessOutcome> => {
    const queued = await deps.jobs.get(message.jobId);
    if (!queued || queued.orgId !== message.orgId) return { outcome: 'skipped', reason: 'unknown-job' };
    if (isVoid(queued, deps.clock.now())) {
      // The message of a request that answered 503 (its job never confirmed): drop both.
      await deps.jobs.withdraw(queued);
      return { outcome: 'skipped', reason: 'void-job' };
    }
    if (!isOpen(queued.status)) return { outcome: 'skipped', reason: 'already-finished' };
    if (isPastDeadline(queued, deps.clock.now())) return fail(queued, 'TIMED_OUT');
    const scenario = sandboxScenarioOf(queued);
    const waitMs =
      scenario?.report.status === 'COMPLETE'
        ? Date.parse(queued.createdAt) + scenario.report.completesAfterSeconds * 1000 - deps.clock.now().getTime()
        : 0;
    if (waitMs > 0) {
      if (!deps.redeliverLater)
        throw new Error(`job ${queued.jobId} is to complete later, and nothing can redeliver it`);
      await deps.redeliverLater(message, Math.ceil(waitMs / 1000));
      return { outcome: 'skipped', reason: 'deferred' };
    }

    const job = await deps.jobs.start(queued.jobId, {
      attemptId: randomUUID(),
      now: deps.clock.now(),
      leaseMs: attempt.leaseMs,
    });
    if (!job) return { outcome: 'skipped', reason: 'taken-by-another-attempt' };

    const user = await deps.users.find(job.orgId, job.userId);
    if (!user) return fail(job, 'USER_NOT_FOUND');
    // An expected end, as USER_NOT_FOUND: no cause, so it is logged as a warning, not an error.
    if (scenario?.report.status === 'FAILED') return fail(job, scenario.report.errorCode);
    const tenant = tenantOfKey(job.orgId);
    const { mode } = tenant;

    let pdf: Uint8Array;
    const generatedAt = deps.clock.now();
    try {
      const organizationName = user.organization_name ?? tenant.orgId;
      pdf = await deps.render({
        user,
        organizationName,
        jobId: job.jobId,
        generatedAt,
        requestedBy: job.requestedBy,
        ...(mode === 'sandbox' && { sandbox: true }),
      });
    } catch (error) {
      return fail(job, 'RENDER_FAILED', error);
    }
    // The contract's error codes have none for signing: a report that cannot be signed was not
    // produced, so a signing failure is a RENDER_FAILED, and nothing unsigned is ever stored.
    try {
      pdf = await deps.sign(pdf, generatedAt, mode);
    } catch (error) {
      if (error instanceof DependencyUnavailableError && !attempt.isFinalAttempt) {
        await deps.jobs.release(job, deps.clock.now());
        throw error;
      }
      return fail(job, 'RENDER_FAILED', error);
    }

    const sha256 = createHash('sha256').update(pdf).digest('hex');
    // The sweep or the dead-letter handler may have ended the job while it rendered: store
    // nothing for a job this attempt no longer holds.
    if (!(await stillHeldBy(job))) return { outcome: 'skipped', reason: 'lost-to-another-writer' };
    const objectKey = reportObjectKey(job.orgId, job.jobId);
    try {
      await deps.storage.save(objectKey, pdf, sha256);
    } catch (error) {
      if (error instanceof DependencyUnavailableError && !attempt.isFinalAttempt) {
        await deps.jobs.release(job, deps.clock.now());
        throw error;
      }
      return fail(job, 'STORAGE_FAILED', error);
    }

    const completedAt = deps.clock.now();
    const completed = await deps.jobs.complete(job, {
      sizeBytes: pdf.byteLength,
      sha256,
      durationMs: processingDurationMs(job, completedAt),
      completedAt: completedAt.toISOString(),
      templateVersion: deps.templateVersion,
    });
    if (completed) return { outcome: 'completed', job };
    // Ended (FAILED) or deleted (a sandbox wipe) while the PDF was being stored: no orphan object. The
    // lease outlives this invocation, so no other attempt can have completed the job and written the same key.
    const current = await deps.jobs.get(job.jobId);
    if (current === undefined || current.status === 'FAILED') await deps.storage.remove(objectKey);
    return { outcome: 'skipped', reason: 'lost-to-another-writer' };
  };
}
