import { auditEnvironment, auditRecorderFor } from '#shared/wiring/audit.ts';
import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbWebhookEndpointStore } from '#shared/adapters/dynamodb/webhook-store.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { deleteWebhookEndpoint } from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { webhookEndpointIdFrom } from '#shared/http/path-parameters.ts';
import { noContent } from '#shared/http/responses.ts';

const config = loadApiConfig({
  ...auditEnvironment,
  WEBHOOKS_TABLE_NAME: requiredString('WEBHOOKS_TABLE_NAME'),
});
const dynamoDb = containerDynamoDbClients();

const deleteEndpoint = deleteWebhookEndpoint({
  endpoints: new DynamoDbWebhookEndpointStore(dynamoDb.documents, config.WEBHOOKS_TABLE_NAME),
  clock: systemClock,
});

/** DELETE /v1/webhooks/{id}: 204; another organization's endpoint is not found. */
export const handler = createApiHandler({
  requiredScope: 'webhooks:manage',
  verifyToken: tokenVerifierFrom(config),
  audit: auditRecorderFor(dynamoDb.documents, config),
  handle: async ({ event, principal, audit }) => {
    const endpointId = webhookEndpointIdFrom(event);
    await deleteEndpoint({ orgId: principal.tenantKey, endpointId });
    await audit('webhook.deleted', endpointId);
    return noContent();
  },
});
