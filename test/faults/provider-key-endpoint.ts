import { randomUUID } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { DEV_KEY_ALGORITHM, KEYS_FILE, type PrivateJwks } from '#local/dev-keys.ts';

/**
 * The identity provider's key endpoint as the fault tier's functions reach it (behind the `jwks`
 * fault proxy): the public half of the provider's key set file (`idp-jwks.json` in the stack's keys
 * directory, local/dev-keys.ts), read on every request. The provider itself reads that file once, at
 * start; a test rotates the provider's keys by writing a new key into the file
 * (`addProviderKey`), and this endpoint publishes it as the provider's own `/jwks` would after a
 * restart, while the functions keep running.
 */
export async function startProviderKeyEndpoint(keysDir: string): Promise<{ port: number; stop(): Promise<void> }> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/jwks') {
      response.writeHead(404).end();
      return;
    }
    readProviderKeys(keysDir)
      .then((jwks) => {
        const keys = jwks.keys.map(({ d: _d, ...publicKey }) => publicKey);
        response.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys }));
      })
      .catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function readProviderKeys(keysDir: string): Promise<PrivateJwks> {
  return JSON.parse(await readFile(join(keysDir, KEYS_FILE), 'utf8')) as PrivateJwks;
}

/** Replaces the provider's key set file in one step (written aside, then renamed), so no reader sees half of it. */
export async function writeProviderKeys(keysDir: string, jwks: PrivateJwks): Promise<void> {
  const temporary = join(keysDir, `.${KEYS_FILE}.${process.pid}.${randomUUID()}`);
  await writeFile(temporary, `${JSON.stringify(jwks, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, join(keysDir, KEYS_FILE));
}

/** A new signing key of the provider's kind, with a kid no key set has seen. */
export async function newProviderKey(): Promise<PrivateJwks['keys'][number]> {
  const { privateKey } = await generateKeyPair(DEV_KEY_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, d: jwk.d!, kid: `rotated-${randomUUID()}`, alg: DEV_KEY_ALGORITHM, use: 'sig' };
}

/**
 * Rotation at the provider: the new key goes after the current ones (tools that sign with the
 * first key, and the machine clients' secrets derived from it, are unaffected). Returns the file's
 * previous contents, to put back afterwards.
 */
export async function addProviderKey(keysDir: string, key: PrivateJwks['keys'][number]): Promise<PrivateJwks> {
  const previous = await readProviderKeys(keysDir);
  await writeProviderKeys(keysDir, { keys: [...previous.keys, key] });
  return previous;
}
