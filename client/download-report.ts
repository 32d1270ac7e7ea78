import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { ReportDownloadError, ReportFailedError, ReportIntegrityError, ReportNotReadyError } from './errors.ts';
import type { Fetch } from './http-transport.ts';
import type { CompleteReportJob, ReportDownload, ReportJob } from './types.ts';

export interface DownloadReportOptions {
  /** The job as already read (must be COMPLETE); otherwise it is read first. */
  job?: ReportJob;
  signal?: AbortSignal;
  /** Called as bytes arrive. */
  onProgress?: (progress: { receivedBytes: number; totalBytes: number }) => void;
}

export interface DownloadedReport {
  path: string;
  sizeBytes: number;
  sha256: string;
  /** The service's suggested file name. */
  filename: string;
  /** 2 when the first address had expired and a fresh one was used. */
  attempts: number;
}

export interface DownloadDependencies {
  readJob(jobId: string, signal: AbortSignal | undefined): Promise<ReportJob>;
  downloadAddress(jobId: string, signal: AbortSignal | undefined): Promise<ReportDownload>;
  fetch: Fetch;
}

/** Object storage answers an expired pre-signed address with 403. */
const EXPIRED_ADDRESS_STATUS = 403;

/**
 * Downloads a COMPLETE job's PDF to `path`: a fresh address, the bytes streamed to a temporary file
 * beside `path` while their SHA-256 and size are computed, both compared with the job, and only
 * then the file renamed into place. An expired address (403) is replaced by a fresh one once.
 */
export async function downloadReport(
  deps: DownloadDependencies,
  jobId: string,
  path: string,
  options: DownloadReportOptions = {},
): Promise<DownloadedReport> {
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
    const received = await saveVerified(response.body as NodeReadableStream<Uint8Array>, path, job, options);
    return { path, ...received, filename: address.filename, attempts: attempt };
  }
}

function completeJob(job: ReportJob): CompleteReportJob {
  if (job.status === 'COMPLETE') return job;
  if (job.status === 'FAILED') throw new ReportFailedError(job);
  throw new ReportNotReadyError(job);
}

async function saveVerified(
  body: NodeReadableStream<Uint8Array>,
  path: string,
  job: CompleteReportJob,
  options: DownloadReportOptions,
): Promise<{ sizeBytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let sizeBytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      sizeBytes += chunk.length;
      options.onProgress?.({ receivedBytes: sizeBytes, totalBytes: job.sizeBytes });
      callback(null, chunk);
    },
  });
  const partial = `${path}.${randomBytes(4).toString('hex')}.part`;
  try {
    await pipeline(Readable.fromWeb(body), measure, createWriteStream(partial), { signal: options.signal });
    const sha256 = hash.digest('hex');
    if (sizeBytes !== job.sizeBytes || sha256 !== job.sha256) {
      throw new ReportIntegrityError(
        job.jobId,
        { sizeBytes: job.sizeBytes, sha256: job.sha256 },
        { sizeBytes, sha256 },
      );
    }
    await rename(partial, path);
    return { sizeBytes, sha256 };
  } finally {
    await rm(partial, { force: true });
  }
}
