import { testWebhookEndpoint } from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { webhookEndpointIdFrom } from '#shared/http/path-parameters.ts';
import { accepted } from '#shared/http/responses.ts';
import { webhookTestQueuedBody } from '#shared/presenters/webhook-bodies.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { webhookTestPortsFor, webhookTestRateLimitFor } from '#shared/wiring/webhooks.ts';

const { config, guards } = apiFunction('TestWebhookEndpoint');
const testEndpoint = testWebhookEndpoint(webhookTestPortsFor(config));

/** POST /v1/webhooks/{id}/test: 202, a `webhook.test` message to this endpoint alone; 10 a minute per organization. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'webhooks:manage',
  audit: auditTrailFor(config),
  beforeBody: [webhookTestRateLimitFor(config)],
  handle: async ({ event, principal, requestId, audit }) => {
    const endpointId = webhookEndpointIdFrom(event);
    const queued = webhookTestQueuedBody(await testEndpoint({ orgId: principal.tenantKey, endpointId, requestId }));
    await audit('webhook.tested', endpointId);
    return accepted(queued);
  },
});
