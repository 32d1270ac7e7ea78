import { createSqsBatchHandler } from '#shared/queue/sqs-batch-handler.ts';
import type { SQSRecord } from 'aws-lambda';
import { webhookLanePortsFor } from '#shared/wiring/webhook-delivery.ts';
import { loadBackgroundFunctionConfig } from '#shared/wiring/function-config.ts';
import { attemptWebhookDelivery, fanOutWebhookEvent } from '#shared/domain/webhooks/deliver-webhooks.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import { webhookQueueMessageFrom } from '#shared/queue/webhook-messages.ts';

const ports = webhookLanePortsFor(loadBackgroundFunctionConfig('DeliverWebhooks'));
const fanOut = fanOutWebhookEvent(ports.fanOut);
const attempt = attemptWebhookDelivery(ports.attempt);

async function handleRecord(record: SQSRecord): Promise<void> {
  const message = webhookQueueMessageFrom(record);
  if (!message) {
    logger.error('discarding a queue message that is not a webhook message', { messageId: record.messageId });
    return;
  }
  if (message.kind === 'event') {
    const endpoints = await fanOut(message.event);
    logger.info('webhook event fanned out', { eventId: message.event.eventId, type: message.event.type, endpoints });
    return;
  }
  const result = await attempt(message);
  if (result.outcome === 'deferred') return;
  logger.info('webhook delivery attempt', {
    messageId: message.messageId,
    endpointId: message.endpointId,
    orgId: message.orgId,
    attempt: message.attempt,
    ...result,
  });
  if (result.outcome !== 'skipped') {
    metrics
      .singleMetric()
      .addDimension('outcome', result.outcome)
      .addMetric(BusinessMetric.WebhookDeliveries, MetricUnit.Count, 1);
  }
}

/**
 * SQS consumer of both webhook lanes (one function per lane in AWS): fan-out of events and
 * delivery attempts, failures reported per record.
 */
export const handler = createSqsBatchHandler(handleRecord);
