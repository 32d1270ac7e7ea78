import { CachedSecretSealer } from '#shared/adapters/crypto/cached-secret-sealer.ts';
import { dnsHostResolver } from '#shared/adapters/http/dns-host-resolver.ts';
import { createWebhookSender } from '#shared/adapters/http/webhook-sender.ts';
import { createSqsClient } from '#shared/adapters/aws-clients.ts';
import { SqsWebhookQueue } from '#shared/adapters/sqs/webhook-queue.ts';
import { systemClock } from '#shared/domain/clock.ts';
import {
  retryScheduleFor,
  secretSealerFor,
  urlPolicyFor,
  webhookDeliveryLogFor,
  webhookEndpointsFor,
} from '#shared/wiring/webhooks.ts';

// The delivery function's wiring, apart from shared/wiring/webhooks.ts, so that the webhook routes
// do not bundle the HTTP sender, DNS and the SSRF guard they never use.

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
