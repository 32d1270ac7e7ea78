import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { parseInput } from '#shared/http/validation.ts';
import { auditEventListQuerySchema } from '#shared/schemas/audit-schemas.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { auditTrailReaderFor } from '#shared/wiring/audit.ts';

const { config, guards } = apiFunction('ListAuditEvents');
const trail = auditTrailReaderFor(config);

/** GET /v1/audit-events: the organization's audit trail, newest first. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'audit:read',
  handle: async ({ event, principal }) =>
    ok(await trail.list(principal.tenantKey, parseInput(auditEventListQuerySchema, event.queryStringParameters ?? {}))),
});
