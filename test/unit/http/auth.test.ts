import { createRemoteJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearerTokenFrom, type TokenVerifier } from '#shared/http/auth.ts';
import { ROLE_SCOPES, ROLES, SCOPES } from '#shared/domain/identity/staff-roles.ts';
import { UnauthorizedError } from '#shared/http/http-errors.ts';
import {
  createTestKeySet,
  generateSigningKey,
  hmacToken,
  nowInSeconds,
  signToken,
  TEST_AUDIENCE,
  TEST_ORG_ID,
  unsecuredToken,
  validClaims,
  type TestSigningKey,
} from '#test/support/jwt.ts';
import { testTokenVerifier } from '#test/support/fixtures/token-verifier.ts';

let rs256: TestSigningKey;
let es256: TestSigningKey;
let foreignKey: TestSigningKey;
let jwks: JSONWebKeySet;
let verify: TokenVerifier;

const verifierWith = (options: { orgClaim?: string; keySet?: JSONWebKeySet } = {}): TokenVerifier =>
  testTokenVerifier(options.keySet ?? jwks, { orgClaim: options.orgClaim ?? 'org_id' });

beforeAll(async () => {
  ({ rs256, es256, jwks } = await createTestKeySet());
  foreignKey = await generateSigningKey('ES256');
  verify = verifierWith();
});

async function expectUnauthorized(token: string, verifier: TokenVerifier = verify): Promise<void> {
  await expect(verifier(token)).rejects.toBeInstanceOf(UnauthorizedError);
}

