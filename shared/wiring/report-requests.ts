import { containerDynamoDbClients, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { DynamoDbReportJobStore } from '#shared/adapters/dynamodb/report-job-store.ts';
import { SqsReportQueue } from '#shared/adapters/sqs/report-queue.ts';
import type { UsersDatabaseConfig } from '#shared/config/users-database-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { REPORT_TEMPLATE_VERSION } from '#shared/domain/reports/report-template-version.ts';
import { userDirectoryFor } from '#shared/wiring/users.ts';

// Apart from shared/wiring/reports.ts: requesting a report reads the user (pg), which the other
// report functions never bundle.

/**
 * What a report request needs: the job store (jobs kept for the retention), the user directory and
 * the queue. Its function may not publish webhook events (test/infra pins its grants), so its store
 * is the plain one.
 */
export function reportRequestPortsFor(
  config: { REPORT_JOBS_TABLE_NAME: string } & UsersDatabaseConfig & {
      REPORT_QUEUE_URL: string;
      REPORT_RETENTION_DAYS: number;
    },
) {
  return {
    jobs: new DynamoDbReportJobStore(
      containerDynamoDbClients().documents,
      config.REPORT_JOBS_TABLE_NAME,
      config.REPORT_RETENTION_DAYS,
    ),
    users: userDirectoryFor(config),
    queue: new SqsReportQueue(createSqsClient(), config.REPORT_QUEUE_URL),
    clock: systemClock,
    templateVersion: REPORT_TEMPLATE_VERSION,
  };
}
