import { ReportIntegrityError } from './errors.ts';
import { openReport, type ReportSourceDependencies } from './open-report.ts';
import type { CompleteReportJob, ReportJob } from './types.ts';

export interface FetchReportOptions {
  /** The job as already read (must be COMPLETE); otherwise it is read first. */
  job?: ReportJob;
  signal?: AbortSignal;
  /** Called as bytes arrive. */
  onProgress?: (progress: { receivedBytes: number; totalBytes: number }) => void;
}

export interface FetchedReport {
  /** The PDF, verified: exactly `job.sizeBytes` bytes whose SHA-256 is `job.sha256`. */
  bytes: Uint8Array<ArrayBuffer>;
  sizeBytes: number;
  sha256: string;
  /** The service's suggested file name. */
  filename: string;
  /** 2 when the first address had expired and a fresh one was used. */
  attempts: number;
}

/** What `fetchReport` needs (the same as `downloadReport`). */
export type FetchReportDependencies = ReportSourceDependencies;

/**
 * A COMPLETE job's PDF in memory, for runtimes without a file system (the dashboard in a browser):
 * a fresh address, the bytes read, their size and SHA-256 (WebCrypto) compared with the job's.
 * Bytes that do not match are never handed back. An expired address (403) is replaced once.
 */
export async function fetchReport(
  deps: FetchReportDependencies,
  jobId: string,
  options: FetchReportOptions = {},
): Promise<FetchedReport> {
  const { job, body, filename, attempts } = await openReport(deps, jobId, options);
  const bytes = await readAll(body, job, options);
  const sha256 = await sha256Hex(bytes);
  if (bytes.byteLength !== job.sizeBytes || sha256 !== job.sha256) {
    throw new ReportIntegrityError(
      job.jobId,
      { sizeBytes: job.sizeBytes, sha256: job.sha256 },
      { sizeBytes: bytes.byteLength, sha256 },
    );
  }
  return { bytes, sizeBytes: bytes.byteLength, sha256, filename, attempts };
}

async function readAll(
  body: ReadableStream<Uint8Array>,
  job: CompleteReportJob,
  options: FetchReportOptions,
): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  let receivedBytes = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    receivedBytes += value.byteLength;
    options.onProgress?.({ receivedBytes, totalBytes: job.sizeBytes });
  }
  const bytes = new Uint8Array(receivedBytes);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Hex SHA-256 with WebCrypto (browsers, Node.js, Deno alike). */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
