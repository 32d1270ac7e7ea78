import { createDynamoDbClients, createS3Client } from '#shared/adapters/aws-clients.ts';
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

const config = loadApiConfig({
  REPORT_JOBS_TABLE_NAME: requiredString('REPORT_JOBS_TABLE_NAME'),
  REPORTS_BUCKET_NAME: requiredString('REPORTS_BUCKET_NAME'),
});
const dynamoDb = createDynamoDbClients();

const downloadFor = getReportDownload({
  jobs: new DynamoDbReportJobStore(dynamoDb.documents, config.REPORT_JOBS_TABLE_NAME),
  storage: new S3ReportDownloadLinks(createS3Client(), config.REPORTS_BUCKET_NAME),
  clock: systemClock,
});

/** Authorization and organization are checked on every call; addresses are never cached. */
export const handler = createApiHandler({
  requiredScope: 'reports:read',
  verifyToken: tokenVerifierFrom(config),
  handle: async ({ event, principal }) =>
    ok(await downloadFor({ orgId: principal.orgId, jobId: reportJobIdFrom(event) })),
});
