import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONWebKeySet } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import type { TokenVerifier } from '#shared/http/auth.ts';
import { UnauthorizedError } from '#shared/http/http-errors.ts';
import { createCachedRemoteKeySet, type RemoteKeySetOptions } from '#shared/http/remote-key-set.ts';
import { generateSigningKey, jwksOf, signToken, validClaims, type TestSigningKey } from '#test/support/jwt.ts';
import { testTokenVerifier } from '#test/support/fixtures/token-verifier.ts';

/**
 * The remote key set against a real HTTP server (node:http) publishing a JWKS, as an identity
 * provider does: what it fetches, when it fetches again, and what it does while the server is down.
 */
interface KeyServer {
  url: URL;
  /** What the server answers next: a key set, an HTTP status, or hanging without an answer. */
  answer: { jwks: JSONWebKeySet } | { status: number } | 'hang' | 'hang-once';
  requests: number;
  stop: () => Promise<void>;
}

const servers: Server[] = [];

async function startKeyServer(jwks: JSONWebKeySet): Promise<KeyServer> {
  const state = { answer: { jwks } as KeyServer['answer'], requests: 0 };
  const server = createServer((_request, response) => {
    state.requests += 1;
    const answer = state.answer;
    if (answer === 'hang') return;
    if (answer === 'hang-once') {
      state.answer = { jwks };
      return;
    }
    if ('status' in answer) {
      response.writeHead(answer.status, { 'content-type': 'text/plain' }).end('unavailable');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify(answer.jwks));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: new URL(`http://127.0.0.1:${port}/.well-known/jwks.json`),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  }
});

let current: TestSigningKey;
let next: TestSigningKey;

beforeAll(async () => {
  [current, next] = await Promise.all([generateSigningKey('ES256'), generateSigningKey('RS256')]);
});

const verifierOver = (server: KeyServer, options: Partial<RemoteKeySetOptions> = {}): TokenVerifier =>
  testTokenVerifier(
    createCachedRemoteKeySet(server.url, { timeoutMs: 300, cooldownMs: 30_000, maxAgeMs: 600_000, ...options }),
  );

const tokenSignedBy = (key: TestSigningKey) => signToken(validClaims(), { key });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createCachedRemoteKeySet', () => {
  it('fetches the key set once and verifies later tokens from the cache', async () => {
    const server = await startKeyServer(jwksOf(current));
    const verify = verifierOver(server);

    for (let i = 0; i < 5; i += 1) await expect(verify(await tokenSignedBy(current))).resolves.toBeDefined();

    expect(server.requests).toBe(1);
  });

  it('picks up a rotated key (new kid) without a restart, fetching once more', async () => {
    const server = await startKeyServer(jwksOf(current));
    const verify = verifierOver(server, { cooldownMs: 0 });
    await verify(await tokenSignedBy(current));

    server.answer = { jwks: jwksOf(current, next) };
    const principal = await verify(await tokenSignedBy(next));

    expect(principal.tenantKey).toBeDefined();
    expect(server.requests).toBe(2);
  });

  it('refetches a key set older than its maximum age, so a key the provider withdrew stops working', async () => {
    const server = await startKeyServer(jwksOf(current, next));
    const verify = verifierOver(server, { maxAgeMs: 50 });
    await verify(await tokenSignedBy(current));

    server.answer = { jwks: jwksOf(next) };
    await pause(80);

    await expect(verify(await tokenSignedBy(current))).rejects.toBeInstanceOf(UnauthorizedError);
    expect(server.requests).toBe(2);
  });

  it('does not refetch for an unknown kid within the cooldown (forged kids cannot flood the provider)', async () => {
    const server = await startKeyServer(jwksOf(current));
    const verify = verifierOver(server);
    await verify(await tokenSignedBy(current));

    for (let i = 0; i < 3; i += 1) {
      await expect(verify(await tokenSignedBy(next))).rejects.toBeInstanceOf(UnauthorizedError);
    }

    expect(server.requests).toBe(1);
  });

  it('keeps verifying with the cached key while the endpoint is unreachable, and tries it again only after the cooldown', async () => {
    const server = await startKeyServer(jwksOf(current));
    const verify = verifierOver(server, { maxAgeMs: 20, cooldownMs: 200 });
    await verify(await tokenSignedBy(current));
    await server.stop();
    await pause(40);

    // Stale, refetch refused (connection refused): the cached key still verifies.
    await expect(verify(await tokenSignedBy(current))).resolves.toMatchObject({ tenantKey: expect.any(String) });
    // Right after the failure no request waits for another attempt.
    const started = performance.now();
    await expect(verify(await tokenSignedBy(current))).resolves.toBeDefined();
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('keeps verifying with the cached key while the endpoint hangs or answers 503', async () => {
    const server = await startKeyServer(jwksOf(current));
    const verify = verifierOver(server, { maxAgeMs: 20, cooldownMs: 0 });
    await verify(await tokenSignedBy(current));

    server.answer = 'hang';
    await pause(40);
    await expect(verify(await tokenSignedBy(current))).resolves.toBeDefined();

    server.answer = { status: 503 };
    await expect(verify(await tokenSignedBy(current))).resolves.toBeDefined();
    expect(server.requests).toBe(3);
  });

  it('answers 503 (unavailable), not 401, for a kid it has never seen while the endpoint is down', async () => {
    const server = await startKeyServer(jwksOf(current));
    const verify = verifierOver(server, { cooldownMs: 0 });
    await verify(await tokenSignedBy(current));
    await server.stop();

    await expect(verify(await tokenSignedBy(next))).rejects.toBeInstanceOf(DependencyUnavailableError);
  });

  it('answers 503 when the first fetch fails (nothing cached): an error page, a timeout', async () => {
    const failing = await startKeyServer(jwksOf(current));
    failing.answer = { status: 500 };
    const hanging = await startKeyServer(jwksOf(current));
    hanging.answer = 'hang';

    await expect(verifierOver(failing)(await tokenSignedBy(current))).rejects.toBeInstanceOf(
      DependencyUnavailableError,
    );
    await expect(verifierOver(hanging)(await tokenSignedBy(current))).rejects.toBeInstanceOf(
      DependencyUnavailableError,
    );
  });

  it('tries a fetch that timed out once more at once, so one hung attempt costs its timeout, not the request', async () => {
    const server = await startKeyServer(jwksOf(current));
    server.answer = 'hang-once';

    const started = performance.now();
    await expect(verifierOver(server)(await tokenSignedBy(current))).resolves.toBeDefined();
    expect(server.requests).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('tries a timed-out fetch only once more: a hanging endpoint costs two attempt timeouts, then 503', async () => {
    const server = await startKeyServer(jwksOf(current));
    server.answer = 'hang';

    await expect(verifierOver(server)(await tokenSignedBy(current))).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(server.requests).toBe(2);
  });

  it('serves a rotated key once the endpoint is back after an outage', async () => {
    const server = await startKeyServer(jwksOf(current));
    const verify = verifierOver(server, { maxAgeMs: 20, cooldownMs: 50 });
    await verify(await tokenSignedBy(current));
    server.answer = { status: 502 };
    await pause(40);
    await verify(await tokenSignedBy(current));

    server.answer = { jwks: jwksOf(next) };
    await pause(60);

    await expect(verify(await tokenSignedBy(next))).resolves.toBeDefined();
  });
});
