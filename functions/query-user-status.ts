import { createDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbUserStatusReader } from '#shared/adapters/dynamodb/user-status-reader.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { queryUserStatus } from '#shared/domain/users/query-user-status.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { userStatusRequestSchema } from '#shared/http/schemas/user-status-schemas.ts';
import { logger } from '#shared/observability/logger.ts';

const config = loadApiConfig({ USERS_TABLE_NAME: requiredString('USERS_TABLE_NAME') });
const dynamoDb = createDynamoDbClients();

const queryUsers = queryUserStatus({
  users: new DynamoDbUserStatusReader(dynamoDb.documents, config.USERS_TABLE_NAME),
  // Read units per query, for the cost model in README "User status queries" (Logs Insights: stats sum(consumedReadUnits)).
  onRead: (read) => logger.info('user status read', read),
});

export const handler = createApiHandler({
  requiredScope: 'users:read',
  verifyToken: tokenVerifierFrom(config),
  bodySchema: userStatusRequestSchema,
  handle: async ({ body, principal }) => ok(await queryUsers(principal.orgId, body)),
});
