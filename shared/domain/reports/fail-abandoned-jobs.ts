import type { Clock } from '#shared/domain/clock.ts';
import type { ReportJobMessage, ReportJobStore } from './ports.ts';
import { isVoid, REPORT_DEADLINE_MS, type ReportErrorCode } from './report-job.ts';

async function failIfOpen(
  jobs: ReportJobStore,
  jobId: string,
  errorCode: ReportErrorCode,
  clock: Clock,
): Promise<boolean> {
  const job = await jobs.get(jobId);
  if (!job) return false;
  if (isVoid(job, clock.now())) {
    // Its request answered 503 and never queued it: remove it as if it had never been.
    await jobs.withdraw(job);
    return false;
  }
  return jobs.fail(job, errorCode, clock.now());
}

/** A message SQS gave up on (3 receives): its job, if still open, failed with INTERNAL_ERROR. */
export function failDeadLetteredJob(deps: { jobs: ReportJobStore; clock: Clock }) {
  return (message: ReportJobMessage): Promise<boolean> =>
    failIfOpen(deps.jobs, message.jobId, 'INTERNAL_ERROR', deps.clock);
}

/**
 * The scheduled sweep: every open job older than the deadline is failed with TIMED_OUT. Each job
 * on its own: one that cannot be updated (a corrupt or oversized item, a lost race) is reported
 * through `onSkipped` and left for the next run, and the others are still timed out.
 */
export function sweepTimedOutJobs(deps: {
  jobs: ReportJobStore;
  clock: Clock;
  batchSize?: number;
  onSkipped: (jobId: string, error: unknown) => void;
}) {
  return async (): Promise<{ timedOut: number; skipped: number }> => {
    const cutoff = new Date(deps.clock.now().getTime() - REPORT_DEADLINE_MS);
    const stale = await deps.jobs.findOpenJobsCreatedBefore(cutoff, deps.batchSize ?? 100);
    let timedOut = 0;
    let skipped = 0;
    for (const { jobId } of stale) {
      try {
        if (await failIfOpen(deps.jobs, jobId, 'TIMED_OUT', deps.clock)) timedOut++;
      } catch (error) {
        skipped++;
        deps.onSkipped(jobId, error);
      }
    }
    return { timedOut, skipped };
  };
}
