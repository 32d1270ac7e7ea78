import { readListenerMessages } from '#shared/domain/webhooks/webhook-listener.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { parseInput } from '#shared/http/validation.ts';
import { sandboxWebhookMessagesBody } from '#shared/presenters/sandbox-webhook-listener-bodies.ts';
import { sandboxWebhookMessagesQuerySchema } from '#shared/schemas/sandbox-webhook-listener-schemas.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { webhookListenerPortsFor } from '#shared/wiring/webhooks.ts';

const { config, guards } = apiFunction('ListSandboxWebhookMessages');
const readMessages = readListenerMessages(webhookListenerPortsFor(config));

/**
 * GET /v1/sandbox/webhook-messages?after=&wait=: the listener's messages after the cursor, signed
 * as delivered, waiting up to `wait` seconds for one (docs/sandbox.md#the-webhook-listener).
 */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'webhooks:manage',
  handle: async ({ event, principal }) => {
    const { after, wait } = parseInput(sandboxWebhookMessagesQuerySchema, event.queryStringParameters ?? {});
    return ok(
      sandboxWebhookMessagesBody(await readMessages({ orgId: principal.tenantKey, cursor: after, waitSeconds: wait })),
    );
  },
});
