import { createSqsBatchHandler } from '#shared/queue/sqs-batch-handler.ts';
import type { SQSRecord } from 'aws-lambda';
import { containerDynamoDbClients, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { CachedSecretSealer } from '#shared/adapters/crypto/cached-secret-sealer.ts';
import { DynamoDbWebhookDeliveryLog, DynamoDbWebhookEndpointStore } from '#shared/adapters/dynamodb/webhook-store.ts';
import { dnsHostResolver } from '#shared/adapters/http/dns-host-resolver.ts';
import { createWebhookSender } from '#shared/adapters/http/webhook-sender.ts';
import { SqsWebhookQueue } from '#shared/adapters/sqs/webhook-queue.ts';
import { retryScheduleFor, secretSealerFor, urlPolicyFor } from '#shared/wiring/webhooks.ts';
import { loadWebhookConfig } from '#shared/config/webhook-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { attemptWebhookDelivery, fanOutWebhookEvent } from '#shared/domain/webhooks/deliver-webhooks.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import { webhookQueueMessageFrom } from '#shared/queue/webhook-messages.ts';

const config = loadWebhookConfig();
const dynamoDb = containerDynamoDbClients();
const deps = {
  endpoints: new DynamoDbWebhookEndpointStore(dynamoDb.documents, config.WEBHOOKS_TABLE_NAME),
  deliveries: new DynamoDbWebhookDeliveryLog(dynamoDb.documents, config.WEBHOOKS_TABLE_NAME),
  queue: new SqsWebhookQueue(createSqsClient(), config.WEBHOOK_QUEUE_URL, config.WEBHOOK_SLOW_QUEUE_URL),
  clock: systemClock,
};
const fanOut = fanOutWebhookEvent(deps);
const attempt = attemptWebhookDelivery({
  ...deps,
  // Each endpoint's secret opened (KMS Decrypt) once per container and 5 minutes, not per delivery.
  sealer: new CachedSecretSealer(secretSealerFor(config), systemClock),
  resolver: dnsHostResolver,
  sender: createWebhookSender(),
  policy: urlPolicyFor(config),
  schedule: retryScheduleFor(config),
});

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
