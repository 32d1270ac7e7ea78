import { fromEnv } from '@aws-sdk/credential-provider-env';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/** What an adapter needs to call one AWS service without its SDK client: the region, the credentials to sign with, where to reach it. */
export interface AwsServiceAccess {
  region: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** A custom endpoint such as a local emulator; default the service's regional endpoint. */
  endpoint?: string;
}

/**
 * The function's region and its own credentials from its environment (where Lambda puts them),
 * and the endpoint the SDK would read for the service: `AWS_ENDPOINT_URL_<service id>`, else
 * `AWS_ENDPOINT_URL`. The local stack points those at the emulators.
 * @param serviceId the SDK's service id, e.g. `S3`, `SESv2`
 */
export function serviceAccessFromEnvironment(serviceId: string): AwsServiceAccess {
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) throw new Error('AWS_REGION is not set');
  const endpoint = process.env[`AWS_ENDPOINT_URL_${serviceId.toUpperCase().replaceAll(' ', '_')}`] ?? process.env.AWS_ENDPOINT_URL;
  return { region, credentials: fromEnv(), ...(endpoint ? { endpoint } : {}) };
}

/** `https://<hostPrefix>.<region>.amazonaws.com`, or `.amazonaws.com.cn` in the China regions. */
export function regionalEndpoint(hostPrefix: string, region: string): string {
  return `https://${hostPrefix}.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
}
