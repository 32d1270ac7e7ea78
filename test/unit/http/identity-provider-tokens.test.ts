import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { authEnvironment, authEnvironmentProblems } from '#shared/config/auth-config.ts';
import { loadConfig, optionalString } from '#shared/config/load-config.ts';
import type { TokenVerifier } from '#shared/http/auth.ts';
import { tokenVerifierFrom } from '#shared/wiring/identity.ts';
import { UnauthorizedError } from '#shared/http/http-errors.ts';
import { testTokenVerifier } from '#test/support/fixtures/token-verifier.ts';
import { generateSigningKey, jwksOf, nowInSeconds, signToken, type TestSigningKey } from '#test/support/jwt.ts';

/**
 * Access tokens shaped as each identity provider issues them (claims, issuer forms, where the
 * client and the scopes are), signed with test keys and verified by the API's own verifier, built
 * from environment values exactly as a function builds it at cold start. Only the key set is local.
 */
let key: TestSigningKey;

beforeAll(async () => {
  key = await generateSigningKey('RS256');
});

function verifierFromEnvironment(environment: Record<string, string>): TokenVerifier {
  const source = { JWKS_JSON: JSON.stringify(jwksOf(key)), ...environment };
  const config = loadConfig(v.object({ ...authEnvironment, ORG_NAME_CLAIM: optionalString('org_name') }), source);
  expect(authEnvironmentProblems(config)).toEqual([]);
  return tokenVerifierFrom(config);
}

const sign = (claims: Record<string, unknown>) => signToken(claims, { key });
const sortedScopes = (scopes: ReadonlySet<string>) => [...scopes].sort();

