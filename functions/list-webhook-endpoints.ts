import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbWebhookEndpointStore } from '#shared/adapters/dynamodb/webhook-store.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { listWebhookEndpoints } from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { ok } from '#shared/http/responses.ts';
import { webhookEndpointListBody } from '#shared/presenters/webhook-bodies.ts';

const config = loadApiConfig({ WEBHOOKS_TABLE_NAME: requiredString('WEBHOOKS_TABLE_NAME') });
const dynamoDb = containerDynamoDbClients();

const listEndpoints = listWebhookEndpoints({
  endpoints: new DynamoDbWebhookEndpointStore(dynamoDb.documents, config.WEBHOOKS_TABLE_NAME),
  clock: systemClock,
});

/** GET /v1/webhooks: the organization's endpoints, never their secrets. */
export const handler = createApiHandler({
  requiredScope: 'webhooks:manage',
  verifyToken: tokenVerifierFrom(config),
  handle: async ({ principal }) => ok(webhookEndpointListBody(await listEndpoints({ orgId: principal.tenantKey }))),
});
