import { describe, expect, it } from 'vitest';
import { CachedSecretSealer, OPENED_SECRET_TTL_MS } from '#shared/adapters/crypto/cached-secret-sealer.ts';
import { LocalSecretSealer } from '#shared/adapters/crypto/local-secret-sealer.ts';
import type { SecretSealer } from '#shared/domain/webhooks/ports.ts';

const endpointA = { orgId: 'org-a', endpointId: 'endpoint-1' };
const endpointB = { orgId: 'org-a', endpointId: 'endpoint-2' };

/** A real sealer (the local AES-GCM one) whose opens are counted, and a clock the test moves. */
function setUp(options: { ttlMs?: number; maxEntries?: number } = {}) {
  const inner = new LocalSecretSealer(Buffer.alloc(32, 7).toString('base64'));
  const opens: string[] = [];
  const counted: SecretSealer = {
    seal: (secret, context) => inner.seal(secret, context),
    open: (sealed, context) => {
      opens.push(context.endpointId);
      return inner.open(sealed, context);
    },
  };
  let now = Date.parse('2026-11-28T09:00:00.000Z');
  const clock = { now: () => new Date(now) };
  const sealer = new CachedSecretSealer(counted, clock, options.ttlMs, options.maxEntries);
  return { sealer, inner, opens, advance: (ms: number) => (now += ms) };
}

describe('CachedSecretSealer', () => {
  it('opens a secret once and answers from memory until the TTL has passed, then opens it again', async () => {
    const { sealer, inner, opens, advance } = setUp();
    const sealed = await inner.seal('whsec_one', endpointA);
    expect(await sealer.open(sealed, endpointA)).toBe('whsec_one');
    advance(OPENED_SECRET_TTL_MS - 1);
    expect(await sealer.open(sealed, endpointA)).toBe('whsec_one');
    expect(opens).toEqual(['endpoint-1']);
    advance(1);
    expect(await sealer.open(sealed, endpointA)).toBe('whsec_one');
    expect(opens).toEqual(['endpoint-1', 'endpoint-1']);
  });

  it('shares one open between records of a batch that need the same secret at once', async () => {
    const { sealer, inner, opens } = setUp();
    const sealed = await inner.seal('whsec_one', endpointA);
    const secrets = await Promise.all([1, 2, 3].map(() => sealer.open(sealed, endpointA)));
    expect(secrets).toEqual(['whsec_one', 'whsec_one', 'whsec_one']);
    expect(opens).toHaveLength(1);
  });

  it('opens a newly sealed secret of the same endpoint, never answering it with the older one', async () => {
    const { sealer, inner, opens } = setUp();
    expect(await sealer.open(await inner.seal('whsec_old', endpointA), endpointA)).toBe('whsec_old');
    expect(await sealer.open(await inner.seal('whsec_new', endpointA), endpointA)).toBe('whsec_new');
    expect(opens).toHaveLength(2);
  });

  it('answers a sealed secret only for the endpoint it was opened for', async () => {
    const { sealer, inner } = setUp();
    const sealed = await inner.seal('whsec_one', endpointA);
    await sealer.open(sealed, endpointA);
    // Copied onto another endpoint, it is opened with that endpoint's context, which does not authenticate.
    await expect(sealer.open(sealed, endpointB)).rejects.toThrow();
  });

  it('keeps no failed open: the next delivery tries again', async () => {
    let fail = true;
    const flaky: SecretSealer = {
      seal: () => Promise.reject(new Error('unused')),
      open: () => (fail ? Promise.reject(new Error('KMS unavailable')) : Promise.resolve('whsec_one')),
    };
    const sealer = new CachedSecretSealer(flaky, { now: () => new Date() });
    await expect(sealer.open('kms:AAAA', endpointA)).rejects.toThrow('KMS unavailable');
    fail = false;
    expect(await sealer.open('kms:AAAA', endpointA)).toBe('whsec_one');
  });

  it('keeps at most its maximum of secrets, dropping the oldest first', async () => {
    const { sealer, inner, opens } = setUp({ maxEntries: 2 });
    const endpoints = ['e1', 'e2', 'e3'].map((endpointId) => ({ orgId: 'org-a', endpointId }));
    const sealed = await Promise.all(endpoints.map((endpoint) => inner.seal(`whsec_${endpoint.endpointId}`, endpoint)));
    for (const [i, endpoint] of endpoints.entries()) await sealer.open(sealed[i]!, endpoint);
    await sealer.open(sealed[2]!, endpoints[2]!); // kept
    await sealer.open(sealed[1]!, endpoints[1]!); // kept
    expect(opens).toEqual(['e1', 'e2', 'e3']);
    await sealer.open(sealed[0]!, endpoints[0]!); // dropped first, so opened again
    expect(opens).toEqual(['e1', 'e2', 'e3', 'e1']);
  });

  it('passes sealing through', async () => {
    const { sealer, inner } = setUp();
    const sealed = await sealer.seal('whsec_one', endpointA);
    expect(await inner.open(sealed, endpointA)).toBe('whsec_one');
  });
});
