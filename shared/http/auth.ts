import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { isOrganizationId, type MachineClientDirectory } from '#shared/domain/identity/organization-claim.ts';
import { namedMachineClients } from '#shared/domain/identity/machine-clients.ts';
import { scopesHeld, type TokenHolder } from '#shared/domain/identity/staff-roles.ts';
import { SANDBOX_SCOPE, tenantKey, type Tenant } from '#shared/domain/identity/tenant.ts';
import type { Principal } from './api-types.ts';
import { UnauthorizedError } from './http-errors.ts';
import { createCachedRemoteKeySet, isKeyFetchFailure } from './remote-key-set.ts';

export interface TokenVerifierOptions {
  issuer: string;
  /** `aud` must contain it (OIDC providers: Auth0, Okta, Entra ID, Keycloak, the local provider). */
  audience?: string | undefined;
  /**
   * Cognito access tokens carry no `aud`: they name their app client in `client_id`. A token whose
   * `client_id` is one of these and whose `token_use` is `access` is accepted in place of the audience.
   */
  clientIds?: readonly string[] | undefined;
  /**
   * Machine clients added at run time (`org:add`), which no static list can name: a Cognito access
   * token of a client recorded here is accepted when its organization claim is the one recorded.
   */
  machineClients?: MachineClientDirectory | undefined;
  /**
   * The provider's machine clients by client id (`<prefix>*`: every id with the prefix). They and the
   * clients `machineClients` records for the token's organization keep the scopes they were granted;
   * every other token is a staff member's (see roleClaim).
   */
  machineClientIds?: readonly string[] | undefined;
  /**
   * Cognito prefixes a resource server's scopes with its identifier (`onboarding-api/reports:read`).
   * With a prefix, only scopes carrying it count, read without it.
   */
  scopePrefix?: string | undefined;
  keySet: JWTVerifyGetKey;
  orgClaim: string;
  orgNameClaim: string;
  /**
   * The staff role claim (a role name, or a list of them): a staff token holds only the scopes of
   * the roles it names, so one without it, or naming no role, holds none. Machine clients' tokens
   * (machineClientIds, machineClients) keep the scopes they were granted.
   */
  roleClaim: string;
}

export type TokenVerifier = (bearerToken: string) => Promise<Principal>;

const ALLOWED_ALGORITHMS = ['RS256', 'ES256'];
const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * Key set from configuration: remote (fetched once per cold start, cached, refreshed on an unknown
 * `kid` and when older than its maximum age, served from the cache while the endpoint is down; see
 * remote-key-set.ts) or an inline public key set for tests.
 */
export function keySetFrom(config: { JWKS_URL?: string | undefined; JWKS_JSON?: unknown }): JWTVerifyGetKey {
  if (config.JWKS_URL) return createCachedRemoteKeySet(new URL(config.JWKS_URL));
  return createLocalJWKSet(config.JWKS_JSON as JSONWebKeySet);
}

