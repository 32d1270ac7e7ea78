import {
  addressAt,
  regionalEndpoint,
  serviceAccessFromEnvironment,
  type AwsAddress,
  type AwsServiceAccess,
} from '../aws-http/aws-environment.ts';

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
  return {
    bucketName,
    ...serviceAccessFromEnvironment('S3'),
    forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true',
  };
}

/** The object's address, its key's segments encoded as SigV4 canonicalizes them for S3, `.` and `..` kept as they are. */
export function objectAddress(bucket: S3Bucket, objectKey: string): AwsAddress {
  const key = objectKey.split('/').map(encodeRfc3986).join('/');
  const endpoint = bucket.endpoint ?? regionalEndpoint('s3', bucket.region);
  if (bucket.forcePathStyle) return addressAt(endpoint, `/${bucket.bucketName}/${key}`);
  const address = addressAt(endpoint, `/${key}`);
  return { ...address, hostname: `${bucket.bucketName}.${address.hostname}` };
}

/** As in the signature: unreserved characters stay, everything else is percent-encoded. */
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
