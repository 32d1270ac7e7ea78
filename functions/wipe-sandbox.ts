import { requestSandboxWipe } from '#shared/domain/sandbox/wipe-sandbox.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { accepted } from '#shared/http/responses.ts';
import { sandboxWipeBody } from '#shared/presenters/sandbox-wipe-bodies.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { sandboxWipeRequestPortsFor } from '#shared/wiring/sandbox-wipes.ts';

const { config, guards } = apiFunction('WipeSandbox');
const requestWipe = requestSandboxWipe(sandboxWipeRequestPortsFor(config));

/**
 * DELETE /v1/sandbox: 202 and the running wipe; a queue consumer deletes the sandbox's data
 * (functions/process-sandbox-wipes.ts). A live token gets 404.
 */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'users:erase',
  audit: auditTrailFor(config),
  handle: async ({ principal, audit }) => {
    const wipe = await requestWipe(principal.tenant);
    await audit('sandbox.wipe_requested', wipe.wipeId);
    return accepted(sandboxWipeBody(wipe));
  },
});
