import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { ReportIntegrityError } from './errors.ts';
import { openReport, type ReportSourceDependencies } from './open-report.ts';
import type { CompleteReportJob, ReportJob } from './types.ts';

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

/** What `downloadReport` needs (the same as `fetchReport`). */
export type DownloadDependencies = ReportSourceDependencies;

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
  const { job, body, filename, attempts } = await openReport(deps, jobId, options);
  const received = await saveVerified(body as NodeReadableStream<Uint8Array>, path, job, options);
  return { path, ...received, filename, attempts };
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
