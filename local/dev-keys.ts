import { SCOPES } from '#shared/domain/identity/staff-roles.ts';
import { tenantKey, type Tenant } from '#shared/domain/identity/tenant.ts';
import { memoizeByKey } from './memoize-by-key.ts';
import { createHmac, randomUUID } from 'node:crypto';
import { chmod, link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JSONWebKeySet, type JWK } from 'jose';

/**
 * The local identity provider's signing keys (local/identity-provider.ts): a private JSON Web Key
 * Set kept in `.local/idp-jwks.json`, created on first use, so that the provider signs with the
 * same key after a restart and local tools (`npm run token` for an expired token, the tests, the
 * benchmarks) can craft tokens the API accepts exactly as it accepts the provider's own. Tests
 * point `LOCAL_KEYS_DIR` (or `keysDir`) at a temporary directory so they never depend on a
 * developer's keys.
 */
export const LOCAL_AUDIENCE = 'urn:onboarding-api';
export const DEV_KEY_ALGORITHM = 'ES256';
export const DEFAULT_IDP_PORT = 3001;
/** Every scope the API knows (a development token gets all of them by default). */
export const ALL_SCOPES = SCOPES;

/**
 * Every organization's machine client of the local provider: `machine.<orgId>`. The local stack
 * names them all machine clients (`MACHINE_CLIENT_IDS=machine.*`), so their tokens keep their scopes.
 */
export const MACHINE_CLIENT_PREFIX = 'machine.';
export const machineClientId = (orgId: string): string => `${MACHINE_CLIENT_PREFIX}${orgId}`;

/**
 * The machine client of an organization's sandbox (docs/sandbox.md): `machine.<orgId>~sandbox`,
 * named after the tenant's key, whose `~` no organization id holds, so it is never another
 * organization's live client. It is a machine client of the same organization (`machine.*`).
 */
export const tenantMachineClientId = (tenant: Tenant): string => machineClientId(tenantKey(tenant));

export const KEYS_FILE = 'idp-jwks.json';
const DEFAULT_EXPIRY_SECONDS = 3600;
const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The provider's issuer on a port (it listens on 127.0.0.1 alone). */
export const issuerAt = (port: number): string => `http://127.0.0.1:${port}`;

/** The issuer `npm start` runs: `LOCAL_IDP_PORT`, default 3001. */
export function localIssuer(): string {
  return issuerAt(Number(process.env.LOCAL_IDP_PORT) || DEFAULT_IDP_PORT);
}

/** A private JWK Set as the provider's `jwks` option takes it: every key with `kid`, `alg` and `use`. */
export interface PrivateJwks {
  keys: Array<JWK & { kid: string; alg: string; d: string }>;
}

export interface KeysLocation {
  /** Directory holding `idp-jwks.json`; default `LOCAL_KEYS_DIR`, else `<repo>/.local`. */
  keysDir?: string;
}

export interface DevTokenOptions extends KeysLocation {
  orgId: string;
  /** Space-separated string or list; default every scope of the API. An empty list omits the `scope` claim. */
  scopes?: string | readonly string[];
  /** Lifetime in seconds, default 3600. Zero or negative yields a token that has already expired. */
  expiresInSeconds?: number;
  orgName?: string;
  /** `sub` claim, default `local-developer`. */
  subject?: string;
  /**
   * Default: the issuer the local stack set in this process's environment (`JWT_ISSUER`, which a
   * test tier's workers inherit), else the one `npm start` runs (`localIssuer()`).
   */
  issuer?: string;
  audience?: string | string[];
  /** Extra claims, applied last; a claim set to `undefined` is left out (e.g. `{ org_id: undefined }`). */
  claims?: Record<string, unknown>;
}

export function keysDirectory(location: KeysLocation = {}): string {
  return resolve(location.keysDir ?? (process.env.LOCAL_KEYS_DIR || join(repositoryRoot, '.local')));
}

const keysIn = memoizeByKey((dir) => readOrCreate(dir));

/** Reads the provider's private key set from the keys directory, creating it (dir 0700, file 0600) if absent. */
export function loadOrCreateProviderKeys(location: KeysLocation = {}): Promise<PrivateJwks> {
  return keysIn(keysDirectory(location));
}

