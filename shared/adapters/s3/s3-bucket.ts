import { fromEnv } from '@aws-sdk/credential-provider-env';
import { Hash } from '@smithy/core/serde';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/**
 * A bucket as the S3 adapters address it and sign requests to it themselves, without an S3
 * client: the bucket, its region, the credentials to sign with and where to reach it.
 */
export interface S3Bucket {
  bucketName: string;
  region: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** A custom S3 endpoint such as the local emulator; default the bucket's regional endpoint. */
  endpoint?: string;
  /** `endpoint/bucket/key` instead of `bucket.endpoint/key` (emulators). */
  forcePathStyle?: boolean;
}

/** SHA-256 for SigV4, from the SDK's own Node hash (already in every bundle). */
export const sha256 = Hash.bind(null, 'sha256');

/**
 * The Lambda's bucket, signed for with the function's own credentials from its environment. The
 * local stack points it at the emulator with the SDK's `AWS_ENDPOINT_URL_S3` and path style.
 */
export function s3BucketFromEnvironment(bucketName: string): S3Bucket {
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) throw new Error('AWS_REGION is not set');
  const endpoint = process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
  return {
    bucketName,
    region,
    credentials: fromEnv(),
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true',
  };
}

/** The object's URL, its key's segments encoded as SigV4 canonicalizes them for S3. */
export function objectAddress(bucket: S3Bucket, objectKey: string): URL {
  const key = objectKey.split('/').map(encodeRfc3986).join('/');
  const endpoint = new URL(bucket.endpoint ?? `https://s3.${bucket.region}.${dnsSuffix(bucket.region)}`);
  if (bucket.forcePathStyle) return new URL(`${endpoint.protocol}//${endpoint.host}/${bucket.bucketName}/${key}`);
  return new URL(`${endpoint.protocol}//${bucket.bucketName}.${endpoint.host}/${key}`);
}

function dnsSuffix(region: string): string {
  return region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
}

/** As in the signature: unreserved characters stay, everything else is percent-encoded. */
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
