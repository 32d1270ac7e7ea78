import { createSqsBatchHandler } from '#shared/queue/sqs-batch-handler.ts';
import type { Context, SQSRecord } from 'aws-lambda';
import { reportWorkerPortsFor } from '#shared/wiring/report-worker.ts';
import { reportJobsFor } from '#shared/wiring/reports.ts';
import { loadBackgroundFunctionConfig } from '#shared/wiring/function-config.ts';
import { processReportJob } from '#shared/domain/reports/process-report-job.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit, recordReportFailed } from '#shared/observability/metrics.ts';
import { logReportJobOutcome } from '#shared/observability/report-job-outcome-log.ts';
import { isFinalReceive, reportJobMessageFrom } from '#shared/queue/report-job-messages.ts';
import { webhookEventPublishing } from '#shared/wiring/webhook-events.ts';
import { reportFinishedEvent } from '#shared/domain/webhooks/webhook-events.ts';
import type { WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';

const config = loadBackgroundFunctionConfig('ProcessReportJobs');
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

const processJob = processReportJob({ jobs, ...reportWorkerPortsFor(config, logMissingGlyph) });

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
