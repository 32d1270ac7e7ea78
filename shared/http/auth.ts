import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import type { Principal } from './api-types.ts';
import { UnauthorizedError } from './http-errors.ts';

export interface TokenVerifierOptions {
  issuer: string;
  audience: string;
  keySet: JWTVerifyGetKey;
  orgClaim: string;
  orgNameClaim: string;
}

export type TokenVerifier = (bearerToken: string) => Promise<Principal>;

const ALLOWED_ALGORITHMS = ['RS256', 'ES256'];
const CLOCK_TOLERANCE_SECONDS = 30;
const ORGANIZATION_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Key set from configuration: remote (fetched once per cold start and cached by jose, refreshed on
 * an unknown `kid`) or an inline public key set for the local stack and tests.
 */
export function keySetFrom(config: { JWKS_URL?: string | undefined; JWKS_JSON?: unknown }): JWTVerifyGetKey {
  if (config.JWKS_URL) return createRemoteJWKSet(new URL(config.JWKS_URL), { timeoutDuration: 3_000 });
  return createLocalJWKSet(config.JWKS_JSON as JSONWebKeySet);
}

export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  return async (bearerToken) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(bearerToken, options.keySet, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms: ALLOWED_ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      // The key server being down or answering garbage says nothing about the token: 503, not 401.
      if (
        !(error instanceof errors.JOSEError) ||
        error instanceof errors.JWKSTimeout ||
        error instanceof errors.JWKSInvalid
      ) {
        throw new DependencyUnavailableError('identity provider keys', { cause: error });
      }
      throw new UnauthorizedError('invalid bearer token', { cause: error });
    }
    const orgId = payload[options.orgClaim];
    if (typeof orgId !== 'string' || !ORGANIZATION_ID.test(orgId)) {
      throw new UnauthorizedError('bearer token carries no valid organization');
    }
    const orgName = payload[options.orgNameClaim];
    return {
      orgId,
      orgName: typeof orgName === 'string' && orgName.trim() ? orgName.trim() : undefined,
      scopes: scopesOf(payload),
      subject: payload.sub,
      // The OAuth client the token was issued to: `client_id` (RFC 9068, Cognito) or `azp` (OIDC).
      clientId:
        typeof payload.client_id === 'string'
          ? payload.client_id
          : typeof payload.azp === 'string'
            ? payload.azp
            : undefined,
    };
  };
}

function scopesOf(payload: JWTPayload): ReadonlySet<string> {
  const scopes = new Set<string>();
  if (typeof payload.scope === 'string') for (const s of payload.scope.split(' ')) if (s) scopes.add(s);
  if (Array.isArray(payload.scp)) for (const s of payload.scp) if (typeof s === 'string') scopes.add(s);
  return scopes;
}

/** The token from `Authorization: Bearer <token>`; the scheme word is case-insensitive. */
export function bearerTokenFrom(headers: Record<string, string | undefined> | undefined): string {
  const header = headers?.authorization;
  if (!header) throw new UnauthorizedError('missing bearer token');
  const match = /^bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw new UnauthorizedError('authorization header is not a bearer token');
  return match[1];
}

/** The verifier an API function builds once per cold start from its validated configuration. */
export function tokenVerifierFrom(config: {
  JWT_ISSUER: string;
  JWT_AUDIENCE: string;
  JWKS_URL?: string | undefined;
  JWKS_JSON?: unknown;
  ORG_CLAIM: string;
  ORG_NAME_CLAIM: string;
}): TokenVerifier {
  return createTokenVerifier({
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    keySet: keySetFrom(config),
    orgClaim: config.ORG_CLAIM,
    orgNameClaim: config.ORG_NAME_CLAIM,
  });
}
