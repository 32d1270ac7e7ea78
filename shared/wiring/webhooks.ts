import { setTimeout } from 'node:timers/promises';
import { sealerSettingsFrom, type SealerSettings } from '#shared/config/webhook-config.ts';
import type { SecretSealer } from '#shared/domain/webhooks/ports.ts';
import { AWS_RETRY_DELAYS_SECONDS, LOCAL_RETRY_DELAYS_SECONDS } from '#shared/domain/webhooks/retry-schedule.ts';
import type { UrlPolicy } from '#shared/domain/webhooks/ssrf-guard.ts';
import { WEBHOOK_TEST_RATE_LIMIT, type WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';
import type { EventPublishing } from '#shared/domain/webhooks/webhook-events.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { reportJobBody } from '#shared/presenters/report-job-bodies.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import { containerDynamoDbClients, createKmsClient, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { DynamoDbOrganizationRateLimiter } from '#shared/adapters/dynamodb/limits/organization-rate-limiter.ts';
import { DynamoDbPendingWebhookEvents } from '#shared/adapters/dynamodb/pending-webhook-events.ts';
import { DynamoDbWebhookDeliveryLog, DynamoDbWebhookEndpointStore } from '#shared/adapters/dynamodb/webhook-store.ts';
import { limitRate } from '#shared/http/limits/rate-limit.ts';
import type { ApiMiddleware } from '#shared/http/middlewares.ts';
import { dnsHostResolver } from '#shared/adapters/http/dns-host-resolver.ts';
import { LocalSecretSealer } from '#shared/adapters/crypto/local-secret-sealer.ts';
import { KmsSecretSealer } from '#shared/adapters/kms/kms-secret-sealer.ts';
import { SqsWebhookQueue } from '#shared/adapters/sqs/webhook-queue.ts';
import { CachedSecretSealer } from '#shared/adapters/crypto/cached-secret-sealer.ts';
import { createWebhookSender } from '#shared/adapters/http/webhook-sender.ts';

/** The sealer the configuration names: KMS in AWS, the local key in the local stack. */
export function secretSealerFor(config: Parameters<typeof sealerSettingsFrom>[0]): SecretSealer {
  const settings: SealerSettings = sealerSettingsFrom(config);
  return 'kmsKeyId' in settings
    ? new KmsSecretSealer(createKmsClient(), settings.kmsKeyId)
    : new LocalSecretSealer(settings.localKey);
}

export function urlPolicyFor(config: { WEBHOOK_LOCAL_MODE: 'true' | 'false' }): UrlPolicy {
  return { localMode: config.WEBHOOK_LOCAL_MODE === 'true' };
}

export function retryScheduleFor(config: { WEBHOOK_LOCAL_MODE: 'true' | 'false' }): readonly number[] {
  return config.WEBHOOK_LOCAL_MODE === 'true' ? LOCAL_RETRY_DELAYS_SECONDS : AWS_RETRY_DELAYS_SECONDS;
}

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

export function webhookEndpointsFor(config: { WEBHOOKS_TABLE_NAME: string }): DynamoDbWebhookEndpointStore {
  return new DynamoDbWebhookEndpointStore(containerDynamoDbClients().documents, config.WEBHOOKS_TABLE_NAME);
}

export function webhookDeliveryLogFor(config: { WEBHOOKS_TABLE_NAME: string }): DynamoDbWebhookDeliveryLog {
  return new DynamoDbWebhookDeliveryLog(containerDynamoDbClients().documents, config.WEBHOOKS_TABLE_NAME);
}

export function webhookQueueFor(config: { WEBHOOK_QUEUE_URL: string }): SqsWebhookQueue {
  return new SqsWebhookQueue(createSqsClient(), config.WEBHOOK_QUEUE_URL);
}

/** At most WEBHOOK_TEST_RATE_LIMIT tests per organization and minute (`RATE_LIMIT#webhook-test` in the Webhooks table). */
export function webhookTestRateLimitFor(config: { WEBHOOKS_TABLE_NAME: string }): ApiMiddleware {
  return limitRate(
    new DynamoDbOrganizationRateLimiter(
      containerDynamoDbClients().documents,
      config.WEBHOOKS_TABLE_NAME,
      'webhook-test',
      WEBHOOK_TEST_RATE_LIMIT,
    ),
    systemClock,
  );
}

/** What registering an endpoint needs: the store, the secret sealer, DNS for the SSRF guard and its policy. */
export function webhookRegistrationPortsFor(
  config: Parameters<typeof secretSealerFor>[0] & { WEBHOOKS_TABLE_NAME: string; WEBHOOK_LOCAL_MODE: 'true' | 'false' },
) {
  return {
    endpoints: webhookEndpointsFor(config),
    sealer: secretSealerFor(config),
    resolver: dnsHostResolver,
    policy: urlPolicyFor(config),
    clock: systemClock,
  };
}

/** What listing an endpoint's deliveries needs: the endpoint store, the delivery log, the clock. */
export function webhookDeliveryPortsFor(config: { WEBHOOKS_TABLE_NAME: string }) {
  return { endpoints: webhookEndpointsFor(config), deliveries: webhookDeliveryLogFor(config), clock: systemClock };
}

/** What a test delivery needs: the endpoint store, the webhook queue, the clock. */
export function webhookTestPortsFor(config: WebhookPublishingConfig) {
  return { endpoints: webhookEndpointsFor(config), queue: webhookQueueFor(config), clock: systemClock };
}

/**
 * What the delivery function needs on either lane: to fan an event out, the endpoints, the delivery
 * log and both queues; to attempt a delivery, also the sealer (each endpoint's secret opened once
 * per container and 5 minutes, not per delivery), DNS for the SSRF guard, the sender, the policy and
 * the retry schedule.
 */
export function webhookLanePortsFor(
  config: Parameters<typeof secretSealerFor>[0] & {
    WEBHOOKS_TABLE_NAME: string;
    WEBHOOK_QUEUE_URL: string;
    WEBHOOK_SLOW_QUEUE_URL: string;
    WEBHOOK_LOCAL_MODE: 'true' | 'false';
  },
) {
  const fanOut = {
    endpoints: webhookEndpointsFor(config),
    deliveries: webhookDeliveryLogFor(config),
    queue: new SqsWebhookQueue(createSqsClient(), config.WEBHOOK_QUEUE_URL, config.WEBHOOK_SLOW_QUEUE_URL),
    clock: systemClock,
  };
  const attempt = {
    ...fanOut,
    sealer: new CachedSecretSealer(secretSealerFor(config), systemClock),
    resolver: dnsHostResolver,
    sender: createWebhookSender(),
    policy: urlPolicyFor(config),
    schedule: retryScheduleFor(config),
  };
  return { fanOut, attempt };
}

/** What the sandbox listener's routes need: its endpoint, its log as a feed, the secret opened (cached per container). */
export function webhookListenerPortsFor(
  config: Parameters<typeof secretSealerFor>[0] & { WEBHOOKS_TABLE_NAME: string },
) {
  return {
    endpoints: webhookEndpointsFor(config),
    feed: webhookDeliveryLogFor(config),
    sealer: new CachedSecretSealer(secretSealerFor(config), systemClock),
    clock: systemClock,
    sleep: (ms: number) => setTimeout(ms),
  };
}
