import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbAuditTrail } from '#shared/adapters/dynamodb/audit-trail-store.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { ok } from '#shared/http/responses.ts';
import { auditEventListQuerySchema } from '#shared/schemas/audit-schemas.ts';
import { parseInput } from '#shared/http/validation.ts';

const config = loadApiConfig({ AUDIT_EVENTS_TABLE_NAME: requiredString('AUDIT_EVENTS_TABLE_NAME') });
const dynamoDb = containerDynamoDbClients();
const trail = new DynamoDbAuditTrail(dynamoDb.documents, config.AUDIT_EVENTS_TABLE_NAME);

/** GET /v1/audit-events: the organization's audit trail, newest first. */
export const handler = createApiHandler({
  requiredScope: 'audit:read',
  verifyToken: tokenVerifierFrom(config),
  handle: async ({ event, principal }) =>
    ok(await trail.list(principal.tenantKey, parseInput(auditEventListQuerySchema, event.queryStringParameters ?? {}))),
});
