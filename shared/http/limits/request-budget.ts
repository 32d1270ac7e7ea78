import type { Clock } from '#shared/domain/clock.ts';
import { DependencyUnavailableError, RateLimitedError, RequestBudgetSpentError } from '#shared/domain/errors.ts';
import {
  LeasedRequestBudget,
  RequestBudgetContentionError,
  RunningCostCharge,
} from '#shared/domain/limits/request-budget.ts';
import { databaseTimeMeter, type DatabaseTimeMeter } from '#shared/support/database-time.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import type { ApiMiddleware } from '#shared/http/middlewares.ts';
import { rateLimitHeaders } from '#shared/http/responses.ts';

/**
 * Spends one token of the caller's organization's request budget, after authentication and before
 * anything else of the route runs, and charges what its database time costs beyond that token
 * (contract §19: 1 unit per 100 ms, `RunningCostCharge`) while its statements run and, for the
 * rest, when it ends (answered or failed). Beyond the budget: 429 with `RateLimit-*` and
 * `Retry-After` (the error mapper's standard body), at admission or, once the budget is spent
 * while the request's statements run, by cutting them off (`RequestBudgetSpentError`). A lease
 * that DynamoDB does not answer in time ends in the SDK's deadline error, a 503, with no token
 * spent. Success responses keep the route's own `RateLimit-*` headers (report requests, webhook
 * tests): the budget adds none to them.
 */
export function spendRequestBudget(budget: LeasedRequestBudget, clock: Clock): ApiMiddleware {
  const now = () => clock.now().getTime();
  // The requests admitted: only they are charged what they cost.
  const admitted = new WeakMap<object, ChargeWhileRunning | undefined>();
  const chargeCost: NonNullable<ApiMiddleware['after']> = async (request) => {
    if (!admitted.has(request)) return;
    const running = admitted.get(request);
    admitted.delete(request);
    if (!running) return;
    const units = await running.finish();
    if (units === 0) return;
    const orgId = request.context.principal.tenantKey;
    try {
      await budget.charge(orgId, units, now);
    } catch (error) {
      // The answer is ready: a charge that failed is logged, never turned into an error.
      logger.warn('could not charge a request its database time', { orgId, units, error: error as Error });
    }
  };
  return {
    after: chargeCost,
    onError: chargeCost,
    before: async (request) => {
      const orgId = request.context.principal.tenantKey;
      let decision;
      try {
        decision = await budget.spend(orgId, now);
      } catch (error) {
        if (error instanceof RequestBudgetContentionError)
          throw new DependencyUnavailableError('database', { cause: error });
        throw error;
      }
      if (!decision.allowed) {
        metrics.addMetric(BusinessMetric.RateLimitedRequests, MetricUnit.Count, 1);
        throw new RateLimitedError(decision.retryAfterSeconds, rateLimitHeaders(decision));
      }
      const meter = databaseTimeMeter();
      admitted.set(request, meter ? new ChargeWhileRunning(budget, orgId, meter, now) : undefined);
    },
  };
}

/**
 * One admitted request's running charge: a timer set for the moment its running statements
 * (`DatabaseTimeMeter`) make the next unit due, which spends it from the budget like an
 * admission; a unit refused cuts the request's statements off. No statement running, no timer.
 */
class ChargeWhileRunning {
  private readonly charge = new RunningCostCharge();
  private timer: NodeJS.Timeout | undefined;
  private charging: Promise<void> | undefined;
  private finished = false;

  constructor(
    private readonly budget: LeasedRequestBudget,
    private readonly orgId: string,
    private readonly meter: DatabaseTimeMeter,
    private readonly now: () => number,
  ) {
    meter.onChange = () => this.schedule();
  }

  /** Stops charging as the request runs; the units it still owes, to charge now. */
  async finish(): Promise<number> {
    this.finished = true;
    this.meter.onChange = undefined;
    clearTimeout(this.timer);
    await this.charging;
    return this.charge.due(this.meter.spentMs());
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.finished || this.charging) return;
    const waitMs = this.charge.nextUnitInMs(this.meter.spentMs(), this.meter.runningCount);
    if (waitMs === undefined) return;
    this.timer = setTimeout(() => {
      this.charging = this.spendDue().finally(() => {
        this.charging = undefined;
        this.schedule();
      });
    }, Math.ceil(waitMs));
    // A statement left running never keeps the process alive on its own.
    this.timer.unref();
  }

  private async spendDue(): Promise<void> {
    try {
      for (let due = this.charge.due(this.meter.spentMs()); due > 0 && !this.finished; due--) {
        const decision = await this.budget.spend(this.orgId, this.now);
        if (!decision.allowed) {
          metrics.addMetric(BusinessMetric.RateLimitedRequests, MetricUnit.Count, 1);
          this.meter.cutOff(new RequestBudgetSpentError(decision.retryAfterSeconds, rateLimitHeaders(decision)));
          this.finished = true;
          return;
        }
        this.charge.paid(1);
      }
    } catch (error) {
      // The units stay due: the request pays them when it ends.
      logger.warn('could not charge a running request its database time', {
        orgId: this.orgId,
        error: error as Error,
      });
    }
  }
}
