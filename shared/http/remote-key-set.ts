import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type CompactJWSHeaderParameters,
  type JWTVerifyGetKey,
} from 'jose';

export interface RemoteKeySetOptions {
  /** How long one attempt to fetch the key set may take; an attempt that times out is tried once more. */
  timeoutMs: number;
  /** No refetch for an unknown `kid` within this long of the last successful fetch (a flood of forged kids fetches nothing). */
  cooldownMs: number;
  /** A key set older than this is refetched before use, so a provider's new keys arrive without a restart. */
  maxAgeMs: number;
}

/**
 * 2 s per attempt (two attempts fit a request's deadline with room to spare), at most one refetch
 * per 30 s for unknown kids, keys at most 10 minutes old (jose's defaults but the timeout).
 */
export const DEFAULT_REMOTE_KEY_SET_OPTIONS: RemoteKeySetOptions = {
  timeoutMs: 2_000,
  cooldownMs: 30_000,
  maxAgeMs: 600_000,
};

/**
 * jose's remote key set (one fetch per cold start, cached; an unknown `kid` refetches, at most once
 * per cooldown; a set older than the maximum age is refetched before use), made to ride out an
 * outage of the key endpoint: when a refetch fails and the token's `kid` is in the set fetched
 * before, that set still verifies the token. Keys do not become untrustworthy because their
 * publisher is unreachable, and a provider outage must not take the API down with it. After a
 * failed refetch, the next `cooldownMs` go straight to the cached set (no request waits for a
 * fetch that just failed). An unknown `kid` during an outage still fails as a fetch failure (503):
 * nobody can tell whether the key is new or forged. A fetch that timed out with nothing cached to
 * fall back on is tried once more at once: one hung connection (a gray failure) costs one attempt
 * timeout, not the request.
 */
export function createCachedRemoteKeySet(
  url: URL,
  options: RemoteKeySetOptions = DEFAULT_REMOTE_KEY_SET_OPTIONS,
): JWTVerifyGetKey {
  const remote = createRemoteJWKSet(url, {
    timeoutDuration: options.timeoutMs,
    cooldownDuration: options.cooldownMs,
    cacheMaxAge: options.maxAgeMs,
  });
  let lastFailedFetchAt = Number.NEGATIVE_INFINITY;
  let cached: { jwks: JSONWebKeySet; getKey: JWTVerifyGetKey } | undefined;

  /** The set jose fetched last, as a local key set (rebuilt only when jose fetched a new one). */
  const cachedKeySetWith = (kid: string | undefined): JWTVerifyGetKey | undefined => {
    const jwks = remote.jwks();
    if (!jwks || kid === undefined || !jwks.keys.some((key) => key.kid === kid)) return undefined;
    if (cached?.jwks !== jwks) cached = { jwks, getKey: createLocalJWKSet(jwks) };
    return cached.getKey;
  };

  return async (header: CompactJWSHeaderParameters, token: FlattenedJWSInput) => {
    if (Date.now() - lastFailedFetchAt < options.cooldownMs) {
      const fallback = cachedKeySetWith(header.kid);
      if (fallback) return fallback(header, token);
    }
    try {
      return await remote(header, token);
    } catch (error) {
      if (!isKeyFetchFailure(error)) throw error;
      const fallback = cachedKeySetWith(header.kid);
      if (fallback) {
        lastFailedFetchAt = Date.now();
        return fallback(header, token);
      }
      if (!(error instanceof errors.JWKSTimeout)) {
        lastFailedFetchAt = Date.now();
        throw error;
      }
      try {
        return await remote(header, token);
      } catch (retryError) {
        if (isKeyFetchFailure(retryError)) lastFailedFetchAt = Date.now();
        throw retryError;
      }
    }
  };
}

/**
 * A failure to obtain the key set, as opposed to a verdict on the token: the network (not a jose
 * error), a timeout, a non-200 answer or unparseable JSON (jose's generic error), or a body that is
 * no key set.
 */
export function isKeyFetchFailure(error: unknown): boolean {
  return (
    !(error instanceof errors.JOSEError) ||
    error.code === errors.JOSEError.code ||
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid
  );
}
