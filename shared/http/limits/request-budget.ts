import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbRequestBudgetBuckets } from '#shared/adapters/dynamodb/limits/request-budget-buckets.ts';
import { requestBudgetSettingsFrom } from '#shared/config/limits/request-budget.ts';
import type { Clock } from '#shared/domain/clock.ts';
import { DependencyUnavailableError, RateLimitedError } from '#shared/domain/errors.ts';
import {
  extraCostUnits,
  LeasedRequestBudget,
  RequestBudgetContentionError,
} from '#shared/domain/limits/request-budget.ts';
import { databaseTimeSpent } from '#shared/adapters/database-time.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import type { ApiMiddleware } from '#shared/http/middlewares.ts';
import { rateLimitHeaders } from '#shared/http/responses.ts';

/**
 * Spends one token of the caller's organization's request budget, after authentication and before
 * anything else of the route runs, and, when the request ends (answered or failed), charges what
 * its database time cost beyond that token (contract §19: 1 unit per 100 ms, `extraCostUnits`). Beyond the budget: 429 with `RateLimit-*` and `Retry-After`
 * (the error mapper's standard body). A lease that DynamoDB does not answer in time ends in the
 * SDK's deadline error, a 503, with no token spent. Success responses keep the route's own
 * `RateLimit-*` headers (report requests, webhook tests): the budget adds none to them.
 */
export function spendRequestBudget(budget: LeasedRequestBudget, clock: Clock): ApiMiddleware {
  // The requests admitted: only they are charged what they cost when they end.
  const admitted = new WeakSet<object>();
  const chargeCost: NonNullable<ApiMiddleware['after']> = async (request) => {
    if (!admitted.has(request)) return;
    const units = extraCostUnits(databaseTimeSpent() ?? 0);
    if (units === 0) return;
    const orgId = request.context.principal.orgId;
    try {
      await budget.charge(orgId, units, () => clock.now().getTime());
    } catch (error) {
      // The answer is ready: a charge that failed is logged, never turned into an error.
      logger.warn('could not charge a request its database time', { orgId, units, error: error as Error });
    }
  };
  return {
    after: chargeCost,
    onError: chargeCost,
    before: async (request) => {
      let decision;
      try {
        decision = await budget.spend(request.context.principal.orgId, () => clock.now().getTime());
      } catch (error) {
        if (error instanceof RequestBudgetContentionError)
          throw new DependencyUnavailableError('database', { cause: error });
        throw error;
      }
      if (!decision.allowed) {
        metrics.addMetric(BusinessMetric.RateLimitedRequests, MetricUnit.Count, 1);
        throw new RateLimitedError(decision.retryAfterSeconds, rateLimitHeaders(decision));
      }
      admitted.add(request);
    },
  };
}

/** The budget the environment configures (shared/config/limits/request-budget.ts), built once per cold start. */
export function requestBudgetFromEnvironment(): LeasedRequestBudget | undefined {
  const settings = requestBudgetSettingsFrom();
  if (!settings) return undefined;
  const buckets = new DynamoDbRequestBudgetBuckets(containerDynamoDbClients().documents, settings.tableName);
  return new LeasedRequestBudget(buckets, settings.policy);
}
