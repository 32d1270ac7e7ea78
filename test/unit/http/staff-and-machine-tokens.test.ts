import * as v from 'valibot';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { authEnvironment, authEnvironmentProblems } from '#shared/config/auth-config.ts';
import { loadConfig, optionalString } from '#shared/config/load-config.ts';
import { ROLE_SCOPES, SCOPES } from '#shared/domain/identity/staff-roles.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import type { ApiEvent, ApiResult } from '#shared/http/api-types.ts';
import type { TokenVerifier } from '#shared/http/auth.ts';
import { tokenVerifierFrom } from '#shared/wiring/identity.ts';
import type { ApiContext } from '#shared/http/middlewares.ts';
import { ok } from '#shared/http/responses.ts';
import { apiEvent, lambdaContext } from '#test/support/api-event.ts';
import { bearer, generateSigningKey, jwksOf, nowInSeconds, signToken, type TestSigningKey } from '#test/support/jwt.ts';
import { testTokenVerifier } from '#test/support/fixtures/token-verifier.ts';

// Quiet logs: the logger reads its level once, when shared/observability/logger.ts is first imported.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
});

/**
 * Which tokens hold scopes (contract §27): a token is a machine client's only when its client is
 * named as one (MACHINE_CLIENT_IDS, or recorded by org:add for Cognito); every other token is a
 * staff member's, and a staff token holds only its role's scopes: none without a role claim.
 */
const ISSUER = 'https://idp.example/';
const AUDIENCE = 'https://api.onboarding.example';
const everyScope = SCOPES.join(' ');
let key: TestSigningKey;
let verify: TokenVerifier;

function verifierFromEnvironment(environment: Record<string, string>): TokenVerifier {
  const source = { JWKS_JSON: JSON.stringify(jwksOf(key)), ...environment };
  const config = loadConfig(v.object({ ...authEnvironment, ORG_NAME_CLAIM: optionalString('org_name') }), source);
  expect(authEnvironmentProblems(config)).toEqual([]);
  return tokenVerifierFrom(config);
}

/** An access token of this provider: `client` in `azp` (Auth0, Keycloak, Entra ID). */
const tokenOf = (claims: Record<string, unknown>) => {
  const now = nowInSeconds();
  const all: Record<string, unknown> = {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'someone',
    iat: now,
    exp: now + 300,
    org_id: 'acme',
    scope: everyScope,
    ...claims,
  };
  for (const [name, value] of Object.entries(all)) if (value === undefined) delete all[name];
  return signToken(all, { key });
};

const scopesOf = async (claims: Record<string, unknown>) => [...(await verify(await tokenOf(claims))).scopes].sort();

beforeAll(async () => {
  key = await generateSigningKey('ES256');
  verify = verifierFromEnvironment({
    JWT_ISSUER: ISSUER,
    JWT_AUDIENCE: AUDIENCE,
    MACHINE_CLIENT_IDS: 'svc-backend, machine.*',
  });
});

describe('a staff token (any client not named as a machine client)', () => {
  it('holds no scope without the role claim, though it carries every scope (the dashboard’s client)', async () => {
    expect(await scopesOf({ azp: 'onboarding-dashboard' })).toEqual([]);
  });

  it('holds no scope when it names no client at all and carries no role', async () => {
    expect(await scopesOf({})).toEqual([]);
  });

  it('holds no scope from an unnamed client with scopes and no role (a backend nobody named)', async () => {
    expect(await scopesOf({ azp: 'registration-backend', scope: 'reports:read reports:write' })).toEqual([]);
    expect(await scopesOf({ client_id: 'machine', scope: 'reports:read' })).toEqual([]);
    expect(await scopesOf({ cid: 'xmachine.acme', scope: 'reports:read' })).toEqual([]);
  });

  it('holds its role’s scopes with the role claim', async () => {
    expect(await scopesOf({ azp: 'onboarding-dashboard', role: 'auditor' })).toEqual([...ROLE_SCOPES.auditor].sort());
  });
});

