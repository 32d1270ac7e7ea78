import { SCOPES } from '#shared/http/api-types.ts';
import { memoizeByKey } from './memoize-by-key.ts';
import { randomUUID } from 'node:crypto';
import { chmod, link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JSONWebKeySet, type JWK } from 'jose';

/**
 * The local stand-in for an identity provider: one ES256 key pair, created on first use and kept
 * in `.local/dev-keys.json` so that `npm start`, `npm run token` and the tests all sign and verify
 * with the same key. Tests point `LOCAL_KEYS_DIR` (or `keysDir`) at a temporary directory so
 * they never depend on a developer's keys.
 */
export const LOCAL_ISSUER = 'https://auth.local.dev/';
export const LOCAL_AUDIENCE = 'onboarding-api';
export const DEV_KEY_ALGORITHM = 'ES256';
/** Every scope the API knows (a dev token gets all of them by default). */
export const ALL_SCOPES = SCOPES;

const KEYS_FILE = 'dev-keys.json';
const DEFAULT_EXPIRY_SECONDS = 3600;
const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface DevKeys {
  kid: string;
  alg: typeof DEV_KEY_ALGORITHM;
  privateJwk: JWK;
  publicJwk: JWK;
}

export interface KeysLocation {
  /** Directory holding `dev-keys.json`; default `LOCAL_KEYS_DIR`, else `<repo>/.local`. */
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
  /** For negative tests: a wrong issuer or audience. */
  issuer?: string;
  audience?: string | string[];
  /** Extra claims, applied last; a claim set to `undefined` is left out (e.g. `{ org_id: undefined }`). */
  claims?: Record<string, unknown>;
}

export function keysDirectory(location: KeysLocation = {}): string {
  return resolve(location.keysDir ?? (process.env.LOCAL_KEYS_DIR || join(repositoryRoot, '.local')));
}

const keysIn = memoizeByKey((dir) => readOrCreate(dir));

/** Reads the key pair from the keys directory, creating it (dir 0700, file 0600) if absent. */
export function loadOrCreateDevKeys(location: KeysLocation = {}): Promise<DevKeys> {
  return keysIn(keysDirectory(location));
}

/** The public half as a JSON Web Key Set, the shape a JWKS endpoint serves and `JWKS_JSON` holds. */
export async function publicJwks(location: KeysLocation = {}): Promise<JSONWebKeySet> {
  const { publicJwk } = await loadOrCreateDevKeys(location);
  return { keys: [publicJwk] };
}

/** Signs a development access token shaped like the identity provider's. */
export async function issueDevToken(options: DevTokenOptions): Promise<string> {
  const keys = await loadOrCreateDevKeys(options);
  const expiresIn = options.expiresInSeconds ?? DEFAULT_EXPIRY_SECONDS;
  if (!Number.isInteger(expiresIn)) throw new TypeError('expiresInSeconds must be an integer');
  const now = Math.floor(Date.now() / 1000);
  const expiresAt = now + expiresIn;
  // An expired token still looks like one that was issued and lived its normal lifetime.
  const issuedAt = expiresIn > 0 ? now : expiresAt - DEFAULT_EXPIRY_SECONDS;

  const scopes = typeof options.scopes === 'string' ? options.scopes.split(/\s+/) : (options.scopes ?? ALL_SCOPES);
  const scope = scopes.filter((s) => s.length > 0).join(' ');
  const payload: Record<string, unknown> = { org_id: options.orgId };
  if (options.orgName !== undefined) payload.org_name = options.orgName;
  if (scope) payload.scope = scope;
  Object.assign(payload, options.claims);

  const privateKey = await importJWK(keys.privateJwk, keys.alg);
  return new SignJWT(payload)
    .setProtectedHeader({ alg: keys.alg, kid: keys.kid, typ: 'JWT' })
    .setIssuer(options.issuer ?? LOCAL_ISSUER)
    .setAudience(options.audience ?? LOCAL_AUDIENCE)
    .setSubject(options.subject ?? 'local-developer')
    .setJti(randomUUID())
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(privateKey);
}

async function readOrCreate(dir: string): Promise<DevKeys> {
  const file = join(dir, KEYS_FILE);
  const existing = await readKeys(file);
  if (existing) return existing;

  await mkdir(dir, { recursive: true, mode: 0o700 });
  const created = await generateDevKeys();
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
      throw new Error(`${file} exists but holds no valid key pair; delete it to create a new one`, { cause: error });
    return winner;
  } finally {
    await rm(temporary, { force: true });
  }
}

async function readKeys(file: string): Promise<DevKeys | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const keys = JSON.parse(text) as Partial<DevKeys>;
  if (keys.alg !== DEV_KEY_ALGORITHM || !keys.kid || !keys.privateJwk?.d || !keys.publicJwk || 'd' in keys.publicJwk) {
    throw new Error(`${file} is not a valid development key pair; delete it to create a new one`);
  }
  return keys as DevKeys;
}

async function generateDevKeys(): Promise<DevKeys> {
  const { privateKey, publicKey } = await generateKeyPair(DEV_KEY_ALGORITHM, { extractable: true });
  const kid = `local-${randomUUID()}`;
  const base = { kid, alg: DEV_KEY_ALGORITHM, use: 'sig' };
  return {
    kid,
    alg: DEV_KEY_ALGORITHM,
    privateJwk: { ...(await exportJWK(privateKey)), ...base },
    publicJwk: { ...(await exportJWK(publicKey)), ...base },
  };
}
