import { randomUUID } from 'node:crypto';
import type { Clock } from '#shared/domain/clock.ts';
import { DependencyUnavailableError, NotFoundError, OpenJobExistsError } from '#shared/domain/errors.ts';
import type { ReportJobStore, ReportQueue, UserDirectory } from './ports.ts';
import { REPORT_DEADLINE_MS, type ReportJob } from './report-job.ts';

export interface RequestReportDeps {
  jobs: ReportJobStore;
  users: UserDirectory;
  queue: ReportQueue;
  clock: Clock;
  templateVersion: string;
}

/** See PROVISIONAL_MARGIN_MS of onboarding tokens: a retry after a 503 finds the user free. */
const PROVISIONAL_MARGIN_MS = 1_000;

/**
 * Primary course: the user must exist in the caller's organization and have no open job; a
 * PENDING job and the user's open-job guard are written together, provisionally, then the job is
 * queued and confirmed. If queueing fails the job is withdrawn and the caller gets a retryable
 * 503, so no job is ever left PENDING with no message to process it; if anything stalls, the
 * provisional job voids itself when the caller stops waiting (`answerBy`), so a 503 leaves no job
 * behind, even one whose write landed late. (Rate limit and validation happen before this.)
 */
export function requestReport(deps: RequestReportDeps) {
  return async (input: {
    orgId: string;
    userId: string;
    answerBy: Date;
    /** The `sub` of the requesting token, kept on the job for the report's "Requested by". */
    requestedBy?: string | undefined;
  }): Promise<ReportJob> => {
    const user = await deps.users.find(input.orgId, input.userId);
    if (!user) throw new NotFoundError(`user ${input.userId} not found`);

    const now = deps.clock.now();
    const job: ReportJob = {
      jobId: randomUUID(),
      orgId: input.orgId,
      userId: input.userId,
      status: 'PENDING',
      templateVersion: deps.templateVersion,
      ...(input.requestedBy ? { requestedBy: input.requestedBy } : {}),
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      provisionalUntil: new Date(input.answerBy.getTime() + PROVISIONAL_MARGIN_MS).toISOString(),
    };
    await createReplacingAbandonedJob(deps, job, now);

    try {
      await deps.queue.enqueue({ orgId: job.orgId, jobId: job.jobId });
    } catch (queueError) {
      await deps.jobs.withdraw(job).catch(() => undefined); // else it voids itself at provisionalUntil
      throw new DependencyUnavailableError('queue', { cause: queueError });
    }
    await deps.jobs.confirm(job);
    const { provisionalUntil: _confirmed, ...confirmed } = job;
    return confirmed;
  };
}

/** An open job past its deadline is failed (TIMED_OUT) on sight, freeing the user for a new one. */
async function createReplacingAbandonedJob(deps: RequestReportDeps, job: ReportJob, now: Date): Promise<void> {
  try {
    await deps.jobs.createOpenJob(job);
  } catch (error) {
    if (!(error instanceof OpenJobExistsError)) throw error;
    if (now.getTime() - Date.parse(error.openJobCreatedAt) < REPORT_DEADLINE_MS) throw error;
    const abandoned = await deps.jobs.get(error.openJobId);
    if (abandoned) await deps.jobs.fail(abandoned, 'TIMED_OUT', now);
    await deps.jobs.createOpenJob(job);
  }
}
