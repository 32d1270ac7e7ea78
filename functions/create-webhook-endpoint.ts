import { createWebhookEndpoint } from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { created } from '#shared/http/responses.ts';
import { webhookEndpointCreatedBody } from '#shared/presenters/webhook-bodies.ts';
import { webhookEndpointRequestSchema } from '#shared/schemas/webhook-schemas.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { webhookRegistrationPortsFor } from '#shared/wiring/webhooks.ts';

const { config, guards } = apiFunction('CreateWebhookEndpoint');
const createEndpoint = createWebhookEndpoint(webhookRegistrationPortsFor(config));

/** POST /v1/webhooks: registers an endpoint; its secret is in this answer and nowhere else. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'webhooks:manage',
  audit: auditTrailFor(config),
  bodySchema: webhookEndpointRequestSchema,
  handle: async ({ body, principal, audit }) => {
    const registered = await createEndpoint({ orgId: principal.tenantKey, url: body.url, events: body.events });
    await audit('webhook.created', registered.endpoint.endpointId);
    return created(webhookEndpointCreatedBody(registered));
  },
});
