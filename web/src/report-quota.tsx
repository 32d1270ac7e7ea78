import { RateLimitedError, type RateLimitState } from '#client/index.ts';
import { countOf } from './user-fields.ts';

/**
 * The organization's report-request quota as the last answer's `RateLimit-*` headers gave it
 * (contract §4: 10 per 10 minutes): after a 202, or after a 429 (none left, and when one returns).
 */
export function reportQuotaOf(outcome: unknown): RateLimitState | undefined {
  if (outcome instanceof RateLimitedError) {
    return (
      outcome.rateLimit ?? {
        limit: Number.NaN,
        remaining: 0,
        resetSeconds: outcome.retryAfterSeconds ?? 0,
      }
    );
  }
  return (outcome as { rateLimit?: RateLimitState } | undefined)?.rateLimit;
}

export function ReportQuota({ quota }: { quota: RateLimitState | undefined }) {
  if (quota === undefined) return null;
  const of = Number.isNaN(quota.limit) ? '' : ` of ${quota.limit}`;
  return (
    <p class="quota" data-testid="report-quota">
      {quota.remaining === 0
        ? `No report requests left${of ? ` (0${of})` : ''}; the next one returns in ${countOf(quota.resetSeconds, 'second', 'seconds')}.`
        : `${countOf(quota.remaining, 'report request', 'report requests')} left${of} in this 10-minute window.`}
    </p>
  );
}
