import { auditEnvironment, auditRecorderFor } from '#shared/wiring/audit.ts';
import { containerDynamoDbClients, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { DynamoDbOrganizationRateLimiter } from '#shared/adapters/dynamodb/limits/organization-rate-limiter.ts';
import { DynamoDbWebhookEndpointStore } from '#shared/adapters/dynamodb/webhook-store.ts';
import { SqsWebhookQueue } from '#shared/adapters/sqs/webhook-queue.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { webhookQueueEnvironment } from '#shared/config/webhook-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { testWebhookEndpoint } from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import { WEBHOOK_TEST_RATE_LIMIT } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { webhookEndpointIdFrom } from '#shared/http/path-parameters.ts';
import { limitRate } from '#shared/http/limits/rate-limit.ts';
import { accepted } from '#shared/http/responses.ts';
import { webhookTestQueuedBody } from '#shared/presenters/webhook-bodies.ts';

const config = loadApiConfig({
  ...auditEnvironment,
  WEBHOOKS_TABLE_NAME: requiredString('WEBHOOKS_TABLE_NAME'),
  ...webhookQueueEnvironment,
});
const dynamoDb = containerDynamoDbClients();

const testEndpoint = testWebhookEndpoint({
  endpoints: new DynamoDbWebhookEndpointStore(dynamoDb.documents, config.WEBHOOKS_TABLE_NAME),
  queue: new SqsWebhookQueue(createSqsClient(), config.WEBHOOK_QUEUE_URL),
  clock: systemClock,
});

/**
 * POST /v1/webhooks/{id}/test: 202, and a `webhook.test` message on its way to this endpoint alone.
 * At most 10 per organization and minute: every authenticated request spends one, as report
 * requests do (`RATE_LIMIT#webhook-test` in the Webhooks table); beyond, 429.
 */
export const handler = createApiHandler({
  requiredScope: 'webhooks:manage',
  verifyToken: tokenVerifierFrom(config),
  audit: auditRecorderFor(dynamoDb.documents, config),
  beforeBody: [
    limitRate(
      new DynamoDbOrganizationRateLimiter(
        dynamoDb.documents,
        config.WEBHOOKS_TABLE_NAME,
        'webhook-test',
        WEBHOOK_TEST_RATE_LIMIT,
      ),
      systemClock,
    ),
  ],
  handle: async ({ event, principal, requestId, audit }) => {
    const endpointId = webhookEndpointIdFrom(event);
    const test = await testEndpoint({ orgId: principal.tenantKey, endpointId, requestId });
    await audit('webhook.tested', endpointId);
    return accepted(webhookTestQueuedBody(test));
  },
});
