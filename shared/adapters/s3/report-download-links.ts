import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ReportDownloadLinks } from '#shared/domain/reports/ports.ts';

/**
 * Pre-signed GETs of report PDFs, signed locally with AWS Signature V4 (no request to S3). The
 * link forces a download as application/pdf under the given file name.
 */
export class S3ReportDownloadLinks implements ReportDownloadLinks {
  constructor(
    private readonly s3: S3Client,
    private readonly bucketName: string,
  ) {}

  async downloadUrl(objectKey: string, options: { filename: string; expiresInSeconds: number }): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucketName,
      Key: objectKey,
      ResponseContentDisposition: `attachment; filename="${options.filename}"`,
      ResponseContentType: 'application/pdf',
    });
    return getSignedUrl(this.s3, command, { expiresIn: options.expiresInSeconds });
  }
}
