import { queryUserStatus } from '#shared/domain/users/query-user-status.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { logger } from '#shared/observability/logger.ts';
import { userStatusRequestSchema } from '#shared/schemas/user-status-schemas.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { userStatusReaderFor } from '#shared/wiring/users.ts';

const { config, guards } = apiFunction('QueryUserStatus');
const queryUsers = queryUserStatus({
  users: userStatusReaderFor(config),
  // Matches and statements per query, for the cost model in docs/user-status.md (Logs Insights: stats count(*) by accessPath).
  onRead: (read) => logger.info('user status read', read),
});

export const handler = createApiHandler({
  ...guards,
  requiredScope: 'users:read',
  bodySchema: userStatusRequestSchema,
  handle: async ({ body, principal }) => ok(await queryUsers(principal.tenantKey, body)),
});
