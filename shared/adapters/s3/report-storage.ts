import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DependencyUnavailableError } from '../../domain/errors.ts';
import type { ReportStorage } from '../../domain/reports/ports.ts';
import { isDependencyUnavailable } from '../aws-errors.ts';

/** S3 client for the reports bucket; path-style addressing only where an emulator needs it. */
export function createReportsS3Client(): S3Client {
  return new S3Client({ forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' });
}

/**
 * PDFs in a private bucket, written encrypted with a SHA-256 checksum S3 verifies. They are read
 * only through short-lived pre-signed GETs (report-download-links.ts).
 */
export class S3ReportStorage implements ReportStorage {
  constructor(
    private readonly s3: S3Client,
    private readonly bucketName: string,
  ) {}

  async save(objectKey: string, pdf: Uint8Array, sha256Hex: string): Promise<void> {
    try {
      await this.s3.send(
        new PutObjectCommand({
          Bucket: this.bucketName,
          Key: objectKey,
          Body: pdf,
          ContentType: 'application/pdf',
          ServerSideEncryption: 'AES256',
          ChecksumSHA256: Buffer.from(sha256Hex, 'hex').toString('base64'),
        }),
      );
    } catch (error) {
      if (isDependencyUnavailable(error)) throw new DependencyUnavailableError('storage', { cause: error });
      throw error;
    }
  }
}
