import { systemClock } from '#shared/domain/clock.ts';
import { deleteWebhookEndpoint } from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { webhookEndpointIdFrom } from '#shared/http/path-parameters.ts';
import { noContent } from '#shared/http/responses.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { webhookEndpointsFor } from '#shared/wiring/webhooks.ts';

const { config, guards } = apiFunction('DeleteWebhookEndpoint');
const deleteEndpoint = deleteWebhookEndpoint({ endpoints: webhookEndpointsFor(config), clock: systemClock });

/** DELETE /v1/webhooks/{id}: 204; another organization's endpoint is not found. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'webhooks:manage',
  audit: auditTrailFor(config),
  handle: async ({ event, principal, audit }) => {
    const endpointId = webhookEndpointIdFrom(event);
    await deleteEndpoint({ orgId: principal.tenantKey, endpointId });
    await audit('webhook.deleted', endpointId);
    return noContent();
  },
});
