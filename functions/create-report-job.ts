import { auditEnvironment, auditRecorderFor } from '#shared/wiring/audit.ts';
import { containerDynamoDbClients, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { DynamoDbReportJobStore } from '#shared/adapters/dynamodb/report-job-store.ts';
import { DynamoDbReportRateLimiter } from '#shared/adapters/dynamodb/limits/report-rate-limiter.ts';
import { PostgresUserDirectory } from '#shared/adapters/postgres/user-directory.ts';
import { PostgresUsersDatabase, usersDatabaseEnvironment } from '#shared/adapters/postgres/users-database.ts';
import { SqsReportQueue } from '#shared/adapters/sqs/report-queue.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { positiveIntegerString, requiredString } from '#shared/config/load-config.ts';
import { reportRateLimitPolicy, reportRateLimitVariable } from '#shared/config/limits/report-rate-limit.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { REPORT_TEMPLATE_VERSION } from '#shared/domain/reports/report-template-version.ts';
import { reportJobCreatedBody } from '#shared/presenters/report-job-bodies.ts';
import { requestReport } from '#shared/domain/reports/request-report.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import {
  BusinessMetric,
  metrics,
  MetricUnit,
  recordUsersDatabaseConflictRetry,
} from '#shared/observability/metrics.ts';
import { createIdempotentRequests } from '#shared/http/idempotent-requests.ts';
import { limitRate } from '#shared/http/limits/rate-limit.ts';
import { accepted } from '#shared/http/responses.ts';
import { reportJobRequestSchema } from '#shared/schemas/report-job-schemas.ts';

const config = loadApiConfig({
  ...auditEnvironment,
  ...usersDatabaseEnvironment,
  REPORT_JOBS_TABLE_NAME: requiredString('REPORT_JOBS_TABLE_NAME'),
  IDEMPOTENCY_TABLE_NAME: requiredString('IDEMPOTENCY_TABLE_NAME'),
  REPORT_QUEUE_URL: requiredString('REPORT_QUEUE_URL'),
  REPORT_RETENTION_DAYS: positiveIntegerString('REPORT_RETENTION_DAYS', 30),
  // Requests per organization in any 10 minutes: 10 unless the deployment (or the local stack) says otherwise.
  REPORT_RATE_LIMIT: reportRateLimitVariable,
});
const dynamoDb = containerDynamoDbClients();

const requestReportJob = requestReport({
  jobs: new DynamoDbReportJobStore(dynamoDb.documents, config.REPORT_JOBS_TABLE_NAME, config.REPORT_RETENTION_DAYS),
  users: new PostgresUserDirectory(
    new PostgresUsersDatabase(config, { onConflictRetry: recordUsersDatabaseConflictRetry }),
  ),
  queue: new SqsReportQueue(createSqsClient(), config.REPORT_QUEUE_URL),
  clock: systemClock,
  templateVersion: REPORT_TEMPLATE_VERSION,
});

export const handler = createApiHandler({
  requiredScope: 'reports:write',
  verifyToken: tokenVerifierFrom(config),
  audit: auditRecorderFor(dynamoDb.documents, config),
  beforeBody: [
    limitRate(
      new DynamoDbReportRateLimiter(
        dynamoDb.documents,
        config.REPORT_JOBS_TABLE_NAME,
        reportRateLimitPolicy(config.REPORT_RATE_LIMIT),
      ),
      systemClock,
    ),
  ],
  bodySchema: reportJobRequestSchema,
  idempotency: createIdempotentRequests({
    route: 'POST /v1/document/api',
    tableName: config.IDEMPOTENCY_TABLE_NAME,
    dynamoDbClient: dynamoDb.client,
  }),
  handle: async ({ body, principal, answerBy, audit }) => {
    const job = await requestReportJob({
      orgId: principal.tenantKey,
      userId: body.userId,
      answerBy,
      requestedBy: principal.subject,
    });
    await audit('report.requested', job.jobId);
    metrics.addMetric(BusinessMetric.ReportsRequested, MetricUnit.Count, 1);
    return accepted(reportJobCreatedBody(job), { location: `/v1/document/api/${job.jobId}` });
  },
});
