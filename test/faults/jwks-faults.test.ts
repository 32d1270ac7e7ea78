import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { issueDevToken, type PrivateJwks } from '#local/dev-keys.ts';
import { DEFAULT_REMOTE_KEY_SET_OPTIONS } from '#shared/http/remote-key-set.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import {
  expectServiceUnavailable,
  fault,
  FUNCTION_TIMEOUT_MS,
  sleep,
  timed,
  type TimedResponse,
} from './fault-support.ts';
import { addProviderKey, newProviderKey, writeProviderKeys } from './provider-key-endpoint.ts';

/**
 * The identity provider's key endpoint (the functions' `JWKS_URL`) black-holed, then refusing,
 * while tokens are checked (GET /v1/onboarding-tokens); then the provider rotates its keys and the
 * endpoint comes back. A token whose key the function fetched before keeps being accepted from its
 * cache, without waiting for the endpoint; a token signed with a key it has never seen gets the
 * contract's 503 (nobody can tell a new key from a forged one while the keys cannot be read), never
 * 401 or 500; once the endpoint publishes the new key, that token is accepted without restarting
 * the function.
 *
 * An unknown key is looked up only when the last successful fetch is a cooldown (30 s) old; within
 * it, jose answers "no such key" (401) without asking, so a flood of forged kids fetches nothing.
 * The test therefore sends tokens with the new key only once a cooldown has passed since its
 * warm-up request (the function's last possible fetch); until then, tokens with the cached key flow.
 */

const { cooldownMs: KEY_COOLDOWN_MS, timeoutMs: KEY_FETCH_TIMEOUT_MS } = DEFAULT_REMOTE_KEY_SET_OPTIONS;
/** A request that waited for a key fetch took at least its timeout; any other is far quicker. */
const WAITED_FOR_A_FETCH_MS = KEY_FETCH_TIMEOUT_MS - 100;

describe('identity provider keys stalled, then refused, then rotated', () => {
  const orgId = uniqueOrg('jwksfault');
  const keysDir = inject('localEnv').LOCAL_KEYS_DIR!;
  let newKeyDir: string;
  let cachedKeyToken: string;
  let newKeyToken: string;
  let providerKeysBefore: PrivateJwks | undefined;
  const answers: TimedResponse[] = [];
  let outageMs = 0;

  const listTokens = async (token: string, label: string) => {
    const answer = await timed(label, callApi('GET', '/v1/onboarding-tokens', { token }));
    answers.push(answer);
    return answer;
  };
  const withCachedKey = (phase: string) => listTokens(cachedKeyToken, `cached key, ${phase}`);
  const withNewKey = (phase: string) => listTokens(newKeyToken, `new key, ${phase}`);
  const labelled = (prefix: string) => answers.filter((answer) => answer.label.startsWith(prefix));

  beforeAll(async () => {
    cachedKeyToken = await tokenFor(orgId);
    // Signed with a key the provider has not published yet: the one it rotates to below.
    const newKey = await newProviderKey();
    newKeyDir = await mkdtemp(join(tmpdir(), 'onboarding-rotated-key-'));
    await writeProviderKeys(newKeyDir, { keys: [newKey] });
    newKeyToken = await issueDevToken({ orgId, issuer: inject('localEnv').JWT_ISSUER, keysDir: newKeyDir });

    const warmUp = await withCachedKey('before the outage');
    expect(warmUp.status, JSON.stringify(warmUp.body)).toBe(200);
    const cooldownOverAt = Date.now() + KEY_COOLDOWN_MS + 1_000;

    const outageStartedAt = Date.now();
    await fault('jwks', 'stall');
    try {
      while (Date.now() < cooldownOverAt) {
        await withCachedKey('endpoint stalled');
        await sleep(1_500);
      }
      await Promise.all([
        withNewKey('endpoint stalled'),
        withNewKey('endpoint stalled'),
        withCachedKey('endpoint stalled'),
      ]);
      await Promise.all([withNewKey('endpoint stalled'), withCachedKey('endpoint stalled')]);
      const stalled = await fault('jwks', 'refuse');
      expect(stalled.stalledConnections, 'the function reached the stalled endpoint').toBeGreaterThan(0);
      await Promise.all([withNewKey('endpoint refused'), withCachedKey('endpoint refused')]);
      // The provider rotates while its endpoint is unreachable: the new key cannot be seen yet.
      providerKeysBefore = await addProviderKey(keysDir, newKey);
      await Promise.all([withNewKey('endpoint refused, rotated'), withCachedKey('endpoint refused, rotated')]);
    } finally {
      await fault('jwks', 'pass');
      outageMs = Date.now() - outageStartedAt;
    }
    for (let round = 0; round < 3; round++) {
      await Promise.all([withNewKey('after recovery'), withCachedKey('after recovery')]);
    }
  }, 75_000);

  afterAll(async () => {
    await fault('jwks', 'pass');
    if (providerKeysBefore) await writeProviderKeys(keysDir, providerKeysBefore);
    if (newKeyDir) await rm(newKeyDir, { recursive: true, force: true });
  });

  it('answers every request within the function’s budget', () => {
    for (const answer of answers) expect.soft(answer.elapsedMs, answer.label).toBeLessThan(FUNCTION_TIMEOUT_MS);
  });

  it('keeps accepting a token whose key is cached, waiting for the endpoint at most once per cooldown', () => {
    const duringOutage = labelled('cached key, endpoint');
    expect(duringOutage.length).toBeGreaterThan(5);
    for (const answer of duringOutage) expect.soft(answer.status, answer.label).toBe(200);
    // Only a key set past its maximum age is refetched for a known key; a failed refetch is then not retried for a cooldown.
    const waited = duringOutage.filter((answer) => answer.elapsedMs >= WAITED_FOR_A_FETCH_MS);
    expect(waited.length, JSON.stringify(waited)).toBeLessThanOrEqual(Math.ceil(outageMs / KEY_COOLDOWN_MS));
  });

  it('answers a token signed with a key it has not seen with the contract’s 503, never 401 or 500', () => {
    const duringOutage = labelled('new key, endpoint');
    expect(duringOutage.length).toBe(5);
    for (const answer of duringOutage) expectServiceUnavailable(answer);
  });

  it('accepts the rotated key once the endpoint publishes it, without a restart, and everything answers 200', () => {
    const recovered = labelled('new key, after recovery').concat(labelled('cached key, after recovery'));
    expect(recovered.length).toBe(6);
    for (const answer of recovered)
      expect.soft(answer.status, `${answer.label}: ${JSON.stringify(answer.body)}`).toBe(200);
  });
});
