import { randomUUID } from 'node:crypto';
import { requestDeadline, runWithDeadline } from '#shared/support/request-deadline.ts';
import { databaseRouteKeys, DEFAULT_API_TIMEOUT_SECONDS } from '#shared/config/api-routes.ts';
import type { Clock } from '#shared/domain/clock.ts';
import { ConcurrencyLimitedError } from '#shared/domain/errors.ts';
import {
  CONCURRENCY_RETRY_AFTER_SECONDS,
  type ConcurrencyPolicy,
  type ConcurrencySlots,
  type SlotLease,
} from '#shared/domain/limits/concurrency.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import type { ApiMiddleware } from '#shared/http/middlewares.ts';

/**
 * A release that DynamoDB does not answer within this long is left to expire at its deadline: the answer is ready and
 * waits for no stall. Far above DynamoDB's usual few milliseconds, and well below one attempt's timeout (1 s), so a
 * hung attempt costs the answer this much, not a second (bench 14).
 */
export const RELEASE_WAIT_MS = 300;

export interface OrganizationConcurrency {
  slots: ConcurrencySlots;
  policy: ConcurrencyPolicy;
}

/**
 * Holds one of the caller's organization's concurrency slots (contract §25) from admission to the
 * request's end: after authentication and the request budget, before anything else of the route
 * runs. The organization is the verified identity's, as for the budget. A database route (one the
 * route table marks `runsDatabaseStatements`) holds a database slot too. Beyond either limit: 429
 * with the standard body and `Retry-After: 1`. The slot expires by itself at the invocation's
 * deadline (the function's timeout), so one a crashed invocation never gave back frees itself;
 * it is given back when the request ends, answered or failed, and a release that fails is logged
 * and left to expire. A slot table that cannot be reached ends in the SDK client's 503.
 */
export function holdConcurrencySlot({ slots, policy }: OrganizationConcurrency, clock: Clock): ApiMiddleware {
  const held = new WeakMap<object, SlotLease>();
  const release: NonNullable<ApiMiddleware['after']> = async (request) => {
    const lease = held.get(request);
    if (!lease) return;
    held.delete(request);
    const outerDeadline = requestDeadline()?.at;
    const waitMs = Math.min(
      RELEASE_WAIT_MS,
      outerDeadline === undefined ? RELEASE_WAIT_MS : outerDeadline - Date.now(),
    );
    try {
      await runWithDeadline(waitMs, () => slots.release(lease));
    } catch (error) {
      logger.warn('could not release a concurrency slot; it expires at the request deadline', {
        orgId: lease.orgId,
        expiresAt: new Date(lease.expiresAt).toISOString(),
        error: error as Error,
      });
    }
  };
  return {
    before: async (request) => {
      const nowMs = clock.now().getTime();
      const remainingMs = request.context.getRemainingTimeInMillis?.() ?? DEFAULT_API_TIMEOUT_SECONDS * 1000;
      const lease: SlotLease = {
        id: randomUUID(),
        orgId: request.context.principal.tenantKey,
        expiresAt: nowMs + remainingMs,
        database: databaseRouteKeys.has(request.event.routeKey),
      };
      const taking = await slots.take(lease, policy, nowMs);
      if (taking !== 'taken') {
        metrics.addMetric(BusinessMetric.RateLimitedRequests, MetricUnit.Count, 1);
        const database = taking === 'at-database-limit';
        throw new ConcurrencyLimitedError(
          CONCURRENCY_RETRY_AFTER_SECONDS,
          database ? policy.databasePerOrganization : policy.perOrganization,
          database,
        );
      }
      held.set(request, lease);
    },
    after: release,
    onError: release,
  };
}
