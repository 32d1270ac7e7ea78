import { PostgresUserStatusReader } from '#shared/adapters/postgres/user-status-reader.ts';
import { PostgresUsersDatabase, usersDatabaseEnvironment } from '#shared/adapters/postgres/users-database.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { queryUserStatus } from '#shared/domain/users/query-user-status.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { userStatusRequestSchema } from '#shared/schemas/user-status-schemas.ts';
import { logger } from '#shared/observability/logger.ts';
import { recordUsersDatabaseConflictRetry } from '#shared/observability/metrics.ts';

const config = loadApiConfig(usersDatabaseEnvironment);

const queryUsers = queryUserStatus({
  users: new PostgresUserStatusReader(
    new PostgresUsersDatabase(config, { onConflictRetry: recordUsersDatabaseConflictRetry }),
  ),
  // Matches and statements per query, for the cost model in docs/user-status.md (Logs Insights: stats count(*) by accessPath).
  onRead: (read) => logger.info('user status read', read),
});

export const handler = createApiHandler({
  requiredScope: 'users:read',
  verifyToken: tokenVerifierFrom(config),
  bodySchema: userStatusRequestSchema,
  handle: async ({ body, principal }) => ok(await queryUsers(principal.tenantKey, body)),
});
