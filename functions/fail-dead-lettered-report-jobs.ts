import { createSqsBatchHandler } from '#shared/queue/sqs-batch-handler.ts';
import type { SQSRecord } from 'aws-lambda';
import { systemClock } from '#shared/domain/clock.ts';
import { failDeadLetteredJob } from '#shared/domain/reports/fail-abandoned-jobs.ts';
import { logger } from '#shared/observability/logger.ts';
import { isLastDeadLetterReceive, reportJobMessageFrom } from '#shared/queue/report-job-messages.ts';
import { BusinessMetric, metrics, MetricUnit, recordReportFailed } from '#shared/observability/metrics.ts';
import { reportJobsFor } from '#shared/wiring/reports.ts';
import { loadBackgroundFunctionConfig } from '#shared/wiring/function-config.ts';

const config = loadBackgroundFunctionConfig('FailDeadLetteredReportJobs');

const failJob = failDeadLetteredJob({
  jobs: reportJobsFor(config),
  clock: systemClock,
});

async function failRecord(record: SQSRecord): Promise<void> {
  const message = reportJobMessageFrom(record);
  if (!message) {
    logger.error('discarding a dead letter that is not a report job', { messageId: record.messageId });
    return;
  }
  try {
    const failed = await failJob(message);
    logger.warn('report job dead-lettered', { jobId: message.jobId, orgId: message.orgId, markedFailed: failed });
    if (failed) recordReportFailed('INTERNAL_ERROR');
  } catch (error) {
    if (isLastDeadLetterReceive(record)) {
      // The sweep still times the job out if it is open; an operator reads this line and the alarm.
      logger.error('giving up a dead-lettered report job after repeated failures', {
        jobId: message.jobId,
        receiveCount: record.attributes.ApproximateReceiveCount,
        error: error as Error,
      });
      metrics.addMetric(BusinessMetric.DeadLetterMessagesAbandoned, MetricUnit.Count, 1);
      return;
    }
    logger.error('could not fail a dead-lettered report job; SQS will retry', {
      jobId: message.jobId,
      error: error as Error,
    });
    throw error;
  }
}

/** Dead-letter queue consumer: a job whose message SQS gave up on ends FAILED/INTERNAL_ERROR. */
export const handler = createSqsBatchHandler(failRecord);
