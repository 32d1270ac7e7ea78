import { afterEach, beforeEach } from 'vitest';

/**
 * Points the AWS SDK's clients at a test's own endpoint (with dummy credentials) for each test of
 * the file, and removes the variables after each: `services` are the SDK's endpoint suffixes
 * (`DYNAMODB`, `SQS`, ...). The URL is read per test, since the endpoint listens in `beforeAll`.
 */
export function useAwsEndpoint(endpointUrl: () => string, services: readonly string[]): void {
  const environment = (): Record<string, string> => ({
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'secret',
    ...Object.fromEntries(services.map((service) => [`AWS_ENDPOINT_URL_${service}`, endpointUrl()])),
  });
  beforeEach(() => {
    Object.assign(process.env, environment());
  });
  afterEach(() => {
    for (const name of Object.keys(environment())) delete process.env[name];
  });
}
