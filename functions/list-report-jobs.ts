import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbReportJobStore } from '#shared/adapters/dynamodb/report-job-store.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { listReportJobs } from '#shared/domain/reports/list-report-jobs.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { ok } from '#shared/http/responses.ts';
import { reportJobPageBody } from '#shared/presenters/report-job-bodies.ts';
import { reportJobListQuerySchema } from '#shared/schemas/report-job-schemas.ts';
import { parseInput } from '#shared/http/validation.ts';

const config = loadApiConfig({ REPORT_JOBS_TABLE_NAME: requiredString('REPORT_JOBS_TABLE_NAME') });
const dynamoDb = containerDynamoDbClients();

const listJobs = listReportJobs({
  jobs: new DynamoDbReportJobStore(dynamoDb.documents, config.REPORT_JOBS_TABLE_NAME),
  clock: systemClock,
});

export const handler = createApiHandler({
  requiredScope: 'reports:read',
  verifyToken: tokenVerifierFrom(config),
  handle: async ({ event, principal }) => {
    const query = parseInput(reportJobListQuerySchema, event.queryStringParameters ?? {});
    const listing = await listJobs({
      orgId: principal.tenantKey,
      limit: query.limit,
      cursor: query.cursor,
      userId: query.userId,
    });
    return ok(reportJobPageBody(listing));
  },
});
