import { BoundedMap } from '#shared/support/bounded-map.ts';
import type { Clock } from '#shared/domain/clock.ts';
import type { SecretSealer } from '#shared/domain/webhooks/ports.ts';

/** How long an opened secret is reused: a disabled KMS key or a revoked grant takes effect within it. */
export const OPENED_SECRET_TTL_MS = 5 * 60 * 1000;
/** Opened secrets kept at once; the oldest is dropped first. Ten endpoints an organization at most. */
export const OPENED_SECRETS_MAX = 500;

interface Opened {
  readonly secret: Promise<string>;
  readonly expiresAt: number;
}

/**
 * Keeps the secrets a container opened for OPENED_SECRET_TTL_MS, so a delivery function opens
 * (KMS Decrypt, $0.03 per 10,000) each endpoint's secret once per container and TTL instead of
 * once per delivery. The key is the sealed secret with its organization and endpoint: a secret
 * registered anew is sealed anew, so it is never answered from an older entry, and a sealed secret
 * is only ever answered for the endpoint it was opened for. Records of one batch that open the same
 * secret at once share one Decrypt; a failed open is not kept. Sealing passes through.
 */
export class CachedSecretSealer implements SecretSealer {
  private readonly opened: BoundedMap<string, Opened>;

  constructor(
    private readonly sealer: SecretSealer,
    private readonly clock: Clock,
    private readonly ttlMs = OPENED_SECRET_TTL_MS,
    maxEntries = OPENED_SECRETS_MAX,
  ) {
    this.opened = new BoundedMap(maxEntries);
  }

  seal(secret: string, context: { orgId: string; endpointId: string }): Promise<string> {
    return this.sealer.seal(secret, context);
  }

  open(sealed: string, context: { orgId: string; endpointId: string }): Promise<string> {
    const key = `${context.orgId}\n${context.endpointId}\n${sealed}`;
    const now = this.clock.now().getTime();
    const cached = this.opened.get(key);
    if (cached && cached.expiresAt > now) return cached.secret;
    const secret = this.sealer.open(sealed, context);
    const entry = { secret, expiresAt: now + this.ttlMs };
    this.opened.set(key, entry);
    secret.catch(() => {
      if (this.opened.get(key) === entry) this.opened.delete(key);
    });
    return secret;
  }
}
