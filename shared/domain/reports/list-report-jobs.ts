import type { Clock } from '#shared/domain/clock.ts';
import type { ReportJobStore } from './ports.ts';
import { isPastDeadline, REPORT_DEADLINE_MS, type ReportJob } from './report-job.ts';

/** One page of an organization's jobs, newest first; `nextCursor` is null on the last page. */
export interface ReportJobListing {
  jobs: ReportJob[];
  nextCursor: string | null;
}

/**
 * Primary course: the organization's report jobs, newest first, one page at a time, optionally of
 * one user. A listing only reads: an open job past its deadline is
 * shown as the FAILED/TIMED_OUT it is (the sweep or the next status read writes that down).
 */
export function listReportJobs(deps: { jobs: ReportJobStore; clock: Clock }) {
  return async (input: {
    orgId: string;
    limit: number;
    cursor: string | undefined;
    userId?: string;
  }): Promise<ReportJobListing> => {
    const now = deps.clock.now();
    const page = await deps.jobs.listByOrganization(input.orgId, {
      limit: input.limit,
      cursor: input.cursor,
      ...(input.userId === undefined ? {} : { userId: input.userId }),
      now,
    });
    return {
      jobs: page.jobs.map((job) => (isPastDeadline(job, now) ? timedOut(job) : job)),
      nextCursor: page.nextCursor ?? null,
    };
  };
}

function timedOut(job: ReportJob): ReportJob {
  const deadline = new Date(Date.parse(job.createdAt) + REPORT_DEADLINE_MS);
  const started = Date.parse(job.startedAt ?? job.createdAt);
  return {
    ...job,
    status: 'FAILED',
    errorCode: 'TIMED_OUT',
    updatedAt: deadline.toISOString(),
    durationMs: Math.max(0, deadline.getTime() - started),
  };
}
