import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (lib/bundling.ts
 * aliases it). Lambda hands a function its role's credentials in environment variables, the first
 * link of the SDK's default chain; the rest of that chain (shared ini files, SSO, web identity,
 * process, container and instance metadata, with the STS and SSO clients they bring) is never
 * reached there, yet it is about 140 KB of every bundle and some 10 ms of every cold start.
 * Outside a bundle (local stack, tests, scripts) the SDK uses its full chain.
 */
export const defaultProvider: typeof fromEnv = (init) => fromEnv(init);
