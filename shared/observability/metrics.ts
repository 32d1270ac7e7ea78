import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { processEnvironment } from '#shared/config/process-environment.ts';

/** The CloudWatch namespace of the business metrics; the CDK dashboard reads the same constant. */
export const METRICS_NAMESPACE = 'OnboardingService';

/**
 * One CloudWatch EMF metrics emitter per cold start: namespace `OnboardingService`, dimensions
 * `service` and `stage` only. Never add an organization id, e-mail or user id as a dimension
 * (cardinality and personal data); put such context in the log line instead.
 */
export const metrics = new Metrics({
  namespace: processEnvironment.metricsNamespace() ?? METRICS_NAMESPACE,
  serviceName: processEnvironment.serviceName(),
  defaultDimensions: { stage: processEnvironment.stage() },
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
  WebhookEventsLost: 'WebhookEventsLost',
  WebhookEventsKept: 'WebhookEventsKept',
  WebhookEventsRepublished: 'WebhookEventsRepublished',
  AuditEventsLost: 'AuditEventsLost',
  WebhookDeliveries: 'WebhookDeliveries',
  UsersDatabaseConflictRetries: 'UsersDatabaseConflictRetries',
  EmailPauses: 'EmailPauses',
  EmailReputationFailOpen: 'EmailReputationFailOpen',
} as const;

export { MetricUnit };

/**
 * Middy middleware: flushes the invocation's metrics (one EMF line) after the handler, also when it
 * failed. Only when there are any: Powertools' own `logMetrics` warns on every invocation that
 * recorded none, which most reads are.
 */
export function publishRecordedMetrics() {
  const publish = (): void => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return { after: publish, onError: publish };
}

/** A failed report, counted per error code (a handful of values: a safe dimension). */
export function recordReportFailed(errorCode: string): void {
  metrics
    .singleMetric()
    .addDimension('errorCode', errorCode)
    .addMetric(BusinessMetric.ReportsFailed, MetricUnit.Count, 1);
}

/** A statement or transaction on the users database run again after a conflict (SQLSTATE 40001). */
export function recordUsersDatabaseConflictRetry(): void {
  metrics.addMetric(BusinessMetric.UsersDatabaseConflictRetries, MetricUnit.Count, 1);
}
