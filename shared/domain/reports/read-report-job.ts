import type { Clock } from '#shared/domain/clock.ts';
import { ForbiddenError, NotFoundError, UnprocessableError } from '#shared/domain/errors.ts';
import type { ReportDownloadLinks, ReportJobStore } from './ports.ts';
import {
  DOWNLOAD_URL_TTL_SECONDS,
  downloadFilename,
  isPastDeadline,
  isVoid,
  reportObjectKey,
  type ReportJob,
} from './report-job.ts';

/**
 * Loads a job for the calling organization. Jobs are addressed by id alone, so a job of another
 * organization is refused (403) rather than hidden. A job past its deadline is failed on read.
 */
async function readOwnJob(
  deps: { jobs: ReportJobStore; clock: Clock },
  orgId: string,
  jobId: string,
): Promise<ReportJob> {
  const job = await deps.jobs.get(jobId);
  const now = deps.clock.now();
  if (!job || isVoid(job, now)) throw new NotFoundError(`report job ${jobId} not found`);
  if (job.orgId !== orgId) throw new ForbiddenError('this report job belongs to another organization');
  if (!isPastDeadline(job, now)) return job;
  await deps.jobs.fail(job, 'TIMED_OUT', now);
  return (await deps.jobs.get(jobId)) ?? job;
}

export function getReportJob(deps: { jobs: ReportJobStore; clock: Clock }) {
  return (input: { orgId: string; jobId: string }): Promise<ReportJob> => readOwnJob(deps, input.orgId, input.jobId);
}

/** A pre-signed address of a COMPLETE job's PDF and when it stops working. */
export interface ReportDownload {
  url: string;
  expiresInSeconds: typeof DOWNLOAD_URL_TTL_SECONDS;
  expiresAt: Date;
  filename: string;
}

/** A fresh pre-signed address on every call; only a COMPLETE job has one. */
export function getReportDownload(deps: { jobs: ReportJobStore; storage: ReportDownloadLinks; clock: Clock }) {
  return async (input: { orgId: string; jobId: string }): Promise<ReportDownload> => {
    const job = await readOwnJob(deps, input.orgId, input.jobId);
    if (job.status === 'FAILED') {
      throw new UnprocessableError(`report generation failed (${job.errorCode ?? 'INTERNAL_ERROR'})`, {
        errorCode: job.errorCode ?? 'INTERNAL_ERROR',
      });
    }
    if (job.status !== 'COMPLETE') throw new UnprocessableError('report is not ready', { status: job.status });

    const filename = downloadFilename(job.userId, job.completedAt ?? job.updatedAt);
    const issuedAt = deps.clock.now();
    const url = await deps.storage.downloadUrl(reportObjectKey(job.orgId, job.jobId), {
      filename,
      expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS,
    });
    return {
      url,
      expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS,
      expiresAt: new Date(issuedAt.getTime() + DOWNLOAD_URL_TTL_SECONDS * 1000),
      filename,
    };
  };
}
