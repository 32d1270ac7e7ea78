import { createSqsBatchHandler } from '#shared/queue/sqs-batch-handler.ts';
import type { Context, SQSRecord } from 'aws-lambda';
import { createS3Client, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { SqsReportQueue } from '#shared/adapters/sqs/report-queue.ts';
import { reportJobsFor, reportSigningKeyFor } from '#shared/wiring/reports.ts';
import { padesReportSigner, reportSignaturePlaceholder } from '#shared/adapters/signing/pades-report-signer.ts';
import { rfc3161Timestamper } from '#shared/adapters/signing/rfc3161-timestamper.ts';
import { reportSigningEnvironment } from '#shared/config/report-signing-config.ts';
import { PostgresUserDirectory } from '#shared/adapters/postgres/user-directory.ts';
import { PostgresUsersDatabase, usersDatabaseEnvironment } from '#shared/adapters/postgres/users-database.ts';
import { S3ReportStorage } from '#shared/adapters/s3/report-storage.ts';
import { loadConfig, requiredString } from '#shared/config/load-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { processReportJob } from '#shared/domain/reports/process-report-job.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import { pdfReportRenderer } from '#shared/adapters/pdf/render-user-report.ts';
import { REPORT_TEMPLATE_VERSION } from '#shared/domain/reports/report-template-version.ts';
import { logger } from '#shared/observability/logger.ts';
import {
  BusinessMetric,
  metrics,
  MetricUnit,
  recordReportFailed,
  recordUsersDatabaseConflictRetry,
} from '#shared/observability/metrics.ts';
import { logReportJobOutcome } from '#shared/observability/report-job-outcome-log.ts';
import { isFinalReceive, reportJobMessageFrom } from '#shared/queue/report-job-messages.ts';
import * as v from 'valibot';
import { webhookEventPublishing } from '#shared/wiring/webhooks.ts';
import { webhookPublishingEnvironment } from '#shared/config/webhook-config.ts';
import { reportFinishedEvent } from '#shared/domain/webhooks/webhook-events.ts';
import type { WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';

const config = loadConfig(
  v.object({
    ...webhookPublishingEnvironment,
    ...usersDatabaseEnvironment,
    ...reportSigningEnvironment,
    REPORT_JOBS_TABLE_NAME: requiredString('REPORT_JOBS_TABLE_NAME'),
    REPORTS_BUCKET_NAME: requiredString('REPORTS_BUCKET_NAME'),
    // Its own queue: a sandbox job whose scenario completes later is sent back with a delay.
    REPORT_QUEUE_URL: requiredString('REPORT_QUEUE_URL'),
  }),
);
const eventPublishing = webhookEventPublishing(config);
// At least once (docs/contract.md §9), also when the webhook queue is unreachable: an event SQS did
// not take is kept as pending (republished every minute); one that could not be kept either fails
// the message instead of being lost, and a redelivered message of a finished job publishes its
// event again (publishFinishedEventAgain). The event id is the job's, so receivers see one event.
const jobs = reportJobsFor(config, {
  ...eventPublishing,
  onLost: (event, error) => {
    throw new ReportEventNotPublishedError(event, { cause: error });
  },
});
const s3 = createS3Client();

/** A finished job's event SQS did not take: the message fails, so SQS delivers it again. */
class ReportEventNotPublishedError extends Error {
  override name = 'ReportEventNotPublishedError';
  constructor(
    readonly event: WebhookEvent,
    options: { cause: unknown },
  ) {
    super(`the ${event.type} event of job ${event.data.jobId as string} was not published`, options);
  }
}
/**
 * Logged once per render and character: the report shows the missing-glyph box in its place, so it
 * is not PDF/A and claims no PDF/A identification (docs/reports.md).
 */
const logMissingGlyph = (codePoint: number): void =>
  logger.warn('report character has no glyph in any shipped font', {
    codePoint: `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`,
    pdfA: 'not claimed',
  });

// PAdES B-T when a timestamp authority is configured; its failure retries the job (docs/reports.md).
const timestamp = config.REPORT_TIMESTAMP_URL ? rfc3161Timestamper({ url: config.REPORT_TIMESTAMP_URL }) : undefined;
const reportsBucket = { s3, bucketName: config.REPORTS_BUCKET_NAME };
// A sandbox report is signed with the sandbox's key, whose certificate names the sandbox (docs/sandbox.md).
const signers = {
  live: padesReportSigner(reportSigningKeyFor(config, reportsBucket), timestamp),
  sandbox: padesReportSigner(reportSigningKeyFor(config, reportsBucket, 'sandbox'), timestamp),
};
const reportQueue = new SqsReportQueue(createSqsClient(), config.REPORT_QUEUE_URL);

const processJob = processReportJob({
  jobs,
  users: new PostgresUserDirectory(
    new PostgresUsersDatabase(config, { onConflictRetry: recordUsersDatabaseConflictRetry }),
  ),
  storage: new S3ReportStorage(s3, config.REPORTS_BUCKET_NAME),
  render: pdfReportRenderer(
    loadReportFonts(),
    logMissingGlyph,
    reportSignaturePlaceholder({ timestamped: timestamp !== undefined }),
  ),
  sign: (pdf, signedAt, mode = 'live') => signers[mode](pdf, signedAt),
  clock: systemClock,
  templateVersion: REPORT_TEMPLATE_VERSION,
  redeliverLater: (message, delaySeconds) => reportQueue.enqueue(message, { delaySeconds }),
});

/** A job taken by a worker that died stays locked this much longer than the worker could have run. */
const LEASE_MARGIN_MS = 5_000;

async function processRecord(record: SQSRecord, lambdaContext: Context): Promise<void> {
  const message = reportJobMessageFrom(record);
  if (!message) {
    logger.error('discarding a queue message that is not a report job', { messageId: record.messageId });
    return;
  }
  try {
    const startedAt = performance.now();
    const result = await processJob(message, {
      isFinalAttempt: isFinalReceive(record),
      leaseMs: lambdaContext.getRemainingTimeInMillis() + LEASE_MARGIN_MS,
    });
    logReportJobOutcome(logger, message, result);
    if (result.outcome === 'skipped' && result.reason === 'already-finished') await publishFinishedEventAgain(message);
    if (result.outcome === 'completed') {
      metrics.addMetric(BusinessMetric.ReportsCompleted, MetricUnit.Count, 1);
      metrics.addMetric(
        BusinessMetric.ReportRenderMilliseconds,
        MetricUnit.Milliseconds,
        performance.now() - startedAt,
      );
    } else if (result.outcome === 'failed') recordReportFailed(result.errorCode);
  } catch (error) {
    if (error instanceof ReportEventNotPublishedError && isFinalReceive(record)) {
      eventPublishing.onLost(error.event, error.cause);
      return;
    }
    // Reported to SQS as this message's failure (it will be retried); the batch processor keeps no log.
    logger.error('report job attempt failed', {
      jobId: message.jobId,
      orgId: message.orgId,
      receiveCount: record.attributes.ApproximateReceiveCount,
      error: error as Error,
    });
    throw error;
  }
}

/** The event of a job some earlier delivery finished: that delivery's publishing may have failed. */
async function publishFinishedEventAgain(message: { jobId: string }): Promise<void> {
  const job = await jobs.get(message.jobId);
  if (job?.status !== 'COMPLETE' && job?.status !== 'FAILED') return;
  const event = reportFinishedEvent(job, eventPublishing);
  await eventPublishing.queue.publishEvent(event).catch((error: unknown) => {
    throw new ReportEventNotPublishedError(event, { cause: error });
  });
}

/** SQS worker: failures are reported per message, so one bad job never re-runs the others. */
export const handler = createSqsBatchHandler(processRecord);
