import type { RateLimitPolicy } from '#shared/domain/limits/rate-limit.ts';

/**
 * The report rate limit, strictly as the seed states it: at most 10 accepted requests in any
 * 10-minute window per organization, as a sliding window (`spendToken`, shared/domain/limits/rate-limit.ts):
 * a bucket of 10 tokens in which each spent token comes back exactly 600 s after it was spent.
 */
export const REPORT_REQUEST_RATE_LIMIT: RateLimitPolicy = { capacity: 10, windowMs: 10 * 60 * 1000 };

export { spendToken, type RateLimitDecision, type RateLimitPolicy } from '#shared/domain/limits/rate-limit.ts';
