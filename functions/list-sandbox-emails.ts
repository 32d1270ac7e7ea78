import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { parseInput } from '#shared/http/validation.ts';
import { sandboxEmailPageBody } from '#shared/presenters/sandbox-email-bodies.ts';
import { sandboxEmailListQuerySchema } from '#shared/schemas/sandbox-mailbox-schemas.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { sandboxMailboxFor } from '#shared/wiring/onboarding.ts';

const { config, guards } = apiFunction('ListSandboxEmails');
const mailbox = sandboxMailboxFor(config);

/** GET /v1/sandbox/emails: the e-mails the sandbox kept instead of sending, newest first (docs/sandbox.md#the-mailbox). */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'onboarding:read',
  handle: async ({ event, principal }) => {
    const { to, limit, cursor } = parseInput(sandboxEmailListQuerySchema, event.queryStringParameters ?? {});
    return ok(sandboxEmailPageBody(await mailbox.list(principal.tenantKey, { to, limit, cursor })));
  },
});