describe('createTokenVerifier', () => {
  it('accepts a valid RS256 token and returns the principal', async () => {
    // Arrange
    const token = await signToken(
      validClaims({ org_name: ' Acme Ltd ', scope: 'onboarding:write reports:read', sub: 'client-7' }),
      { key: rs256 },
    );

    // Act
    const principal = await verify(token);

    // Assert
    expect(principal).toEqual({
      tenant: { orgId: TEST_ORG_ID, mode: 'live' },
      tenantKey: TEST_ORG_ID,
      orgName: 'Acme Ltd',
      scopes: new Set(['onboarding:write', 'reports:read']),
      subject: 'client-7',
    });
  });

  it("keys a live token's caller by the organization's own id", async () => {
    const principal = await verify(await signToken(validClaims({ scope: 'reports:read' }), { key: es256 }));

    expect(principal.tenant).toEqual({ orgId: TEST_ORG_ID, mode: 'live' });
    expect(principal.tenantKey).toBe(TEST_ORG_ID);
  });

  it("keys a token holding the sandbox scope by the organization's sandbox key", async () => {
    const principal = await verify(await signToken(validClaims({ scope: 'reports:read sandbox' }), { key: es256 }));

    expect(principal.tenant).toEqual({ orgId: TEST_ORG_ID, mode: 'sandbox' });
    expect(principal.tenantKey).toBe(`${TEST_ORG_ID}~sandbox`);
  });

  it('accepts a valid ES256 token and reads scopes from an scp array', async () => {
    const token = await signToken(validClaims({ scope: undefined, scp: ['users:read', 'reports:write'] }), {
      key: es256,
    });

    const principal = await verify(token);

    expect(principal.tenantKey).toBe(TEST_ORG_ID);
    expect([...principal.scopes].sort()).toEqual(['reports:write', 'users:read']);
  });

  it('merges scope and scp, ignoring repeated spaces and non-string entries', async () => {
    const token = await signToken(validClaims({ scope: '  onboarding:read   users:read ', scp: ['reports:read', 7] }), {
      key: es256,
    });

    const principal = await verify(token);

    expect([...principal.scopes].sort()).toEqual(['onboarding:read', 'reports:read', 'users:read']);
  });

  it('leaves orgName undefined when the token has no organization name', async () => {
    const token = await signToken(validClaims(), { key: es256 });

    const principal = await verify(token);

    expect(principal.orgName).toBeUndefined();
  });

  it('rejects a token signed by a key outside the key set', async () => {
    await expectUnauthorized(await signToken(validClaims(), { key: foreignKey }));
  });

  it('rejects a token signed by a foreign key that claims a trusted kid', async () => {
    await expectUnauthorized(await signToken(validClaims(), { key: foreignKey, kid: es256.kid }));
  });

  it('rejects an unsecured token (alg: none)', async () => {
    await expectUnauthorized(unsecuredToken(validClaims()));
  });

  it('rejects an HS256 token, even one keyed with a trusted key id', async () => {
    const secret = new TextEncoder().encode(JSON.stringify(rs256.publicJwk));

    await expectUnauthorized(await hmacToken(validClaims(), { secret, kid: rs256.kid }));
    await expectUnauthorized(await hmacToken(validClaims(), { secret }));
  });

  it('rejects an algorithm outside the allow-list even when its key is in the trusted key set', async () => {
    const es384 = await generateSigningKey('ES384');
    const verifier = verifierWith({ keySet: { keys: [...jwks.keys, es384.publicJwk] } });

    await expectUnauthorized(await signToken(validClaims(), { key: es384 }), verifier);
  });

  it('rejects an expired token', async () => {
    await expectUnauthorized(
      await signToken(validClaims({ iat: nowInSeconds() - 3600, exp: nowInSeconds() - 600 }), { key: es256 }),
    );
  });

  it('tolerates 30 s of clock skew on exp: expired 20 s ago is accepted, 40 s ago is rejected', async () => {
    const expiredBy = (seconds: number) =>
      signToken(validClaims({ iat: nowInSeconds() - 300, exp: nowInSeconds() - seconds }), { key: es256 });

    await expect(verify(await expiredBy(20))).resolves.toMatchObject({ tenantKey: TEST_ORG_ID });
    await expectUnauthorized(await expiredBy(40));
  });

  it('rejects a token whose nbf is 60 s in the future and accepts one 20 s ahead', async () => {
    await expectUnauthorized(await signToken(validClaims({ nbf: nowInSeconds() + 60 }), { key: es256 }));
    await expect(
      verify(await signToken(validClaims({ nbf: nowInSeconds() + 20 }), { key: es256 })),
    ).resolves.toBeDefined();
  });

  it('rejects a token from another issuer', async () => {
    await expectUnauthorized(await signToken(validClaims({ iss: 'https://evil.example/' }), { key: es256 }));
  });

  it('rejects a token for another audience', async () => {
    await expectUnauthorized(await signToken(validClaims({ aud: 'another-api' }), { key: es256 }));
  });

  it('accepts an audience array that contains the configured audience', async () => {
    const token = await signToken(validClaims({ aud: ['another-api', TEST_AUDIENCE] }), { key: rs256 });

    await expect(verify(token)).resolves.toMatchObject({ tenantKey: TEST_ORG_ID });
  });

  it('rejects a token without exp', async () => {
    await expectUnauthorized(await signToken(validClaims({ exp: undefined }), { key: es256 }));
  });

  it('rejects a token without the organization claim', async () => {
    await expectUnauthorized(await signToken(validClaims({ org_id: undefined }), { key: es256 }));
  });

  it.each([
    ['characters outside [A-Za-z0-9_.-]', 'org/../other'],
    ['a space', 'acme ltd'],
    ['65 characters', 'o'.repeat(65)],
    ['an empty string', ''],
    ['a number', 12345],
  ])('rejects an organization claim with %s', async (_, orgId) => {
    await expectUnauthorized(await signToken(validClaims({ org_id: orgId }), { key: es256 }));
  });

  it('accepts an organization id of exactly 64 allowed characters', async () => {
    const orgId = `Ab0_.-${'x'.repeat(58)}`;

    const principal = await verify(await signToken(validClaims({ org_id: orgId }), { key: es256 }));

    expect(principal.tenantKey).toBe(orgId);
  });

  it('reads the organization from a custom claim name and ignores org_id then', async () => {
    const verifier = verifierWith({ orgClaim: 'https://claims.example/org' });
    const withCustom = await signToken(validClaims({ org_id: undefined, 'https://claims.example/org': 'tenant-42' }), {
      key: rs256,
    });
    const withDefaultOnly = await signToken(validClaims({ org_id: 'tenant-42' }), { key: rs256 });

    await expect(verifier(withCustom)).resolves.toMatchObject({ tenantKey: 'tenant-42' });
    await expectUnauthorized(withDefaultOnly, verifier);
  });

  it('rejects a string that is not a JWT at all', async () => {
    await expectUnauthorized('not.a.jwt');
  });
});