/** The public half as a JSON Web Key Set, what the provider's JWKS endpoint serves. */
export async function publicJwks(location: KeysLocation = {}): Promise<JSONWebKeySet> {
  const { keys } = await loadOrCreateProviderKeys(location);
  return { keys: keys.map(({ d: _d, ...publicKey }) => publicKey) };
}

/**
 * The client secret of a tenant's machine client (`keyOfTenant`: the organization id for live, its
 * sandbox key for the sandbox), derived from the signing key: whoever can read the key file can
 * sign tokens anyway, so the secret protects nothing more by being stored.
 */
export async function machineClientSecret(keyOfTenant: string, location: KeysLocation = {}): Promise<string> {
  const [key] = (await loadOrCreateProviderKeys(location)).keys;
  return createHmac('sha256', key!.d).update(`machine-client:${keyOfTenant}`).digest('base64url');
}

/**
 * Signs a token shaped like the provider's access tokens with the provider's own key: for tests
 * and tools that need a token the provider will not issue (expired, another issuer, odd claims).
 * By default the organization's machine client's (`client_id` `machine.<orgId>`); a staff member's
 * names another client and a role, e.g. `claims: { client_id: 'onboarding-dashboard', role: 'viewer' }`.
 */
export async function issueDevToken(options: DevTokenOptions): Promise<string> {
  const [key] = (await loadOrCreateProviderKeys(options)).keys;
  const expiresIn = options.expiresInSeconds ?? DEFAULT_EXPIRY_SECONDS;
  if (!Number.isInteger(expiresIn)) throw new TypeError('expiresInSeconds must be an integer');
  const now = Math.floor(Date.now() / 1000);
  const expiresAt = now + expiresIn;
  // An expired token still looks like one that was issued and lived its normal lifetime.
  const issuedAt = expiresIn > 0 ? now : expiresAt - DEFAULT_EXPIRY_SECONDS;

  const scopes = typeof options.scopes === 'string' ? options.scopes.split(/\s+/) : (options.scopes ?? ALL_SCOPES);
  const scope = scopes.filter((s) => s.length > 0).join(' ');
  const payload: Record<string, unknown> = { org_id: options.orgId, client_id: machineClientId(options.orgId) };
  if (options.orgName !== undefined) payload.org_name = options.orgName;
  if (scope) payload.scope = scope;
  Object.assign(payload, options.claims);

  const privateKey = await importJWK(key!, key!.alg);
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key!.alg, kid: key!.kid, typ: 'at+jwt' })
    .setIssuer(options.issuer ?? (process.env.JWT_ISSUER || localIssuer()))
    .setAudience(options.audience ?? LOCAL_AUDIENCE)
    .setSubject(options.subject ?? 'local-developer')
    .setJti(randomUUID())
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(privateKey);
}

async function readOrCreate(dir: string): Promise<PrivateJwks> {
  const file = join(dir, KEYS_FILE);
  const existing = await readKeys(file);
  if (existing) return existing;

  await mkdir(dir, { recursive: true, mode: 0o700 });
  const created = await generateKeys();
  // Write aside, then hard-link into place: link fails if another process won the race, and
  // nobody ever reads a half-written file.
  const temporary = join(dir, `.${KEYS_FILE}.${process.pid}.${randomUUID()}`);
  await writeFile(temporary, `${JSON.stringify(created, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(temporary, 0o600);
  try {
    await link(temporary, file);
    return created;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const winner = await readKeys(file);
    if (!winner)
      throw new Error(`${file} exists but holds no valid key set; delete it to create a new one`, { cause: error });
    return winner;
  } finally {
    await rm(temporary, { force: true });
  }
}

async function readKeys(file: string): Promise<PrivateJwks | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const jwks = JSON.parse(text) as Partial<PrivateJwks>;
  const valid =
    Array.isArray(jwks.keys) &&
    jwks.keys.length > 0 &&
    jwks.keys.every((key) => typeof key.kid === 'string' && typeof key.alg === 'string' && typeof key.d === 'string');
  if (!valid) throw new Error(`${file} is not a private JWK Set ({"keys": [...]}); delete it to create a new one`);
  return jwks as PrivateJwks;
}

async function generateKeys(): Promise<PrivateJwks> {
  const { privateKey } = await generateKeyPair(DEV_KEY_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { keys: [{ ...jwk, d: jwk.d!, kid: `local-${randomUUID()}`, alg: DEV_KEY_ALGORITHM, use: 'sig' }] };
}
