import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import type { ReportStorage } from '#shared/domain/reports/ports.ts';

/** All attempts of one save together: the worker's 15 s must also cover rendering, DynamoDB and giving the job back. */
const SAVE_TIMEOUT_MS = 8_000;

/**
 * S3 refused the PUT for good (access denied, no such bucket, ...). Names S3's error code, the
 * status and the request id only: S3's message may quote the request.
 */
export class ReportStorageRefusedError extends Error {
  override name = 'ReportStorageRefusedError';
  constructor(
    readonly code: string,
    readonly statusCode: number | undefined,
    readonly requestId: string | undefined,
  ) {
    super(`S3 PutObject failed: ${code} (status ${statusCode ?? 'none'}, request ${requestId ?? 'none'})`);
  }
}

/**
 * PDFs in a private bucket, written encrypted with a SHA-256 checksum S3 verifies. They are read
 * only through short-lived pre-signed GETs (report-download-links.ts). Throttling, 5XX and network
 * failures are retried by the SDK (aws-clients.ts) within 8 s and then reported as
 * `DependencyUnavailableError`, so the job goes back to the queue; any other refusal is permanent.
 */
export class S3ReportStorage implements ReportStorage {
  constructor(
    private readonly s3: S3Client,
    private readonly bucketName: string,
    private readonly timeoutMs = SAVE_TIMEOUT_MS,
  ) {}

  /** Resolves once S3 has stored the object. */
  async save(objectKey: string, pdf: Uint8Array, sha256Hex: string): Promise<void> {
    const command = new PutObjectCommand({
      Bucket: this.bucketName,
      Key: objectKey,
      Body: pdf,
      ContentType: 'application/pdf',
      ServerSideEncryption: 'AES256',
      ChecksumSHA256: Buffer.from(sha256Hex, 'hex').toString('base64'),
    });
    try {
      await this.s3.send(command, { abortSignal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      if (error instanceof DependencyUnavailableError) throw error;
      if (isAbort(error)) throw new DependencyUnavailableError('storage', { cause: error });
      const { name, $metadata } = error as {
        name?: string;
        $metadata?: { httpStatusCode?: number; requestId?: string };
      };
      if ($metadata === undefined) throw error; // not S3's answer: a bug, passed on as it is
      throw new ReportStorageRefusedError(name ?? 'unknown error', $metadata.httpStatusCode, $metadata.requestId);
    }
  }

  /** Removes a stored PDF; S3 answers a missing key with success too. */
  async remove(objectKey: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucketName, Key: objectKey }), {
      abortSignal: AbortSignal.timeout(this.timeoutMs),
    });
  }
}

/** The SDK rejects an aborted call with an `AbortError` (or the signal's `TimeoutError`). */
export function isAbort(error: unknown): boolean {
  const name = (error as { name?: unknown } | undefined)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}
