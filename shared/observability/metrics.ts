import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * One CloudWatch EMF metrics emitter per cold start: namespace `OnboardingService`, dimensions
 * `service` and `stage` only. Never add an organization id, e-mail or user id as a dimension
 * (cardinality and personal data); put such context in the log line instead.
 */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'OnboardingService',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'onboarding-api',
  defaultDimensions: { stage: process.env.STAGE ?? 'local' },
});

/** Business metric names, one place, so dashboards and alarms match what the code emits. */
export const BusinessMetric = {
  TokensIssued: 'TokensIssued',
  TokensRedeemed: 'TokensRedeemed',
  TokensRevoked: 'TokensRevoked',
  ReportsRequested: 'ReportsRequested',
  ReportsCompleted: 'ReportsCompleted',
  ReportsFailed: 'ReportsFailed',
  ReportRenderMilliseconds: 'ReportRenderMilliseconds',
  RateLimitedRequests: 'RateLimitedRequests',
  SweepItemsSkipped: 'SweepItemsSkipped',
  DeadLetterMessagesAbandoned: 'DeadLetterMessagesAbandoned',
} as const;

export { MetricUnit };
