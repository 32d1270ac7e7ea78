import { containerDynamoDbClients, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { DynamoDbPendingWebhookEvents } from '#shared/adapters/dynamodb/pending-webhook-events.ts';
import { SqsWebhookQueue } from '#shared/adapters/sqs/webhook-queue.ts';
import { systemClock } from '#shared/domain/clock.ts';
import type { WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';
import type { EventPublishing } from '#shared/domain/webhooks/webhook-events.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import { reportJobBody } from '#shared/presenters/report-job-bodies.ts';

// Apart from shared/wiring/webhooks.ts: every function that changes state publishes events, and
// none of them should bundle the endpoints' delivery (the HTTP sender, DNS, the SSRF guard).

/**
 * Where the functions whose state changes are events publish them: the webhook queue, or, while
 * it refuses them, the pending events the republish schedule hands over later. Only an event
 * neither took is lost (logged, counted and alarmed on).
 */
export function webhookEventPublishing(config: WebhookPublishingConfig): EventPublishing {
  return {
    queue: new SqsWebhookQueue(createSqsClient(), config.WEBHOOK_QUEUE_URL),
    pending: new DynamoDbPendingWebhookEvents(containerDynamoDbClients().documents, config.WEBHOOKS_TABLE_NAME),
    clock: systemClock,
    reportJobPayload: reportJobBody,
    onKept: (event: WebhookEvent, error: unknown) => {
      logger.warn('webhook queue unreachable: event kept for the republish schedule', {
        eventId: event.eventId,
        type: event.type,
        orgId: event.orgId,
        error: error as Error,
      });
      metrics.addMetric(BusinessMetric.WebhookEventsKept, MetricUnit.Count, 1);
    },
    onLost: (event: WebhookEvent, error: unknown) => {
      logger.error('webhook event could not be published', {
        eventId: event.eventId,
        type: event.type,
        orgId: event.orgId,
        error: error as Error,
      });
      metrics.addMetric(BusinessMetric.WebhookEventsLost, MetricUnit.Count, 1);
    },
  };
}

export type WebhookPublishingConfig = { WEBHOOK_QUEUE_URL: string; WEBHOOKS_TABLE_NAME: string };
