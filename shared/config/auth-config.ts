import * as v from 'valibot';
import { optionalString, requiredString } from './load-config.ts';

/**
 * Token verification settings shared by every API function. Exactly one key source: `JWKS_URL`
 * (remote, in AWS) or `JWKS_JSON` (an inline public key set, for the local stack and tests).
 */
export const authEnvironment = {
  JWT_ISSUER: requiredString('JWT_ISSUER'),
  JWT_AUDIENCE: requiredString('JWT_AUDIENCE'),
  JWKS_URL: v.optional(v.pipe(v.string(), v.url('JWKS_URL must be a URL'))),
  JWKS_JSON: v.optional(v.pipe(v.string(), v.parseJson(undefined, 'JWKS_JSON must be JSON'))),
  ORG_CLAIM: v.pipe(optionalString('org_id'), v.regex(/^[A-Za-z0-9_:/.-]{1,100}$/, 'ORG_CLAIM must be a claim name')),
};
