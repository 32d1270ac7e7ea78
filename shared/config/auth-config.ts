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
  JWKS_JSON: v.optional(v.pipe(v.string(), v.parseJson('JWKS_JSON must be JSON'))),
  ORG_CLAIM: v.pipe(optionalString('org_id'), v.regex(/^[A-Za-z0-9_:/.-]{1,100}$/, 'ORG_CLAIM must be a claim name')),
};

export const hasExactlyOneKeySource = v.check<{ JWKS_URL?: string; JWKS_JSON?: unknown }>(
  (env) => (env.JWKS_URL === undefined) !== (env.JWKS_JSON === undefined),
  'set exactly one of JWKS_URL (remote key set) or JWKS_JSON (inline key set)',
);
