import { openWebhookListener } from '#shared/domain/webhooks/webhook-listener.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { sandboxWebhookListenerBody } from '#shared/presenters/sandbox-webhook-listener-bodies.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { webhookListenerPortsFor } from '#shared/wiring/webhooks.ts';

const { config, guards } = apiFunction('OpenSandboxWebhookListener');
const openListener = openWebhookListener(webhookListenerPortsFor(config));

/**
 * POST /v1/sandbox/webhook-listener: the sandbox's listener endpoint (made on first call) and its
 * secret, for `onboarding listen` (docs/sandbox.md#the-webhook-listener). A live token gets 404.
 */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'webhooks:manage',
  audit: auditTrailFor(config),
  handle: async ({ principal, audit }) => {
    const opened = await openListener({ orgId: principal.tenantKey });
    if (opened.created) await audit('webhook.created', opened.endpoint.endpointId);
    return ok(sandboxWebhookListenerBody(opened));
  },
});
