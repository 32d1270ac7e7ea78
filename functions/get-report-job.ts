import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbReportJobStore } from '#shared/adapters/dynamodb/report-job-store.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { getReportJob } from '#shared/domain/reports/read-report-job.ts';
import { reportJobBody } from '#shared/presenters/report-job-bodies.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { reportJobIdFrom } from '#shared/http/path-parameters.ts';
import { ok } from '#shared/http/responses.ts';
import { webhookEventPublishing } from '#shared/wiring/webhooks.ts';
import { webhookPublishingEnvironment } from '#shared/config/webhook-config.ts';
import { emittingReportEvents } from '#shared/domain/webhooks/webhook-events.ts';

const config = loadApiConfig({
  ...webhookPublishingEnvironment,
  REPORT_JOBS_TABLE_NAME: requiredString('REPORT_JOBS_TABLE_NAME'),
});
const dynamoDb = containerDynamoDbClients();

const readJob = getReportJob({
  jobs: emittingReportEvents(
    new DynamoDbReportJobStore(dynamoDb.documents, config.REPORT_JOBS_TABLE_NAME),
    webhookEventPublishing(config),
  ),
  clock: systemClock,
});

export const handler = createApiHandler({
  requiredScope: 'reports:read',
  verifyToken: tokenVerifierFrom(config),
  handle: async ({ event, principal }) =>
    ok(reportJobBody(await readJob({ orgId: principal.tenantKey, jobId: reportJobIdFrom(event) }))),
});
