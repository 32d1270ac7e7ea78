import { auditEnvironment, auditRecorderFor } from '#shared/wiring/audit.ts';
import { containerDynamoDbClients, createS3Client } from '#shared/adapters/aws-clients.ts';
import { DynamoDbReportJobStore } from '#shared/adapters/dynamodb/report-job-store.ts';
import { S3ReportDownloadLinks } from '#shared/adapters/s3/report-download-links.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { getReportDownload } from '#shared/domain/reports/read-report-job.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { reportJobIdFrom } from '#shared/http/path-parameters.ts';
import { ok } from '#shared/http/responses.ts';
import { reportDownloadBody } from '#shared/presenters/report-job-bodies.ts';
import { webhookEventPublishing } from '#shared/wiring/webhooks.ts';
import { webhookPublishingEnvironment } from '#shared/config/webhook-config.ts';
import { emittingReportEvents } from '#shared/domain/webhooks/webhook-events.ts';

const config = loadApiConfig({
  ...auditEnvironment,
  ...webhookPublishingEnvironment,
  REPORT_JOBS_TABLE_NAME: requiredString('REPORT_JOBS_TABLE_NAME'),
  REPORTS_BUCKET_NAME: requiredString('REPORTS_BUCKET_NAME'),
});
const dynamoDb = containerDynamoDbClients();

const downloadFor = getReportDownload({
  jobs: emittingReportEvents(
    new DynamoDbReportJobStore(dynamoDb.documents, config.REPORT_JOBS_TABLE_NAME),
    webhookEventPublishing(config),
  ),
  storage: new S3ReportDownloadLinks(createS3Client(), config.REPORTS_BUCKET_NAME),
  clock: systemClock,
});

/** Authorization and organization are checked on every call; addresses are never cached. */
export const handler = createApiHandler({
  requiredScope: 'reports:read',
  verifyToken: tokenVerifierFrom(config),
  audit: auditRecorderFor(dynamoDb.documents, config),
  handle: async ({ event, principal, audit }) => {
    const jobId = reportJobIdFrom(event);
    const download = await downloadFor({ orgId: principal.tenantKey, jobId });
    await audit('report.download_url_issued', jobId);
    return ok(reportDownloadBody(download));
  },
});
