/**
 * The report rate limit, strictly as the seed states it: at most `capacity` accepted requests in
 * any `windowMs` window per organization. A bucket of `capacity` tokens in which each spent token
 * comes back exactly `windowMs` after it was spent; the state is the list of spend times.
 */
export interface RateLimitPolicy {
  capacity: number;
  windowMs: number;
}

export const REPORT_REQUEST_RATE_LIMIT: RateLimitPolicy = { capacity: 10, windowMs: 10 * 60 * 1000 };

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Tokens left after this decision. */
  remaining: number;
  /** Seconds until the next spent token returns (0 when the bucket is full). */
  resetSeconds: number;
  /** When refused: seconds until a request can succeed. */
  retryAfterSeconds: number;
  /** Spend times (epoch ms) to store: unexpired ones, plus this one when allowed. */
  spentAt: number[];
}

export function spendToken(previous: readonly number[], nowMs: number, policy: RateLimitPolicy): RateLimitDecision {
  const live = previous.filter((spent) => spent + policy.windowMs > nowMs).sort((a, b) => a - b);
  const allowed = live.length < policy.capacity;
  const spentAt = allowed ? [...live, nowMs] : live;
  const oldest = spentAt[0];
  // Never more than the window, even when another function's clock wrote a spend time ahead of ours.
  const secondsUntilOldestReturns =
    oldest === undefined ? 0 : Math.min(policy.windowMs / 1000, Math.ceil((oldest + policy.windowMs - nowMs) / 1000));
  return {
    allowed,
    limit: policy.capacity,
    remaining: policy.capacity - spentAt.length,
    resetSeconds: secondsUntilOldestReturns,
    retryAfterSeconds: allowed ? 0 : Math.max(1, secondsUntilOldestReturns),
    spentAt,
  };
}
