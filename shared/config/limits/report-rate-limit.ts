import * as v from 'valibot';
import { REPORT_REQUEST_RATE_LIMIT, type RateLimitPolicy } from '#shared/domain/limits/report-rate-limit.ts';
import { ConfigurationError } from '#shared/config/load-config.ts';

/**
 * `REPORT_RATE_LIMIT`: report requests accepted per organization in any 10-minute window. The
 * contract's 10 unless set: CDK sets it from the `reportRateLimit` context value, the local stack
 * from the developer's `REPORT_RATE_LIMIT` (`npm start`).
 */
export const DEFAULT_REPORT_RATE_LIMIT = REPORT_REQUEST_RATE_LIMIT.capacity;

/**
 * The window's spend times live in one DynamoDB item that every request reads and rewrites, so its
 * size (and the write units each request costs) grows with the limit: about 10 KB at 1,000.
 */
export const MAX_REPORT_RATE_LIMIT = 1_000;

export const reportRateLimitVariable = v.pipe(
  v.optional(v.string(), String(DEFAULT_REPORT_RATE_LIMIT)),
  v.trim(),
  v.regex(/^\d+$/, 'REPORT_RATE_LIMIT must be a whole number'),
  v.transform(Number),
  v.minValue(1, 'REPORT_RATE_LIMIT must be at least 1'),
  v.maxValue(MAX_REPORT_RATE_LIMIT, `REPORT_RATE_LIMIT must be at most ${MAX_REPORT_RATE_LIMIT}`),
);

/** Validates `REPORT_RATE_LIMIT` (unset or empty: the default); throws a ConfigurationError naming it. */
export function reportRateLimitFrom(env: Readonly<Record<string, string | undefined>>): number {
  const value = env.REPORT_RATE_LIMIT === '' ? undefined : env.REPORT_RATE_LIMIT;
  const result = v.safeParse(reportRateLimitVariable, value);
  if (result.success) return result.output;
  throw new ConfigurationError(
    `REPORT_RATE_LIMIT must be a whole number from 1 to ${MAX_REPORT_RATE_LIMIT} (report requests per organization in 10 minutes), got "${value}"`,
  );
}

/** The report rate limit with this capacity, over the contract's 10-minute window. */
export function reportRateLimitPolicy(capacity: number): RateLimitPolicy {
  return { ...REPORT_REQUEST_RATE_LIMIT, capacity };
}
