import { fromEnv } from '@aws-sdk/credential-provider-env';
import { formatUrl } from '@aws-sdk/core/util';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import { Hash } from '@smithy/core/serde';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { ReportDownloadLinks } from '../../domain/reports/ports.ts';

type RequestToSign = Parameters<S3RequestPresigner['presign']>[0];

export interface S3ReportDownloadLinksOptions {
  bucketName: string;
  region: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** A custom S3 endpoint such as the local emulator; default the bucket's regional endpoint. */
  endpoint?: string;
  /** `endpoint/bucket/key` instead of `bucket.endpoint/key` (emulators). */
  forcePathStyle?: boolean;
}

/**
 * Pre-signed GETs of report PDFs, signed locally with AWS Signature V4 (the SDK's own S3 presigner)
 * without an S3 client: the function that hands out download links calls no S3 API, and the S3
 * client would be most of its bundle and cold start. The link forces a download as
 * application/pdf under the given file name.
 */
export class S3ReportDownloadLinks implements ReportDownloadLinks {
  private readonly presigner: S3RequestPresigner;

  constructor(private readonly options: S3ReportDownloadLinksOptions) {
    this.presigner = new S3RequestPresigner({
      region: options.region,
      credentials: options.credentials,
      sha256: Hash.bind(null, 'sha256'),
    });
  }

  async downloadUrl(objectKey: string, options: { filename: string; expiresInSeconds: number }): Promise<string> {
    const { protocol, hostname, port, pathname: path } = objectAddress(this.options, objectKey);
    const request: RequestToSign = {
      method: 'GET',
      protocol,
      hostname,
      ...(port ? { port: Number(port) } : {}),
      path,
      query: {
        'response-content-disposition': `attachment; filename="${options.filename}"`,
        'response-content-type': 'application/pdf',
        'x-id': 'GetObject',
      },
      headers: { host: port ? `${hostname}:${port}` : hostname },
    };
    return formatUrl(await this.presigner.presign(request, { expiresIn: options.expiresInSeconds }));
  }
}

/** Download links for the Lambda's bucket, signed with the function's own credentials from its environment. */
export function reportDownloadLinksFromEnvironment(bucketName: string): S3ReportDownloadLinks {
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) throw new Error('AWS_REGION is not set');
  const endpoint = process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
  return new S3ReportDownloadLinks({
    bucketName,
    region,
    credentials: fromEnv(),
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true',
  });
}

function objectAddress(options: S3ReportDownloadLinksOptions, objectKey: string): URL {
  const key = objectKey.split('/').map(encodeRfc3986).join('/');
  const endpoint = new URL(options.endpoint ?? `https://s3.${options.region}.${dnsSuffix(options.region)}`);
  if (options.forcePathStyle) return new URL(`${endpoint.protocol}//${endpoint.host}/${options.bucketName}/${key}`);
  return new URL(`${endpoint.protocol}//${options.bucketName}.${endpoint.host}/${key}`);
}

function dnsSuffix(region: string): string {
  return region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
}

/** As in the signature: unreserved characters stay, everything else is percent-encoded. */
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
