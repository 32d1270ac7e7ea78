/**
 * Rate limits and quotas as pure decisions over stored state and the time. Two shapes of state:
 *
 * - `spendToken`, a sliding window: a bucket of `capacity` tokens in which each spent token comes
 *   back exactly `windowMs` after it was spent; the state is the list of spend times. Exact (never
 *   more than `capacity` in any window), but the state grows with the capacity, so it is for small
 *   ones: report requests (10 per 10 minutes), e-mails to one address (5 per hour), webhook tests
 *   (10 per minute).
 * - `countInWindow`, a fixed window (e.g. the clock hour): one counter per window, whatever the
 *   capacity, and a write that needs no read-modify-write (`ADD 1` if below the limit). The price:
 *   a burst at the end of one window and the start of the next may pass up to twice the capacity
 *   within `windowMs`. For large capacities: e-mails per organization (1,000 per hour).
 */

export interface RateLimitPolicy {
  capacity: number;
  windowMs: number;
}

/** What a quota decided about one request, and what the `RateLimit-*` headers say. */
export interface QuotaDecision {
  allowed: boolean;
  limit: number;
  /** Units left after this decision. */
  remaining: number;
  /** Seconds until units return: the oldest spend (sliding), the window's end (fixed); 0 when nothing is spent. */
  resetSeconds: number;
  /** When refused: seconds until a request can succeed. */
  retryAfterSeconds: number;
}

export interface RateLimitDecision extends QuotaDecision {
  /** Spend times (epoch ms) to store: unexpired ones, plus this one when allowed. */
  spentAt: number[];
}

/** Something that spends one unit of an organization's limit per call, atomically under concurrent calls. */
export interface OrganizationRateLimiter {
  spend(orgId: string, now: Date): Promise<QuotaDecision>;
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

/** Start (epoch ms) of the fixed window `nowMs` falls in; windows are aligned to the epoch (an hour: the clock hour in UTC). */
export function fixedWindowStart(nowMs: number, windowMs: number): number {
  return Math.floor(nowMs / windowMs) * windowMs;
}

export interface FixedWindowDecision extends QuotaDecision {
  windowStartMs: number;
}

/** Decides on a fixed window in which `counted` units are already spent. */
export function countInWindow(counted: number, nowMs: number, policy: RateLimitPolicy): FixedWindowDecision {
  const windowStartMs = fixedWindowStart(nowMs, policy.windowMs);
  const allowed = counted < policy.capacity;
  const spent = Math.min(policy.capacity, allowed ? counted + 1 : counted);
  const secondsUntilWindowEnds = Math.max(1, Math.ceil((windowStartMs + policy.windowMs - nowMs) / 1000));
  return {
    allowed,
    limit: policy.capacity,
    remaining: policy.capacity - spent,
    resetSeconds: spent === 0 ? 0 : secondsUntilWindowEnds,
    retryAfterSeconds: allowed ? 0 : secondsUntilWindowEnds,
    windowStartMs,
  };
}

/**
 * The one decision to report when a request spends several quotas: a refusing one (the one that
 * refuses longest, since the request succeeds only once every quota has room), else the one with
 * the fewest units left (the nearest to refusing).
 */
export function mostRestrictive<T extends QuotaDecision>(decisions: readonly T[]): T {
  const [first, ...rest] = decisions;
  if (first === undefined) throw new Error('no quota decided');
  return rest.reduce((worst, decision) => {
    if (worst.allowed !== decision.allowed) return decision.allowed ? worst : decision;
    if (!decision.allowed) return decision.retryAfterSeconds > worst.retryAfterSeconds ? decision : worst;
    return decision.remaining < worst.remaining ? decision : worst;
  }, first);
}

/**
 * Units were reserved on a quota's state that changed before they were committed (a concurrent
 * request spent meanwhile): nothing was written; decide again on fresh state.
 */
export class QuotaChangedError extends Error {
  override name = 'QuotaChangedError';
  constructor(options?: { cause?: unknown }) {
    super('the quota changed between its decision and its write', options);
  }
}
