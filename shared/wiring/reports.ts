import { containerDynamoDbClients, createS3Client } from '#shared/adapters/aws-clients.ts';
import { DynamoDbReportRateLimiter } from '#shared/adapters/dynamodb/limits/report-rate-limiter.ts';
import { DynamoDbReportJobStore } from '#shared/adapters/dynamodb/report-job-store.ts';
import { S3ReportDownloadLinks } from '#shared/adapters/s3/report-download-links.ts';
import { S3ReportStorage } from '#shared/adapters/s3/report-storage.ts';
import { reportRateLimitPolicy } from '#shared/config/limits/report-rate-limit.ts';
import { systemClock } from '#shared/domain/clock.ts';
import type { ReportJobStore } from '#shared/domain/reports/ports.ts';
import { emittingReportEvents, type EventPublishing } from '#shared/domain/webhooks/webhook-events.ts';
import { limitRate } from '#shared/http/limits/rate-limit.ts';
import type { ApiMiddleware } from '#shared/http/middlewares.ts';
import { webhookEventPublishing, type WebhookPublishingConfig } from '#shared/wiring/webhook-events.ts';
import { publishedSigningCertificates } from '#shared/adapters/s3/published-signing-certificates.ts';
import { signingCertificatesObjectKey } from '#shared/adapters/signing/report-signer-name.ts';
import type { Mode } from '#shared/domain/identity/tenant.ts';

type ReportJobsTable = { REPORT_JOBS_TABLE_NAME: string };

/**
 * The report job store of every function that can finish a job (a read past its deadline, a
 * download, the erasure, the worker, the dead letters, the sweep): it always emits
 * `report.completed` and `report.failed`, so no function can finish a job and lose its event.
 */
export function reportJobsFor(
  config: ReportJobsTable & WebhookPublishingConfig,
  publishing: EventPublishing = webhookEventPublishing(config),
): ReportJobStore {
  return emittingReportEvents(
    new DynamoDbReportJobStore(containerDynamoDbClients().documents, config.REPORT_JOBS_TABLE_NAME),
    publishing,
  );
}

/** The listing's store: a listing never finishes a job (a late one is only shown TIMED_OUT), so it has no events to emit. */
export function reportJobListingFor(config: ReportJobsTable): ReportJobStore {
  return new DynamoDbReportJobStore(containerDynamoDbClients().documents, config.REPORT_JOBS_TABLE_NAME);
}

/** The organization's report rate limit (its item in the ReportJobs table), spent before the body is read. */
export function reportRateLimitFor(config: ReportJobsTable & { REPORT_RATE_LIMIT: number }): ApiMiddleware {
  return limitRate(
    new DynamoDbReportRateLimiter(
      containerDynamoDbClients().documents,
      config.REPORT_JOBS_TABLE_NAME,
      reportRateLimitPolicy(config.REPORT_RATE_LIMIT),
    ),
    systemClock,
  );
}

/** Pre-signed download links on the reports bucket. */
export function reportDownloadLinksFor(config: { REPORTS_BUCKET_NAME: string }): S3ReportDownloadLinks {
  return new S3ReportDownloadLinks(createS3Client(), config.REPORTS_BUCKET_NAME);
}

/** The report PDFs in the reports bucket (the erasure deletes a user's). */
export function reportStorageFor(config: { REPORTS_BUCKET_NAME: string }): S3ReportStorage {
  return new S3ReportStorage(createS3Client(), config.REPORTS_BUCKET_NAME);
}

/** The published signing certificates, read again once they are older than `maxAgeMs`. */
export function signingCertificatesFor(config: { REPORTS_BUCKET_NAME: string }, maxAgeMs: number, mode: Mode = 'live') {
  return publishedSigningCertificates(createS3Client(), config.REPORTS_BUCKET_NAME, {
    maxAgeMs,
    objectKey: signingCertificatesObjectKey(mode),
  });
}

/** What handing out a report's download link needs: the (emitting) job store, the links, the clock. */
export function reportDownloadPortsFor(
  config: ReportJobsTable & WebhookPublishingConfig & { REPORTS_BUCKET_NAME: string },
) {
  return { jobs: reportJobsFor(config), storage: reportDownloadLinksFor(config), clock: systemClock };
}
