import { setTimeout } from 'node:timers/promises';
import { sealerSettingsFrom, type SealerSettings } from '#shared/config/webhook-config.ts';
import type { SecretSealer } from '#shared/domain/webhooks/ports.ts';
import { AWS_RETRY_DELAYS_SECONDS, LOCAL_RETRY_DELAYS_SECONDS } from '#shared/domain/webhooks/retry-schedule.ts';
import type { UrlPolicy } from '#shared/domain/webhooks/ssrf-guard.ts';
import { WEBHOOK_TEST_RATE_LIMIT } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { dnsHostResolver } from '#shared/adapters/http/dns-host-resolver.ts';
import type { WebhookPublishingConfig } from '#shared/wiring/webhook-events.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { containerDynamoDbClients, createKmsClient, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { DynamoDbOrganizationRateLimiter } from '#shared/adapters/dynamodb/limits/organization-rate-limiter.ts';
import { DynamoDbWebhookDeliveryLog, DynamoDbWebhookEndpointStore } from '#shared/adapters/dynamodb/webhook-store.ts';
import { limitRate } from '#shared/http/limits/rate-limit.ts';
import type { ApiMiddleware } from '#shared/http/middlewares.ts';
import { LocalSecretSealer } from '#shared/adapters/crypto/local-secret-sealer.ts';
import { KmsSecretSealer } from '#shared/adapters/kms/kms-secret-sealer.ts';
import { SqsWebhookQueue } from '#shared/adapters/sqs/webhook-queue.ts';
import { CachedSecretSealer } from '#shared/adapters/crypto/cached-secret-sealer.ts';

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
