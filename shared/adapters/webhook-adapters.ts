import type { SQSClient } from '@aws-sdk/client-sqs';
import { sealerSettingsFrom, type SealerSettings } from '#shared/config/webhook-config.ts';
import type { SecretSealer } from '#shared/domain/webhooks/ports.ts';
import { AWS_RETRY_DELAYS_SECONDS, LOCAL_RETRY_DELAYS_SECONDS } from '#shared/domain/webhooks/retry-schedule.ts';
import type { UrlPolicy } from '#shared/domain/webhooks/ssrf-guard.ts';
import type { WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';
import type { EventPublishing } from '#shared/domain/webhooks/webhook-events.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import { createKmsClient } from './aws-clients.ts';
import { LocalSecretSealer } from './crypto/local-secret-sealer.ts';
import { KmsSecretSealer } from './kms/kms-secret-sealer.ts';
import { SqsWebhookQueue } from './sqs/webhook-queue.ts';

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

/** Where the functions whose state changes are events publish them; a lost event is logged and counted. */
export function webhookEventPublishing(sqs: SQSClient, queueUrl: string): EventPublishing {
  return {
    queue: new SqsWebhookQueue(sqs, queueUrl),
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