describe('bearerTokenFrom', () => {
  it('throws UnauthorizedError when there is no Authorization header', () => {
    expect(() => bearerTokenFrom({})).toThrow(UnauthorizedError);
    expect(() => bearerTokenFrom(undefined)).toThrow(UnauthorizedError);
  });

  it.each(['Basic dXNlcjpwYXNz', 'Token abc.def.ghi', 'Bearer', 'Bearer ', 'abc.def.ghi', 'Bearer abc def'])(
    'throws UnauthorizedError for the non-bearer header %j',
    (authorization) => {
      expect(() => bearerTokenFrom({ authorization })).toThrow(UnauthorizedError);
    },
  );

  it.each(['Bearer abc.def.ghi', 'bearer abc.def.ghi', 'BEARER abc.def.ghi', 'bEaReR   abc.def.ghi  '])(
    'returns the token from %j (scheme word case-insensitive)',
    (authorization) => {
      expect(bearerTokenFrom({ authorization })).toBe('abc.def.ghi');
    },
  );
});

describe('createTokenVerifier with a staff role claim', () => {
  const everyScope = SCOPES.join(' ');

  it.each(ROLES)('keeps only the %s role’s scopes of a token asking for every scope', async (role) => {
    const token = await signToken(validClaims({ scope: everyScope, role }), { key: es256 });

    const principal = await verify(token);

    expect([...principal.scopes].sort()).toEqual([...ROLE_SCOPES[role]].sort());
  });

  it('grants no more than the token carries: a viewer token asking for reports:read alone holds reports:read alone', async () => {
    const token = await signToken(validClaims({ scope: 'reports:read', role: 'viewer' }), { key: es256 });

    expect([...(await verify(token)).scopes]).toEqual(['reports:read']);
  });

  it.each([
    { label: 'an unknown name', role: 'superuser' },
    { label: 'a name in another case', role: 'Admin' },
    { label: 'an empty string', role: '' },
    { label: 'null', role: null },
    { label: 'a number', role: 1 },
    { label: 'an object', role: { name: 'admin' } },
    { label: 'an empty list', role: [] },
    { label: 'a list naming no role', role: ['Everyone', 'admins'] },
  ])('leaves no scope when the claim is $label', async ({ role }) => {
    const token = await signToken(validClaims({ scope: everyScope, role }), { key: es256 });

    const principal = await verify(token);

    expect(principal.tenantKey).toBe(TEST_ORG_ID);
    expect(principal.scopes.size).toBe(0);
  });

  it('adds up the scopes of every role a list names and ignores the other entries (Entra ID roles, Okta groups)', async () => {
    const token = await signToken(validClaims({ scope: everyScope, role: ['Everyone', 'viewer', 'auditor'] }), {
      key: es256,
    });

    expect([...(await verify(token)).scopes].sort()).toEqual([
      'audit:read',
      'onboarding:read',
      'reports:read',
      'users:read',
    ]);
  });

  it('leaves no scope to a token without the claim whose client is not named as a machine client', async () => {
    const token = await signToken(validClaims({ scope: everyScope, role: undefined, azp: 'onboarding-dashboard' }), {
      key: es256,
    });

    expect((await verify(token)).scopes.size).toBe(0);
  });

  it('reads the role from the configured claim', async () => {
    const verifier = testTokenVerifier(jwks, { roleClaim: 'cognito:groups' });
    const token = await signToken(validClaims({ scope: everyScope, role: 'admin', 'cognito:groups': ['operator'] }), {
      key: es256,
    });

    expect([...(await verifier(token)).scopes].sort()).toEqual([...ROLE_SCOPES.operator].sort());
  });
});

describe('createTokenVerifier when the key server fails', () => {
  const verifierWithKeys = (keySet: JWTVerifyGetKey): TokenVerifier => testTokenVerifier(keySet);

  it('answers "unavailable" (503), not "invalid token" (401), when the key set cannot be fetched', async () => {
    const unreachable = verifierWithKeys(
      createRemoteJWKSet(new URL('http://127.0.0.1:9/.well-known/jwks.json'), { timeoutDuration: 500 }),
    );
    const token = await signToken(validClaims(), { key: rs256 });

    await expect(unreachable(token)).rejects.toBeInstanceOf(DependencyUnavailableError);
  });

  it('answers "unavailable" when fetching the key set times out', async () => {
    const timingOut = verifierWithKeys(async () => {
      throw new errors.JWKSTimeout();
    });
    const token = await signToken(validClaims(), { key: rs256 });

    await expect(timingOut(token)).rejects.toBeInstanceOf(DependencyUnavailableError);
  });

  it('still answers 401 for a token whose key is not in a key set that was fetched fine', async () => {
    const token = await signToken(validClaims(), { key: foreignKey });

    await expectUnauthorized(token);
  });
});