describe('Amazon Cognito', () => {
  const region = 'eu-west-1';
  const userPoolId = `${region}_AbCdEf123`;
  const issuer = `https://cognito-idp.${region}.amazonaws.com/${userPoolId}`;
  const dashboardClientId = '4l9c2tmpq1fb8n0example1a2b';
  const machineClientId = '7k3j5h8g2f1d9s0example3c4d';
  let verify: TokenVerifier;

  beforeAll(() => {
    verify = verifierFromEnvironment({
      JWT_ISSUER: issuer,
      JWT_CLIENT_IDS: `${dashboardClientId}, ${machineClientId}`,
      // A pool made elsewhere names its machine clients; the stack's own records them (org:add).
      MACHINE_CLIENT_IDS: machineClientId,
      SCOPE_PREFIX: 'onboarding-api/',
      ROLE_CLAIM: 'cognito:groups',
    });
  });

  /** A staff member's access token from managed login, with the trigger's `org_id`, in the operator group. */
  const staffAccessToken = (overrides: Record<string, unknown> = {}) => {
    const now = nowInSeconds();
    return {
      sub: 'a1b2c3d4-0000-4000-8000-00000000cafe',
      iss: issuer,
      version: 2,
      client_id: dashboardClientId,
      origin_jti: randomUUID(),
      event_id: randomUUID(),
      token_use: 'access',
      scope: 'openid email onboarding-api/onboarding:read onboarding-api/reports:read',
      auth_time: now,
      exp: now + 3600,
      iat: now,
      jti: randomUUID(),
      username: 'a1b2c3d4-0000-4000-8000-00000000cafe',
      'cognito:groups': ['operator'],
      org_id: 'acme',
      ...overrides,
    };
  };

  it('accepts a staff access token: client_id in place of aud, scopes read without the resource server prefix', async () => {
    const principal = await verify(await sign(staffAccessToken()));

    expect(principal.tenantKey).toBe('acme');
    expect(principal.clientId).toBe(dashboardClientId);
    expect(sortedScopes(principal.scopes)).toEqual(['onboarding:read', 'reports:read']);
  });

  it('accepts a machine client token (client credentials: sub is the client)', async () => {
    const now = nowInSeconds();
    const token = await sign({
      sub: machineClientId,
      token_use: 'access',
      scope: 'onboarding-api/onboarding:write onboarding-api/users:read',
      auth_time: now,
      iss: issuer,
      exp: now + 3600,
      iat: now,
      version: 2,
      jti: randomUUID(),
      client_id: machineClientId,
      org_id: 'acme',
    });

    const principal = await verify(token);

    expect(principal).toMatchObject({ tenantKey: 'acme', subject: machineClientId, clientId: machineClientId });
    expect(sortedScopes(principal.scopes)).toEqual(['onboarding:write', 'users:read']);
  });

  it('refuses an ID token of the same pool, though its aud is an allowed client id', async () => {
    const now = nowInSeconds();
    const idToken = await sign({
      sub: 'a1b2c3d4-0000-4000-8000-00000000cafe',
      email_verified: true,
      iss: issuer,
      'cognito:username': 'a1b2c3d4-0000-4000-8000-00000000cafe',
      origin_jti: randomUUID(),
      aud: dashboardClientId,
      event_id: randomUUID(),
      token_use: 'id',
      auth_time: now,
      exp: now + 3600,
      iat: now,
      jti: randomUUID(),
      email: 'admin@acme.example',
      'custom:org_id': 'acme',
      org_id: 'acme',
    });
    // Also when an operator configured the client id as the audience by mistake.
    const audienceVerifier = verifierFromEnvironment({ JWT_ISSUER: issuer, JWT_AUDIENCE: dashboardClientId });

    await expect(verify(idToken)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(audienceVerifier(idToken)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('refuses an access token of an app client outside the allowed set', async () => {
    await expect(verify(await sign(staffAccessToken({ client_id: 'someotherclient0000000000' })))).rejects.toThrow(
      /another client/,
    );
  });

  it('refuses an access token without the organization claim (a user without custom:org_id)', async () => {
    await expect(verify(await sign(staffAccessToken({ org_id: undefined })))).rejects.toThrow(/organization/);
  });

  it('ignores scopes without the resource server prefix: another resource server cannot grant them', async () => {
    const principal = await verify(await sign(staffAccessToken({ scope: 'reports:read other-api/users:read' })));

    expect(principal.scopes.size).toBe(0);
  });

  it('accepts a machine client added at run time (org:add) only for the organization recorded for it', async () => {
    const recorded = new Map([['1addedlater000000000000000', 'acme']]);
    const lookups: string[] = [];
    const verifyWithDirectory = testTokenVerifier(jwksOf(key), {
      issuer,
      audience: undefined,
      clientIds: [dashboardClientId],
      machineClients: {
        organizationOf: async (clientId) => {
          lookups.push(clientId);
          return recorded.get(clientId);
        },
      },
      scopePrefix: 'onboarding-api/',
    });
    const machineToken = (clientId: string, orgId: string) =>
      sign(staffAccessToken({ sub: clientId, client_id: clientId, username: undefined, org_id: orgId }));

    await expect(verifyWithDirectory(await machineToken('1addedlater000000000000000', 'acme'))).resolves.toMatchObject({
      tenantKey: 'acme',
    });
    await expect(verifyWithDirectory(await machineToken('1addedlater000000000000000', 'globex'))).rejects.toThrow(
      /another client/,
    );
    await expect(verifyWithDirectory(await machineToken('2neverrecorded00000000000', 'acme'))).rejects.toThrow(
      /another client/,
    );
    // The dashboard's client is in the static set: no lookup for it.
    await verifyWithDirectory(await sign(staffAccessToken()));
    expect(lookups).not.toContain(dashboardClientId);
  });

  it('refuses a token of another user pool', async () => {
    const token = await sign(
      staffAccessToken({ iss: `https://cognito-idp.${region}.amazonaws.com/${region}_Other0000` }),
    );

    await expect(verify(token)).rejects.toBeInstanceOf(UnauthorizedError);
  });
});

describe('Auth0', () => {
  const issuer = 'https://acme-tenant.eu.auth0.com/';
  const audience = 'https://api.onboarding.example';
  const orgClaim = 'https://onboarding.example/org_id';

  it('accepts an access token with a namespaced organization claim and an audience array', async () => {
    const verify = verifierFromEnvironment({
      JWT_ISSUER: issuer,
      JWT_AUDIENCE: audience,
      ORG_CLAIM: orgClaim,
      ROLE_CLAIM: 'https://onboarding.example/role',
    });
    const now = nowInSeconds();
    const token = await sign({
      [orgClaim]: 'acme',
      iss: issuer,
      sub: 'auth0|64f1c0ffee0000000000beef',
      aud: [audience, `${issuer}userinfo`],
      iat: now,
      exp: now + 86400,
      scope: 'openid profile email onboarding:read webhooks:manage',
      azp: 'Xy1dashboardClientId0000000000',
      'https://onboarding.example/role': ['operator'],
    });

    const principal = await verify(token);

    expect(principal).toMatchObject({ tenantKey: 'acme', clientId: 'Xy1dashboardClientId0000000000' });
    expect(sortedScopes(principal.scopes)).toEqual(['onboarding:read', 'webhooks:manage']);
  });

  it('accepts a machine-to-machine token (gty client-credentials) and, with ORG_CLAIM=org_id, the Organizations claim', async () => {
    const verify = verifierFromEnvironment({
      JWT_ISSUER: issuer,
      JWT_AUDIENCE: audience,
      ORG_CLAIM: 'org_id',
      MACHINE_CLIENT_IDS: 'Mach1neClient000000000000000000',
    });
    const now = nowInSeconds();
    const token = await sign({
      org_id: 'org_9ybsU1dN2dKfDkBi',
      iss: issuer,
      sub: 'Mach1neClient000000000000000000@clients',
      aud: audience,
      iat: now,
      exp: now + 86400,
      scope: 'reports:write reports:read',
      gty: 'client-credentials',
      azp: 'Mach1neClient000000000000000000',
    });

    const principal = await verify(token);

    expect(principal.tenantKey).toBe('org_9ybsU1dN2dKfDkBi');
    expect(sortedScopes(principal.scopes)).toEqual(['reports:read', 'reports:write']);
  });

  it('refuses a token whose namespaced claim is missing though a plain org_id is present', async () => {
    const verify = verifierFromEnvironment({ JWT_ISSUER: issuer, JWT_AUDIENCE: audience, ORG_CLAIM: orgClaim });
    const now = nowInSeconds();
    const token = await sign({ org_id: 'acme', iss: issuer, sub: 'auth0|1', aud: audience, iat: now, exp: now + 60 });

    await expect(verify(token)).rejects.toBeInstanceOf(UnauthorizedError);
  });
});

describe('Okta', () => {
  const issuer = 'https://acme.okta.com/oauth2/default';

  it('accepts an access token of a custom authorization server: scp array, cid, custom org_id claim', async () => {
    const verify = verifierFromEnvironment({ JWT_ISSUER: issuer, JWT_AUDIENCE: 'api://onboarding' });
    const now = nowInSeconds();
    const token = await sign({
      ver: 1,
      jti: 'AT.9f2mBqgBtiiIcM7xK1Mh0_0x9ZzYkq3xZ0example',
      iss: issuer,
      aud: 'api://onboarding',
      iat: now,
      exp: now + 3600,
      cid: '0oa1b2c3d4e5f6g7h8i9',
      uid: '00u1a2b3c4d5e6f7g8h9',
      scp: ['openid', 'users:read', 'audit:read'],
      role: ['auditor'],
      auth_time: now,
      sub: 'jane@acme.example',
      org_id: 'acme',
    });

    const principal = await verify(token);

    expect(principal).toMatchObject({
      tenantKey: 'acme',
      clientId: '0oa1b2c3d4e5f6g7h8i9',
      subject: 'jane@acme.example',
    });
    expect(sortedScopes(principal.scopes)).toEqual(['audit:read', 'users:read']);
  });

  it('refuses a token of the org authorization server (another issuer)', async () => {
    const verify = verifierFromEnvironment({ JWT_ISSUER: issuer, JWT_AUDIENCE: 'api://onboarding' });
    const now = nowInSeconds();
    const token = await sign({
      iss: 'https://acme.okta.com',
      aud: 'api://onboarding',
      iat: now,
      exp: now + 3600,
      org_id: 'acme',
    });

    await expect(verify(token)).rejects.toBeInstanceOf(UnauthorizedError);
  });
});

describe('Microsoft Entra ID (v2.0 tokens)', () => {
  const tenantId = '72f988bf-86f1-41af-91ab-2d7cd011db47';
  const issuer = `https://login.microsoftonline.com/${tenantId}/v2.0`;
  const apiClientId = '6e74172b-be56-4843-9ff4-e66a39bb12e3';

  it('accepts an access token: v2 issuer, aud is the API app id, scopes in an scp string, client in azp', async () => {
    const verify = verifierFromEnvironment({
      JWT_ISSUER: issuer,
      JWT_AUDIENCE: apiClientId,
      ORG_CLAIM: 'extn.org_id',
      ROLE_CLAIM: 'roles',
    });
    const now = nowInSeconds();
    const token = await sign({
      aud: apiClientId,
      iss: issuer,
      iat: now,
      nbf: now,
      exp: now + 3900,
      aio: 'AWQAm/8TAAAA',
      azp: 'a3f5e2d1-0000-4000-8000-0000000dash1',
      azpacr: '0',
      name: 'Jane Doe',
      oid: '690222be-ff1a-4d56-abd1-7e4f7d38e474',
      preferred_username: 'jane@acme.example',
      rh: '0.AAAA',
      scp: 'onboarding:read onboarding:write',
      roles: ['operator'],
      sub: 'MF4f-ggWMEji12KynJUNQZphaUTvLcQug5jdF2nl01Q',
      tid: tenantId,
      uti: 'fqiBqXLPj0eQa82S-IYFAA',
      ver: '2.0',
      'extn.org_id': 'acme',
    });

    const principal = await verify(token);

    expect(principal).toMatchObject({ tenantKey: 'acme', clientId: 'a3f5e2d1-0000-4000-8000-0000000dash1' });
    expect(sortedScopes(principal.scopes)).toEqual(['onboarding:read', 'onboarding:write']);
  });

  it('refuses a v1.0 token of the same tenant (sts.windows.net issuer)', async () => {
    const verify = verifierFromEnvironment({ JWT_ISSUER: issuer, JWT_AUDIENCE: apiClientId });
    const now = nowInSeconds();
    const token = await sign({
      aud: apiClientId,
      iss: `https://sts.windows.net/${tenantId}/`,
      iat: now,
      exp: now + 3600,
      scp: 'onboarding:read',
      org_id: 'acme',
      ver: '1.0',
    });

    await expect(verify(token)).rejects.toBeInstanceOf(UnauthorizedError);
  });
});

describe('Keycloak', () => {
  const issuer = 'https://keycloak.acme.example/realms/onboarding';

  const keycloakToken = (overrides: Record<string, unknown>) => {
    const now = nowInSeconds();
    return {
      exp: now + 300,
      iat: now,
      auth_time: now,
      jti: randomUUID(),
      iss: issuer,
      aud: ['onboarding-api', 'account'],
      sub: 'f3a1b2c3-0000-4000-8000-000000000001',
      typ: 'Bearer',
      azp: 'onboarding-dashboard',
      sid: randomUUID(),
      acr: '1',
      'allowed-origins': ['https://dashboard.acme.example'],
      realm_access: { roles: ['default-roles-onboarding', 'operator'] },
      role: ['default-roles-onboarding', 'operator'],
      scope: 'openid profile email reports:read reports:write',
      email_verified: true,
      preferred_username: 'jane',
      org_id: 'acme',
      ...overrides,
    };
  };

  it('accepts a realm access token: azp, scope string, audience from an audience mapper', async () => {
    const verify = verifierFromEnvironment({ JWT_ISSUER: issuer, JWT_AUDIENCE: 'onboarding-api' });

    const principal = await verify(await sign(keycloakToken({})));

    expect(principal).toMatchObject({ tenantKey: 'acme', clientId: 'onboarding-dashboard' });
    expect(principal.scopes.has('reports:write')).toBe(true);
  });

  it('refuses a Keycloak ID token (typ ID) even when its aud names the API', async () => {
    const verify = verifierFromEnvironment({ JWT_ISSUER: issuer, JWT_AUDIENCE: 'onboarding-api' });

    await expect(verify(await sign(keycloakToken({ typ: 'ID', aud: 'onboarding-api' })))).rejects.toThrow(
      /not an access token/,
    );
  });

  it('refuses a token of another realm of the same server', async () => {
    const verify = verifierFromEnvironment({ JWT_ISSUER: issuer, JWT_AUDIENCE: 'onboarding-api' });

    await expect(
      verify(await sign(keycloakToken({ iss: 'https://keycloak.acme.example/realms/master' }))),
    ).rejects.toBeInstanceOf(UnauthorizedError);
  });
});

describe('auth environment', () => {
  it('asks for an audience or client ids, and for exactly one key source', () => {
    expect(authEnvironmentProblems({})).toEqual([
      'set exactly one of JWKS_URL (remote key set) or JWKS_JSON (inline key set)',
      'set JWT_AUDIENCE (the API audience) or JWT_CLIENT_IDS (allowed Cognito app client ids), or both',
    ]);
    expect(authEnvironmentProblems({ JWT_CLIENT_IDS: ['a'], JWKS_URL: 'https://x.example/jwks' })).toEqual([]);
  });

  it('splits JWT_CLIENT_IDS on commas and refuses a list of nothing', () => {
    const schema = v.object({ JWT_CLIENT_IDS: authEnvironment.JWT_CLIENT_IDS });

    expect(loadConfig(schema, { JWT_CLIENT_IDS: ' a1 ,b2,, ' }).JWT_CLIENT_IDS).toEqual(['a1', 'b2']);
    expect(() => loadConfig(schema, { JWT_CLIENT_IDS: ' , ' })).toThrow(/at least one client id/);
  });
});