export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  if (!options.audience && !options.clientIds?.length && !options.machineClients) {
    throw new Error('a token verifier needs an audience or a set of allowed client ids');
  }
  const clientIds = new Set(options.clientIds ?? []);
  const isNamedMachineClient = namedMachineClients(options.machineClientIds ?? []);
  const byClient = clientIds.size > 0 || options.machineClients !== undefined;
  // Without client ids jose checks the audience itself; with them, either rule admits a token (below).
  const joseAudience = byClient ? undefined : options.audience;
  return async (bearerToken) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(bearerToken, options.keySet, {
        issuer: options.issuer,
        ...(joseAudience === undefined ? {} : { audience: joseAudience }),
        algorithms: ALLOWED_ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      // The key server being down or answering garbage says nothing about the token: 503, not 401.
      if (isKeyFetchFailure(error)) {
        throw new DependencyUnavailableError('identity provider keys', { cause: error });
      }
      throw new UnauthorizedError('invalid bearer token', { cause: error });
    }
    if (isIdentityOrRefreshToken(payload)) throw new UnauthorizedError('bearer token is not an access token');
    const orgId = payload[options.orgClaim];
    if (!isOrganizationId(orgId)) throw new UnauthorizedError('bearer token carries no valid organization');
    const recordedMachineClient = await isRecordedMachineClient(payload, orgId, clientIds, options.machineClients);
    if (byClient && !recordedMachineClient && !isForThisApi(payload, options.audience, clientIds)) {
      throw new UnauthorizedError('bearer token was issued for another client or audience');
    }
    const clientId = clientIdOf(payload);
    // Fails closed: a token is a machine client's only when its client is named as one.
    const holder: TokenHolder =
      recordedMachineClient || (clientId !== undefined && isNamedMachineClient(clientId))
        ? { kind: 'machine client' }
        : { kind: 'staff', roleClaim: payload[options.roleClaim] };
    const orgName = payload[options.orgNameClaim];
    const granted = scopesOf(payload, options.scopePrefix);
    // The one place a caller's tenant is decided: every store keys by tenantKey from here on.
    const tenant: Tenant = { orgId, mode: granted.has(SANDBOX_SCOPE) ? 'sandbox' : 'live' };
    return {
      tenant,
      tenantKey: tenantKey(tenant),
      orgName: typeof orgName === 'string' && orgName.trim() ? orgName.trim() : undefined,
      scopes: scopesHeld(granted, holder),
      subject: payload.sub,
      clientId,
    };
  };
}

/**
 * An ID token proves a sign-in to a client; it is no permission to call this API. Cognito says
 * which token it is in `token_use` (`id`, `access`), Keycloak in `typ` (`ID`, `Refresh`, `Bearer`).
 */
function isIdentityOrRefreshToken(payload: JWTPayload): boolean {
  if (payload.token_use !== undefined && payload.token_use !== 'access') return true;
  return payload.typ === 'ID' || payload.typ === 'Refresh';
}

/** A Cognito access token of a client `org:add` recorded for the organization the token names. */
async function isRecordedMachineClient(
  payload: JWTPayload,
  orgId: string,
  clientIds: ReadonlySet<string>,
  machineClients: MachineClientDirectory | undefined,
): Promise<boolean> {
  if (!machineClients || payload.token_use !== 'access' || typeof payload.client_id !== 'string') return false;
  // The stack's own clients (the dashboard's) are listed in clientIds and recorded nowhere.
  if (clientIds.has(payload.client_id)) return false;
  return (await machineClients.organizationOf(payload.client_id)) === orgId;
}

function isForThisApi(payload: JWTPayload, audience: string | undefined, clientIds: ReadonlySet<string>): boolean {
  if (payload.token_use === 'access' && typeof payload.client_id === 'string' && clientIds.has(payload.client_id)) {
    return true;
  }
  if (audience === undefined) return false;
  return typeof payload.aud === 'string' ? payload.aud === audience : (payload.aud?.includes(audience) ?? false);
}

/** The OAuth client the token was issued to: `client_id` (RFC 9068, Cognito), `azp` (OIDC: Auth0, Entra ID, Keycloak) or `cid` (Okta). */
function clientIdOf(payload: JWTPayload): string | undefined {
  for (const claim of ['client_id', 'azp', 'cid']) {
    const value = payload[claim];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * Scopes from `scope` (a space-separated string: RFC 9068, Auth0, Keycloak, Cognito) and `scp`
 * (an array at Okta, a space-separated string at Microsoft Entra ID).
 */
function scopesOf(payload: JWTPayload, prefix: string | undefined): ReadonlySet<string> {
  const scopes = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value !== 'string') return;
    for (const scope of value.split(' ')) {
      if (!scope) continue;
      if (prefix === undefined) scopes.add(scope);
      else if (scope.startsWith(prefix) && scope.length > prefix.length) scopes.add(scope.slice(prefix.length));
    }
  };
  add(payload.scope);
  if (Array.isArray(payload.scp)) for (const scope of payload.scp) add(scope);
  else add(payload.scp);
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
