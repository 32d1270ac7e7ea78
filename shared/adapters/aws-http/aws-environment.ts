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
 * Where a request goes, in the fields the SDK's HttpRequest has. The path is already
 * percent-encoded and is sent and signed exactly as it is: a WHATWG URL would resolve its `.` and
 * `..` segments (`%2E%2E` too), and an S3 key is literal.
 */
export interface AwsAddress {
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
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
  const endpoint =
    process.env[`AWS_ENDPOINT_URL_${serviceId.toUpperCase().replaceAll(' ', '_')}`] ?? process.env.AWS_ENDPOINT_URL;
  return { region, credentials: fromEnv(), ...(endpoint ? { endpoint } : {}) };
}

/** `https://<hostPrefix>.<region>.amazonaws.com`, or `.amazonaws.com.cn` in the China regions. */
export function regionalEndpoint(hostPrefix: string, region: string): string {
  return `https://${hostPrefix}.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
}

/** `path` (already encoded) at the endpoint's protocol, host and port; the rest of the endpoint is not used. */
export function addressAt(endpoint: string, path: string): AwsAddress {
  const { protocol, hostname, port } = new URL(endpoint);
  return { protocol, hostname, ...(port ? { port: Number(port) } : {}), path };
}

/** The `host` header for the address: the port only when it is not the protocol's default. */
export function hostHeader({ hostname, port }: AwsAddress): string {
  return port === undefined ? hostname : `${hostname}:${port}`;
}