describe('a machine client named as such', () => {
  it('keeps the scopes it was granted: an id named exactly, and one a prefix* names', async () => {
    expect(await scopesOf({ azp: 'svc-backend', scope: 'reports:read users:read' })).toEqual([
      'reports:read',
      'users:read',
    ]);
    expect(await scopesOf({ client_id: 'machine.acme' })).toEqual([...SCOPES].sort());
    expect(await scopesOf({ cid: 'machine.globex', scope: 'audit:read' })).toEqual(['audit:read']);
  });

  it('keeps them whatever role claim its token carries (a Keycloak service account’s realm roles)', async () => {
    expect(await scopesOf({ azp: 'svc-backend', scope: 'reports:read', role: ['offline_access'] })).toEqual([
      'reports:read',
    ]);
  });
});

describe('MACHINE_CLIENT_IDS', () => {
  const schema = v.object({ MACHINE_CLIENT_IDS: authEnvironment.MACHINE_CLIENT_IDS });

  it('splits on commas', () => {
    expect(loadConfig(schema, { MACHINE_CLIENT_IDS: ' a1 ,machine.*,, ' }).MACHINE_CLIENT_IDS).toEqual([
      'a1',
      'machine.*',
    ]);
  });

  it.each(['*', 'a*b', ' , '])('refuses %j: a * only ends a prefix, and the list names someone', (value) => {
    expect(() => loadConfig(schema, { MACHINE_CLIENT_IDS: value })).toThrow(/MACHINE_CLIENT_IDS/);
  });
});

describe('Amazon Cognito: machine clients are those org:add recorded', () => {
  const issuer = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123';
  const dashboardClientId = '4l9c2tmpq1fb8n0example1a2b';
  let cognito: TokenVerifier;

  beforeAll(() => {
    const recorded = new Map([['1addedlater000000000000000', 'acme']]);
    cognito = testTokenVerifier(jwksOf(key), {
      issuer,
      audience: undefined,
      clientIds: [dashboardClientId],
      machineClients: { organizationOf: async (clientId) => recorded.get(clientId) },
      scopePrefix: 'onboarding-api/',
      roleClaim: 'cognito:groups',
    });
  });

  const cognitoToken = (claims: Record<string, unknown>) => {
    const now = nowInSeconds();
    return signToken(
      {
        iss: issuer,
        token_use: 'access',
        iat: now,
        exp: now + 300,
        org_id: 'acme',
        scope: SCOPES.map((scope) => `onboarding-api/${scope}`).join(' '),
        ...claims,
      },
      { key },
    );
  };

  it('gives a staff member in no group no scope (Cognito leaves cognito:groups out)', async () => {
    const principal = await cognito(await cognitoToken({ sub: 'a1b2c3d4', client_id: dashboardClientId }));

    expect(principal.scopes.size).toBe(0);
  });

  it('gives a staff member in a group that group’s scopes', async () => {
    const principal = await cognito(
      await cognitoToken({ sub: 'a1b2c3d4', client_id: dashboardClientId, 'cognito:groups': ['viewer'] }),
    );

    expect([...principal.scopes].sort()).toEqual([...ROLE_SCOPES.viewer].sort());
  });

  it('lets a recorded machine client keep its scopes', async () => {
    const machine = '1addedlater000000000000000';
    const principal = await cognito(await cognitoToken({ sub: machine, client_id: machine }));

    expect(principal.scopes).toEqual(new Set(SCOPES));
  });
});

describe('a scoped route', () => {
  type Handler = (event: ApiEvent, context: ApiContext) => Promise<ApiResult>;
  const route = (): Handler =>
    createApiHandler({ requiredScope: 'reports:read', verifyToken: verify, handle: async () => ok({ listed: true }) });
  const call = async (claims: Record<string, unknown>) =>
    (
      await route()(
        apiEvent({ method: 'GET', path: '/v1/document/api', headers: bearer(await tokenOf(claims)) }),
        lambdaContext() as ApiContext,
      )
    ).statusCode;

  it('answers 403 to a staff token without a role, and to an unnamed client’s', async () => {
    expect(await call({ azp: 'onboarding-dashboard' })).toBe(403);
    expect(await call({ azp: 'registration-backend', scope: 'reports:read' })).toBe(403);
  });

  it('answers a named machine client and a staff member whose role holds the scope', async () => {
    expect(await call({ azp: 'svc-backend', scope: 'reports:read' })).toBe(200);
    expect(await call({ azp: 'onboarding-dashboard', role: 'viewer' })).toBe(200);
  });
});
