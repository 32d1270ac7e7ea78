import type { ReportStorage } from '../../domain/reports/ports.ts';
import { AwsRequestRefusedError, SigV4HttpClient } from '../aws-http/sigv4-http-client.ts';
import { objectAddress, s3BucketFromEnvironment, type S3Bucket } from './s3-bucket.ts';

/** S3 answers a connection within milliseconds; one that takes longer is better tried afresh. */
const CONNECTION_TIMEOUT_MS = 1_000;
/** One attempt, upload included: a stalled one is given up in time for another. */
const ATTEMPT_TIMEOUT_MS = 3_000;
/** All attempts of one save together: the worker's 15 s must also cover rendering, DynamoDB and giving the job back. */
const SAVE_TIMEOUT_MS = 8_000;
/** The pauses before the second and the third attempt. */
const RETRY_DELAYS_MS = [100, 400];
/** S3 answers these codes with a 5xx or a 400; either way another attempt may well succeed. */
const TRANSIENT_S3_CODES = new Set(['SlowDown', 'RequestTimeout', 'InternalError', 'ServiceUnavailable']);
/** An S3 error body is a short XML document; only its `<Code>` is read. */
const MAX_ERROR_BODY_BYTES = 4_096;

/**
 * S3 refused a PUT. Names the status, S3's error code and its request ids (`x-amz-request-id`,
 * `x-amz-id-2`) only: its message may quote the request.
 */
export class S3PutObjectError extends AwsRequestRefusedError {
  override name = 'S3PutObjectError';
  constructor(statusCode: number, code: string | undefined, requestId?: string, extendedRequestId?: string) {
    super('S3 PutObject', statusCode, code, requestId, extendedRequestId);
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
 * client, whose size in the worker's bundle and cold start is not worth this one call (README,
 * "Performance"). Network failures, timeouts, throttling and 5xx are retried here a few times,
 * then reported as `DependencyUnavailableError` so the job goes back to the queue; any other
 * refusal is permanent.
 */
export class S3ReportStorage implements ReportStorage {
  private readonly s3: SigV4HttpClient;

  constructor(
    private readonly bucket: S3Bucket,
    options: S3ReportStorageOptions = {},
  ) {
    this.s3 = new SigV4HttpClient({
      signingName: 's3',
      region: bucket.region,
      credentials: bucket.credentials,
      // S3's canonical path is the key encoded once, as objectAddress already encodes it.
      uriEscapePath: false,
      dependency: 'storage',
      connectionTimeoutMs: CONNECTION_TIMEOUT_MS,
      attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
      timeBudgetMs: SAVE_TIMEOUT_MS,
      retryDelaysMs: options.retryDelaysMs ?? RETRY_DELAYS_MS,
      transientErrorCodes: TRANSIENT_S3_CODES,
      maxResponseBytes: MAX_ERROR_BODY_BYTES,
      refusal: ({ statusCode, headers, body }) =>
        new S3PutObjectError(
          statusCode,
          /<Code>([\w.-]{1,64})<\/Code>/.exec(body)?.[1],
          headers['x-amz-request-id'],
          headers['x-amz-id-2'],
        ),
    });
  }

  /** Resolves once S3 has stored the object. */
  async save(objectKey: string, pdf: Uint8Array, sha256Hex: string): Promise<void> {
    await this.s3.send({
      method: 'PUT',
      address: objectAddress(this.bucket, objectKey),
      headers: {
        'content-type': 'application/pdf',
        'x-amz-server-side-encryption': 'AES256',
        'x-amz-checksum-sha256': Buffer.from(sha256Hex, 'hex').toString('base64'),
        // The signature's payload hash; S3 checks the body against it as well.
        'x-amz-content-sha256': sha256Hex,
      },
      body: pdf,
    });
  }
}

/** The worker's reports bucket, written with the function's own credentials from its environment. */
export function reportStorageFromEnvironment(bucketName: string): S3ReportStorage {
  return new S3ReportStorage(s3BucketFromEnvironment(bucketName));
}
