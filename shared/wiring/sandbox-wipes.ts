import { randomUUID } from 'node:crypto';
import { containerDynamoDbClients, createS3Client, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { DynamoDbSandboxWipes } from '#shared/adapters/dynamodb/sandbox-wipes.ts';
import {
  sandboxPartitionStore,
  sandboxReportJobsStore,
  sandboxWebhooksStore,
} from '#shared/adapters/dynamodb/sandbox-wipe-stores.ts';
import { sandboxUsersStore } from '#shared/adapters/postgres/sandbox-users.ts';
import { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import { eraserDatabaseConfig } from '#shared/config/users-database-config.ts';
import { sandboxReportObjectsStore } from '#shared/adapters/s3/sandbox-report-objects.ts';
import { SqsSandboxWipeQueue } from '#shared/adapters/sqs/sandbox-wipe-queue.ts';
import { systemClock } from '#shared/domain/clock.ts';
import type { SandboxDataStore } from '#shared/domain/sandbox/sandbox-wipe.ts';
import { recordUsersDatabaseConflictRetry } from '#shared/observability/metrics.ts';

type WipeRecordsConfig = { REPORT_JOBS_TABLE_NAME: string; SANDBOX_WIPE_QUEUE_URL: string };

/** The wipe records (in the ReportJobs table) and the wipe queue: what requesting a wipe needs. */
export function sandboxWipeRequestPortsFor(config: WipeRecordsConfig) {
  return {
    wipes: new DynamoDbSandboxWipes(containerDynamoDbClients().documents, config.REPORT_JOBS_TABLE_NAME),
    queue: new SqsSandboxWipeQueue(createSqsClient(), config.SANDBOX_WIPE_QUEUE_URL),
    clock: systemClock,
    newId: randomUUID,
  };
}

/**
 * Every store a sandbox has data in, in the order a wipe empties them: the job records before the
 * open-job guards and the report objects (a PDF a worker stores meanwhile is still found), each
 * endpoint's deliveries before it, the users last (the slowest, and nothing else refers to them).
 * Rate-limit items stay: a wipe gives no budget back.
 */
export function sandboxDataStoresFor(
  config: WipeRecordsConfig & {
    ONBOARDING_TOKENS_TABLE_NAME: string;
    WEBHOOKS_TABLE_NAME: string;
    REPORTS_BUCKET_NAME: string;
  } & Parameters<typeof eraserDatabaseConfig>[0],
): SandboxDataStore[] {
  const { documents } = containerDynamoDbClients();
  // As the erasure: users_eraser (SELECT and DELETE on the users tables), never the reader.
  const usersDatabase = new PostgresUsersDatabase(eraserDatabaseConfig(config), {
    onConflictRetry: recordUsersDatabaseConflictRetry,
  });
  return [
    // Tokens, their pointers and e-mail guards, and the kept e-mails (docs/sandbox.md "The mailbox").
    sandboxPartitionStore('onboardingTokens', documents, config.ONBOARDING_TOKENS_TABLE_NAME, {
      keep: 'RATE_LIMIT#',
    }),
    sandboxReportJobsStore(documents, config.REPORT_JOBS_TABLE_NAME),
    sandboxPartitionStore('openJobGuards', documents, config.REPORT_JOBS_TABLE_NAME, { keep: 'RATE_LIMIT#' }),
    sandboxReportObjectsStore(createS3Client(), config.REPORTS_BUCKET_NAME),
    sandboxWebhooksStore(documents, config.WEBHOOKS_TABLE_NAME),
    sandboxUsersStore(usersDatabase),
  ];
}
