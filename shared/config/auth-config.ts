import * as v from 'valibot';
import { MACHINE_CLIENT_NAME } from '#shared/domain/identity/machine-clients.ts';
import { commaSeparatedList, optionalString, requiredString } from './load-config.ts';

/**
 * Token verification settings shared by every API function. Exactly one key source: `JWKS_URL`
 * (remote: in AWS, and the local OpenID provider) or `JWKS_JSON` (an inline public key set, for
 * tests). At least one way to tell a token is meant for this API: `JWT_AUDIENCE` (`aud` contains
 * it) or `JWT_CLIENT_IDS` (Cognito access tokens: `client_id` is one of them, `token_use` is
 * `access`). See docs/identity-providers.md.
 */
/** The claim that names the caller's organization unless ORG_CLAIM says otherwise. */
export const DEFAULT_ORG_CLAIM = 'org_id';
/** The claim naming the caller's staff role(s) unless ROLE_CLAIM says otherwise. */
export const DEFAULT_ROLE_CLAIM = 'role';

export const authEnvironment = {
  JWT_ISSUER: requiredString('JWT_ISSUER'),
  JWT_AUDIENCE: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'JWT_AUDIENCE must not be empty'))),
  JWT_CLIENT_IDS: v.optional(commaSeparatedList('JWT_CLIENT_IDS', 'client id')),
  /**
   * The machine clients (client credentials) of the provider, by the client id in `client_id`, `azp`
   * or `cid`, comma-separated; `<prefix>*` names every id with that prefix (the local provider's
   * `machine.*`). Their tokens keep the scopes they were granted; every other token is a staff
   * member's and holds only its role's scopes (ROLE_CLAIM). Cognito's `org:add` clients need no
   * entry: MACHINE_CLIENTS_TABLE_NAME names them.
   */
  MACHINE_CLIENT_IDS: v.optional(
    v.pipe(
      commaSeparatedList('MACHINE_CLIENT_IDS', 'client id'),
      v.check(
        (names) => names.every((name) => MACHINE_CLIENT_NAME.test(name)),
        'MACHINE_CLIENT_IDS holds client ids, each whole or a prefix followed by a single *',
      ),
    ),
  ),
  /** Cognito machine clients added by `org:add` (shared/config/cognito-identity.ts), accepted like JWT_CLIENT_IDS. */
  MACHINE_CLIENTS_TABLE_NAME: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1))),
  SCOPE_PREFIX: v.optional(
    v.pipe(v.string(), v.regex(/^[^\s]{1,200}$/, 'SCOPE_PREFIX must be one word, e.g. onboarding-api/')),
  ),
  JWKS_URL: v.optional(v.pipe(v.string(), v.url('JWKS_URL must be a URL'))),
  JWKS_JSON: v.optional(v.pipe(v.string(), v.parseJson(undefined, 'JWKS_JSON must be JSON'))),
  ORG_CLAIM: v.pipe(
    optionalString(DEFAULT_ORG_CLAIM),
    v.regex(/^[A-Za-z0-9_:/.-]{1,100}$/, 'ORG_CLAIM must be a claim name'),
  ),
  /** A staff token holds only the scopes of the roles this claim names, none without it (docs/identity-providers.md#staff-roles). */
  ROLE_CLAIM: v.pipe(
    optionalString(DEFAULT_ROLE_CLAIM),
    v.regex(/^[A-Za-z0-9_:/.-]{1,100}$/, 'ROLE_CLAIM must be a claim name'),
  ),
};

/** The rules between the variables, as messages (none when the settings are consistent). */
export function authEnvironmentProblems(config: {
  JWT_AUDIENCE?: string | undefined;
  JWT_CLIENT_IDS?: readonly string[] | undefined;
  MACHINE_CLIENTS_TABLE_NAME?: string | undefined;
  JWKS_URL?: string | undefined;
  JWKS_JSON?: unknown;
}): string[] {
  const problems: string[] = [];
  if ((config.JWKS_URL === undefined) === (config.JWKS_JSON === undefined)) {
    problems.push('set exactly one of JWKS_URL (remote key set) or JWKS_JSON (inline key set)');
  }
  if (
    config.JWT_AUDIENCE === undefined &&
    config.JWT_CLIENT_IDS === undefined &&
    config.MACHINE_CLIENTS_TABLE_NAME === undefined
  ) {
    problems.push('set JWT_AUDIENCE (the API audience) or JWT_CLIENT_IDS (allowed Cognito app client ids), or both');
  }
  return problems;
}
