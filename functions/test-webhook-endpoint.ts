import { systemClock } from '#shared/domain/clock.ts';
import { testWebhookEndpoint } from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { webhookEndpointIdFrom } from '#shared/http/path-parameters.ts';
import { accepted } from '#shared/http/responses.ts';
import { webhookTestQueuedBody } from '#shared/presenters/webhook-bodies.ts';
import { apiGuards } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { loadFunctionConfig } from '#shared/wiring/function-config.ts';
import { webhookEndpointsFor, webhookQueueFor, webhookTestRateLimitFor } from '#shared/wiring/webhooks.ts';

const config = loadFunctionConfig('TestWebhookEndpoint');
const testEndpoint = testWebhookEndpoint({
  endpoints: webhookEndpointsFor(config),
  queue: webhookQueueFor(config),
  clock: systemClock,
});

/**
 * POST /v1/webhooks/{id}/test: 202, and a `webhook.test` message on its way to this endpoint alone.
 * At most 10 per organization and minute: every authenticated request spends one, as report
 * requests do (`RATE_LIMIT#webhook-test` in the Webhooks table); beyond, 429.
 */
export const handler = createApiHandler({
  ...apiGuards(config),
  requiredScope: 'webhooks:manage',
  audit: auditTrailFor(config),
  beforeBody: [webhookTestRateLimitFor(config)],
  handle: async ({ event, principal, requestId, audit }) => {
    const endpointId = webhookEndpointIdFrom(event);
    const test = await testEndpoint({ orgId: principal.tenantKey, endpointId, requestId });
    await audit('webhook.tested', endpointId);
    return accepted(webhookTestQueuedBody(test));
  },
});
