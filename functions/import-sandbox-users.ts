import { importSandboxUsers } from '#shared/domain/sandbox/import-sandbox-users.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { created } from '#shared/http/responses.ts';
import { sandboxUsersRequestSchema } from '#shared/schemas/sandbox-schemas.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { sandboxUserStoreFor } from '#shared/wiring/users.ts';

const { config, guards } = apiFunction('ImportSandboxUsers');
const importUsers = importSandboxUsers({ users: sandboxUserStoreFor(config) });

/** POST /v1/sandbox/users: up to 1,000 records into the caller's sandbox, all or none. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'users:erase',
  bodySchema: sandboxUsersRequestSchema,
  handle: async ({ principal, body }) => created(await importUsers(principal.tenant, body.users)),
});
