import { ReportDownloadError, ReportFailedError, ReportNotReadyError } from './errors.ts';
import type { Fetch } from './http-transport.ts';
import type { CompleteReportJob, ReportDownload, ReportJob } from './types.ts';

/** What reading a report's bytes needs: the job, a fresh download address, and fetch. */
export interface ReportSourceDependencies {
  readJob(jobId: string, signal: AbortSignal | undefined): Promise<ReportJob>;
  downloadAddress(jobId: string, signal: AbortSignal | undefined): Promise<ReportDownload>;
  fetch: Fetch;
}

export interface OpenedReport {
  /** The COMPLETE job whose size and SHA-256 the bytes must match. */
  job: CompleteReportJob;
  body: NonNullable<Awaited<ReturnType<Fetch>>['body']>;
  /** The service's suggested file name. */
  filename: string;
  /** 2 when the first address had expired and a fresh one was used. */
  attempts: number;
}

/** Object storage answers an expired pre-signed address with 403. */
const EXPIRED_ADDRESS_STATUS = 403;

/**
 * The response body of a COMPLETE job's PDF, shared by `fetchReport` (in memory, browsers) and
 * `downloadReport` (to a file, Node.js): the job read unless given, a fresh address, and one more
 * address when the first has expired (403). Verifying the bytes is the caller's part.
 */
export async function openReport(
  deps: ReportSourceDependencies,
  jobId: string,
  options: { job?: ReportJob; signal?: AbortSignal },
): Promise<OpenedReport> {
  const { signal } = options;
  const job = completeJob(options.job?.status === 'COMPLETE' ? options.job : await deps.readJob(jobId, signal));
  for (let attempt = 1; ; attempt += 1) {
    const address = await deps.downloadAddress(jobId, signal);
    const response = await deps.fetch(address.url, { signal });
    if (response.status === EXPIRED_ADDRESS_STATUS && attempt === 1) {
      await response.body?.cancel();
      continue;
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new ReportDownloadError(
        jobId,
        response.status,
        `report ${jobId}: object storage answered ${response.status} for the download address`,
      );
    }
    return { job, body: response.body, filename: address.filename, attempts: attempt };
  }
}

function completeJob(job: ReportJob): CompleteReportJob {
  if (job.status === 'COMPLETE') return job;
  if (job.status === 'FAILED') throw new ReportFailedError(job);
  throw new ReportNotReadyError(job);
}
