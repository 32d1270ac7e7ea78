import { auditEnvironment, auditRecorderFor } from '#shared/wiring/audit.ts';
import { containerDynamoDbClients, createS3Client } from '#shared/adapters/aws-clients.ts';
import { DynamoDbOnboardingTokenStore } from '#shared/adapters/dynamodb/onboarding-token-store.ts';
import { DynamoDbReportJobStore } from '#shared/adapters/dynamodb/report-job-store.ts';
import { PostgresUserDirectory } from '#shared/adapters/postgres/user-directory.ts';
import { PostgresUserEraser } from '#shared/adapters/postgres/user-eraser.ts';
import {
  eraserDatabaseConfig,
  PostgresUsersDatabase,
  usersEraserDatabaseEnvironment,
} from '#shared/adapters/postgres/users-database.ts';
import { S3ReportStorage } from '#shared/adapters/s3/report-storage.ts';
import { webhookEventPublishing } from '#shared/wiring/webhooks.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { webhookPublishingEnvironment } from '#shared/config/webhook-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { eraseUser } from '#shared/domain/users/erase-user.ts';
import { emittingReportEvents } from '#shared/domain/webhooks/webhook-events.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { userIdFrom } from '#shared/http/path-parameters.ts';
import { noContent } from '#shared/http/responses.ts';
import { logger } from '#shared/observability/logger.ts';
import { recordUsersDatabaseConflictRetry } from '#shared/observability/metrics.ts';

const config = loadApiConfig({
  ...auditEnvironment,
  ...webhookPublishingEnvironment,
  ...usersEraserDatabaseEnvironment,
  REPORT_JOBS_TABLE_NAME: requiredString('REPORT_JOBS_TABLE_NAME'),
  ONBOARDING_TOKENS_TABLE_NAME: requiredString('ONBOARDING_TOKENS_TABLE_NAME'),
  REPORTS_BUCKET_NAME: requiredString('REPORTS_BUCKET_NAME'),
});
const dynamoDb = containerDynamoDbClients();
// As users_eraser (SELECT and DELETE on users), never the reader the other functions use.
const usersDatabase = new PostgresUsersDatabase(eraserDatabaseConfig(config), {
  onConflictRetry: recordUsersDatabaseConflictRetry,
});

const publishing = webhookEventPublishing(config);
const erase = eraseUser({
  users: new PostgresUserDirectory(usersDatabase),
  // An open job it ends is a report.failed event (USER_ERASED, ids only) like any other failure.
  jobs: emittingReportEvents(new DynamoDbReportJobStore(dynamoDb.documents, config.REPORT_JOBS_TABLE_NAME), publishing),
  storage: new S3ReportStorage(createS3Client(), config.REPORTS_BUCKET_NAME),
  tokens: new DynamoDbOnboardingTokenStore(dynamoDb.documents, config.ONBOARDING_TOKENS_TABLE_NAME),
  pendingEvents: publishing.pending,
  eraser: new PostgresUserEraser(usersDatabase),
  clock: systemClock,
});

/**
 * DELETE /v1/users/{id}: the user, their report jobs and PDFs, the tokens sent to their e-mail and
 * the pending webhook events naming it; 204.
 */
export const handler = createApiHandler({
  requiredScope: 'users:erase',
  verifyToken: tokenVerifierFrom(config),
  audit: auditRecorderFor(dynamoDb.documents, config),
  handle: async ({ event, principal, audit }) => {
    const userId = userIdFrom(event);
    const summary = await erase({
      orgId: principal.tenantKey,
      userId,
      started: () => audit('user.erasure_started', userId, { required: true }),
    });
    // Counts only: the log keeps nothing of the person.
    logger.info('user erased', { ...summary });
    await audit('user.erased', userId);
    return noContent();
  },
});
