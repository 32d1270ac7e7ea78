import { regionalEndpoint, serviceAccessFromEnvironment, type AwsServiceAccess } from '../aws-http/aws-environment.ts';

/** The S3 adapters sign with it, the download-link presigner too. */
export { sha256 } from '../aws-http/sigv4-http-client.ts';

/**
 * A bucket as the S3 adapters address it and sign requests to it themselves, without an S3
 * client: the bucket, its region, the credentials to sign with and where to reach it.
 */
export interface S3Bucket extends AwsServiceAccess {
  bucketName: string;
  /** `endpoint/bucket/key` instead of `bucket.endpoint/key` (emulators). */
  forcePathStyle?: boolean;
}

/**
 * The Lambda's bucket, signed for with the function's own credentials from its environment. The
 * local stack points it at the emulator with the SDK's `AWS_ENDPOINT_URL_S3` and path style.
 */
export function s3BucketFromEnvironment(bucketName: string): S3Bucket {
  return { bucketName, ...serviceAccessFromEnvironment('S3'), forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' };
}

/** The object's URL, its key's segments encoded as SigV4 canonicalizes them for S3. */
export function objectAddress(bucket: S3Bucket, objectKey: string): URL {
  const key = objectKey.split('/').map(encodeRfc3986).join('/');
  const endpoint = new URL(bucket.endpoint ?? regionalEndpoint('s3', bucket.region));
  if (bucket.forcePathStyle) return new URL(`${endpoint.protocol}//${endpoint.host}/${bucket.bucketName}/${key}`);
  return new URL(`${endpoint.protocol}//${bucket.bucketName}.${endpoint.host}/${key}`);
}

/** As in the signature: unreserved characters stay, everything else is percent-encoded. */
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
