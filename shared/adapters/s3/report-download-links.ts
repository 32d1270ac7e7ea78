import { formatUrl } from '@aws-sdk/core/util';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import type { ReportDownloadLinks } from '../../domain/reports/ports.ts';
import { hostHeader } from '../aws-http/aws-environment.ts';
import { sha256 } from '../aws-http/sha256.ts';
import { objectAddress, s3BucketFromEnvironment, type S3Bucket } from './s3-bucket.ts';

type RequestToSign = Parameters<S3RequestPresigner['presign']>[0];

/**
 * Pre-signed GETs of report PDFs, signed locally with AWS Signature V4 (the SDK's own S3 presigner)
 * without an S3 client: the function that hands out download links calls no S3 API, and the S3
 * client would be most of its bundle and cold start. The link forces a download as
 * application/pdf under the given file name.
 */
export class S3ReportDownloadLinks implements ReportDownloadLinks {
  private readonly presigner: S3RequestPresigner;

  constructor(private readonly bucket: S3Bucket) {
    this.presigner = new S3RequestPresigner({ region: bucket.region, credentials: bucket.credentials, sha256 });
  }

  async downloadUrl(objectKey: string, options: { filename: string; expiresInSeconds: number }): Promise<string> {
    const address = objectAddress(this.bucket, objectKey);
    const request: RequestToSign = {
      method: 'GET',
      ...address,
      query: {
        'response-content-disposition': `attachment; filename="${options.filename}"`,
        'response-content-type': 'application/pdf',
        'x-id': 'GetObject',
      },
      headers: { host: hostHeader(address) },
    };
    return formatUrl(await this.presigner.presign(request, { expiresIn: options.expiresInSeconds }));
  }
}

/** Download links for the Lambda's bucket, signed with the function's own credentials from its environment. */
export function reportDownloadLinksFromEnvironment(bucketName: string): S3ReportDownloadLinks {
  return new S3ReportDownloadLinks(s3BucketFromEnvironment(bucketName));
}
