import { systemClock } from '#shared/domain/clock.ts';
import { listWebhookEndpoints } from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { webhookEndpointListBody } from '#shared/presenters/webhook-bodies.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { webhookEndpointsFor } from '#shared/wiring/webhooks.ts';

const { config, guards } = apiFunction('ListWebhookEndpoints');
const listEndpoints = listWebhookEndpoints({ endpoints: webhookEndpointsFor(config), clock: systemClock });

/** GET /v1/webhooks: the organization's endpoints, never their secrets. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'webhooks:manage',
  handle: async ({ principal }) => ok(webhookEndpointListBody(await listEndpoints({ orgId: principal.tenantKey }))),
});
