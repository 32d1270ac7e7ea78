import type { Clock } from '#shared/domain/clock.ts';
import { RateLimitedError } from '#shared/domain/errors.ts';
import type { OrganizationRateLimiter, QuotaDecision } from '#shared/domain/limits/rate-limit.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import type { ApiMiddleware } from '#shared/http/middlewares.ts';
import { rateLimitHeaders } from '#shared/http/responses.ts';

/**
 * Spends one of the organization's tokens for every authenticated request, before the body is
 * read (the contract's order for report requests; webhook tests use it too). Refused: 429 with
 * Retry-After. Accepted: RateLimit-* headers on the success response.
 */
export function limitRate(limiter: OrganizationRateLimiter, clock: Clock): ApiMiddleware {
  const decisions = new WeakMap<object, QuotaDecision>();
  return {
    before: async (request) => {
      const decision = await limiter.spend(request.context.principal.tenantKey, clock.now());
      if (!decision.allowed) {
        metrics.addMetric(BusinessMetric.RateLimitedRequests, MetricUnit.Count, 1);
        throw new RateLimitedError(decision.retryAfterSeconds, rateLimitHeaders(decision));
      }
      decisions.set(request.context, decision);
    },
    after: (request) => {
      const decision = decisions.get(request.context);
      if (decision && request.response) {
        request.response.headers = { ...request.response.headers, ...rateLimitHeaders(decision) };
      }
    },
  };
}
