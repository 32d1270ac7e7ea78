import type { OnboardingTokenEvents } from '#shared/domain/onboarding/ports.ts';
import { BusinessMetric, metrics, MetricUnit } from './metrics.ts';

/** Token lifecycle events as business metrics (webhooks will subscribe to the same port). */
export const tokenEventMetrics: OnboardingTokenEvents = {
  tokenUsed: () => {
    metrics.addMetric(BusinessMetric.TokensRedeemed, MetricUnit.Count, 1);
    return Promise.resolve();
  },
  tokenRevoked: () => {
    metrics.addMetric(BusinessMetric.TokensRevoked, MetricUnit.Count, 1);
    return Promise.resolve();
  },
};
