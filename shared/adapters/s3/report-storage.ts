import { setTimeout as sleep } from 'node:timers/promises';
import { HttpRequest } from '@smithy/core/transport';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import { DependencyUnavailableError } from '../../domain/errors.ts';
import type { ReportStorage } from '../../domain/reports/ports.ts';
import { objectAddress, s3BucketFromEnvironment, sha256, type S3Bucket } from './s3-bucket.ts';

const CONNECTION_TIMEOUT_MS = 3_000;
/** All attempts of one save together, leaving the 15 s worker time to give the job back. */
const SAVE_TIMEOUT_MS = 10_000;
/** The pauses before the second and the third attempt. */
const RETRY_DELAYS_MS = [100, 400];
/** S3 answers these codes with a 5xx or a 400; either way another attempt may well succeed. */
const TRANSIENT_S3_CODES = new Set(['SlowDown', 'RequestTimeout', 'InternalError', 'ServiceUnavailable']);
/** An S3 error body is a short XML document; only its `<Code>` is read. */
const MAX_ERROR_BODY_BYTES = 4_096;

/** S3 refused a PUT. Names the status and S3's error code only: its message may quote the request. */
export class S3PutObjectError extends Error {
  override name = 'S3PutObjectError';
  constructor(
    readonly statusCode: number,
    readonly code: string | undefined,
  ) {
    super(`S3 PutObject failed: HTTP ${statusCode}${code ? ` ${code}` : ''}`);
  }

  get isTransient(): boolean {
    return this.statusCode >= 500 || this.statusCode === 429 || TRANSIENT_S3_CODES.has(this.code ?? '');
  }
}

export interface S3ReportStorageOptions {
  /** Pauses between attempts; one attempt more than there are pauses. */
  retryDelaysMs?: readonly number[];
}

/**
 * PDFs in a private bucket, written encrypted with a SHA-256 checksum S3 verifies. They are read
 * only through short-lived pre-signed GETs (report-download-links.ts).
 *
 * The PUT is signed (SigV4) and sent with the SDK's own signer and HTTP handler instead of the S3
 * client, which would be some 130 KB of the worker's bundle and 10-15 ms of its cold start for
 * this one call. Network errors, timeouts, throttling and 5xx are retried here a few times, then
 * reported as `DependencyUnavailableError` so the job goes back to the queue; any other refusal
 * is permanent.
 */
export class S3ReportStorage implements ReportStorage {
  private readonly signer: SignatureV4;
  /** Built with the storage, once per cold start, so its keep-alive connections serve later invocations. */
  private readonly http = new NodeHttpHandler({
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    requestTimeout: SAVE_TIMEOUT_MS,
    throwOnRequestTimeout: true,
  });
  private readonly retryDelaysMs: readonly number[];

  constructor(
    private readonly bucket: S3Bucket,
    options: S3ReportStorageOptions = {},
  ) {
    // S3's canonical path is the key encoded once, as objectAddress already encodes it.
    this.signer = new SignatureV4({ service: 's3', region: bucket.region, credentials: bucket.credentials, sha256, uriEscapePath: false });
    this.retryDelaysMs = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  }

  async save(objectKey: string, pdf: Uint8Array, sha256Hex: string): Promise<void> {
    const request = this.putObjectRequest(objectKey, pdf, sha256Hex);
    const deadline = Date.now() + SAVE_TIMEOUT_MS;
    for (let attempt = 1; ; attempt++) {
      // Outside the try: failing to sign (no credentials) is not S3 being unavailable. The signer
      // types its result as the HttpRequest interface, the handler takes the class.
      const signed = new HttpRequest(await this.signer.sign(request));
      try {
        return await this.send(signed, Math.max(1, deadline - Date.now()));
      } catch (error) {
        if (error instanceof S3PutObjectError && !error.isTransient) throw error;
        const delayMs = this.retryDelaysMs[attempt - 1];
        if (delayMs === undefined || Date.now() + delayMs >= deadline) {
          throw new DependencyUnavailableError('storage', { cause: error });
        }
        await sleep(delayMs);
      }
    }
  }

  private putObjectRequest(objectKey: string, pdf: Uint8Array, sha256Hex: string): HttpRequest {
    const url = objectAddress(this.bucket, objectKey);
    return new HttpRequest({
      method: 'PUT',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      headers: {
        host: url.host,
        'content-type': 'application/pdf',
        'content-length': String(pdf.byteLength),
        'x-amz-server-side-encryption': 'AES256',
        'x-amz-checksum-sha256': Buffer.from(sha256Hex, 'hex').toString('base64'),
        // The signature's payload hash; S3 checks the body against it as well.
        'x-amz-content-sha256': sha256Hex,
      },
      body: pdf,
    });
  }

  /** Resolves once S3 has stored the object; rejects with S3's refusal or the network's error. */
  private async send(request: HttpRequest, timeoutMs: number): Promise<void> {
    const { response } = await this.http.handle(request, { requestTimeout: timeoutMs });
    // Read even on success: a fully read response frees its connection for the next invocation.
    const body = await readAtMost(response.body as AsyncIterable<Uint8Array>, MAX_ERROR_BODY_BYTES);
    if (response.statusCode >= 200 && response.statusCode < 300) return;
    throw new S3PutObjectError(response.statusCode, /<Code>([\w.-]{1,64})<\/Code>/.exec(body)?.[1]);
  }
}

/** The worker's reports bucket, written with the function's own credentials from its environment. */
export function reportStorageFromEnvironment(bucketName: string): S3ReportStorage {
  return new S3ReportStorage(s3BucketFromEnvironment(bucketName));
}

/** The first `maxBytes` of a response body; the rest is dropped with the connection. */
async function readAtMost(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size >= maxBytes) break;
    }
  } catch {
    // A body cut short: the status alone still tells what happened.
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}
