import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { BACKGROUND_RESERVE_MS, runBeforeTimeout } from '#shared/support/request-deadline.ts';
import { logger } from '#shared/observability/logger.ts';
import { publishRecordedMetrics } from '#shared/observability/metrics.ts';
import { traceInvocation } from '#shared/observability/tracer.ts';

/**
 * The one shape of every SQS consumer (report worker, dead-letter handler, webhook delivery): a
 * trace segment, the logger's Lambda context, metrics flushed once, the batch's AWS calls under a
 * deadline 2 s before the timeout, and failures reported per record, so one bad message never
 * re-runs the others. `handleRecord` throws to have its record retried by SQS.
 */
export function createSqsBatchHandler(handleRecord: (record: SQSRecord, context: Context) => Promise<void>) {
  const processor = new BatchProcessor(EventType.SQS);
  return middy<SQSEvent, SQSBatchResponse>()
    .use(traceInvocation())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(publishRecordedMetrics())
    .handler(async (event, context) =>
      runBeforeTimeout(context, BACKGROUND_RESERVE_MS, () =>
        processPartialResponse(event, (record: SQSRecord) => handleRecord(record, context), processor, { context }),
      ),
    );
}
