import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JSONWebKeySet, type JWK } from 'jose';
import { SCOPES } from '#shared/domain/identity/staff-roles.ts';

/** Issuer and audience the test verifiers are configured with. */
export const TEST_ISSUER = 'https://issuer.test.example/';
export const TEST_AUDIENCE = 'onboarding-api-test';
export const TEST_ORG_ID = 'org-test_1.a';

/** The service accepts RS256 and ES256; the others exist to prove the allow-list. */
export type TestAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'PS256' | 'RS512';

export interface TestSigningKey {
  alg: TestAlgorithm;
  kid: string;
  privateKey: CryptoKey;
  /** Public JWK with `kid`, `alg` and `use`, as an identity provider publishes it. */
  publicJwk: JWK;
}

/** A fresh key pair; generating RSA keys takes a moment, so do it once per file (beforeAll). */
export async function generateSigningKey(
  alg: TestAlgorithm,
  kid = `${alg.toLowerCase()}-${randomUUID()}`,
): Promise<TestSigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { alg, kid, privateKey, publicJwk };
}

export function jwksOf(...keys: readonly TestSigningKey[]): JSONWebKeySet {
  return { keys: keys.map((key) => key.publicJwk) };
}

/** An RS256 and an ES256 key and the JWKS that publishes both. */
export async function createTestKeySet(): Promise<{
  rs256: TestSigningKey;
  es256: TestSigningKey;
  jwks: JSONWebKeySet;
}> {
  const [rs256, es256] = await Promise.all([generateSigningKey('RS256'), generateSigningKey('ES256')]);
  return { rs256, es256, jwks: jwksOf(rs256, es256) };
}

export const nowInSeconds = (): number => Math.floor(Date.now() / 1000);

/**
 * Claims of a token the test verifiers accept: issuer, audience, a 5-minute lifetime, the
 * organization and all scopes, held by a staff member in the `admin` role (a staff token without a
 * role holds none). Overrides win; an override set to `undefined` removes the claim.
 */
export function validClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = nowInSeconds();
  const claims: Record<string, unknown> = {
    iss: TEST_ISSUER,
    aud: TEST_AUDIENCE,
    sub: 'user-123',
    iat: now,
    exp: now + 300,
    org_id: TEST_ORG_ID,
    scope: SCOPES.join(' '),
    role: 'admin',
    ...overrides,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return claims;
}

export interface SignTokenOptions {
  key: TestSigningKey;
  /** Defaults to the key's algorithm. */
  alg?: string;
  /** Defaults to the key's id; `null` leaves `kid` out of the header. */
  kid?: string | null;
  /** Extra or replacing protected-header members. */
  header?: Record<string, unknown>;
}

/** Signs exactly the given claims (no defaults added) as a compact JWS. */
export async function signToken(claims: Record<string, unknown>, options: SignTokenOptions): Promise<string> {
  const kid = options.kid === undefined ? options.key.kid : options.kid;
  const header = {
    alg: options.alg ?? options.key.alg,
    ...(kid === null ? {} : { kid }),
    typ: 'JWT',
    ...options.header,
  };
  return new SignJWT(claims).setProtectedHeader(header).sign(options.key.privateKey);
}

/** An unsecured token (`alg: none`, empty signature). */
export function unsecuredToken(claims: Record<string, unknown>): string {
  return new UnsecuredJWT(claims).encode();
}

/** An HS256 token; with a trusted key's `kid` it is the classic algorithm-confusion attempt. */
export async function hmacToken(
  claims: Record<string, unknown>,
  options: { secret: Uint8Array; kid?: string },
): Promise<string> {
  const header = { alg: 'HS256', typ: 'JWT', ...(options.kid ? { kid: options.kid } : {}) };
  return new SignJWT(claims).setProtectedHeader(header).sign(options.secret);
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
