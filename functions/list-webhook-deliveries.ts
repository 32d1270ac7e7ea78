import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbWebhookDeliveryLog, DynamoDbWebhookEndpointStore } from '#shared/adapters/dynamodb/webhook-store.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { listWebhookDeliveries } from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { webhookEndpointIdFrom } from '#shared/http/path-parameters.ts';
import { ok } from '#shared/http/responses.ts';
import { webhookDeliveryPageBody } from '#shared/presenters/webhook-bodies.ts';
import { webhookDeliveryListQuerySchema } from '#shared/schemas/webhook-schemas.ts';
import { parseInput } from '#shared/http/validation.ts';

const config = loadApiConfig({ WEBHOOKS_TABLE_NAME: requiredString('WEBHOOKS_TABLE_NAME') });
const dynamoDb = containerDynamoDbClients();

const listDeliveries = listWebhookDeliveries({
  endpoints: new DynamoDbWebhookEndpointStore(dynamoDb.documents, config.WEBHOOKS_TABLE_NAME),
  deliveries: new DynamoDbWebhookDeliveryLog(dynamoDb.documents, config.WEBHOOKS_TABLE_NAME),
  clock: systemClock,
});

/** GET /v1/webhooks/{id}/deliveries: the endpoint's delivery log, newest first. */
export const handler = createApiHandler({
  requiredScope: 'webhooks:manage',
  verifyToken: tokenVerifierFrom(config),
  handle: async ({ event, principal }) => {
    const query = parseInput(webhookDeliveryListQuerySchema, event.queryStringParameters ?? {});
    const listing = await listDeliveries({
      orgId: principal.tenantKey,
      endpointId: webhookEndpointIdFrom(event),
      limit: query.limit,
      cursor: query.cursor,
    });
    return ok(webhookDeliveryPageBody(listing));
  },
});
