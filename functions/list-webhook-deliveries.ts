import { listWebhookDeliveries } from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { webhookEndpointIdFrom } from '#shared/http/path-parameters.ts';
import { ok } from '#shared/http/responses.ts';
import { parseInput } from '#shared/http/validation.ts';
import { webhookDeliveryPageBody } from '#shared/presenters/webhook-bodies.ts';
import { webhookDeliveryListQuerySchema } from '#shared/schemas/webhook-schemas.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { webhookDeliveryPortsFor } from '#shared/wiring/webhooks.ts';

const { config, guards } = apiFunction('ListWebhookDeliveries');
const listDeliveries = listWebhookDeliveries(webhookDeliveryPortsFor(config));

/** GET /v1/webhooks/{id}/deliveries: the endpoint's delivery log, newest first. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'webhooks:manage',
  handle: async ({ event, principal }) => {
    const { limit, cursor } = parseInput(webhookDeliveryListQuerySchema, event.queryStringParameters ?? {});
    const endpointId = webhookEndpointIdFrom(event);
    return ok(webhookDeliveryPageBody(await listDeliveries({ orgId: principal.tenantKey, endpointId, limit, cursor })));
  },
});
