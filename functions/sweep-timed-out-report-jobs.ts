import { BACKGROUND_RESERVE_MS, runBeforeTimeout } from '#shared/support/request-deadline.ts';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { systemClock } from '#shared/domain/clock.ts';
import { sweepTimedOutJobs } from '#shared/domain/reports/fail-abandoned-jobs.ts';
import { logger } from '#shared/observability/logger.ts';
import { traceInvocation } from '#shared/observability/tracer.ts';
import {
  BusinessMetric,
  metrics,
  MetricUnit,
  publishRecordedMetrics,
  recordReportFailed,
} from '#shared/observability/metrics.ts';
import { reportJobsFor } from '#shared/wiring/reports.ts';
import { loadBackgroundFunctionConfig } from '#shared/wiring/function-config.ts';

const config = loadBackgroundFunctionConfig('SweepTimedOutReportJobs');

const sweep = sweepTimedOutJobs({
  jobs: reportJobsFor(config),
  clock: systemClock,
  onSkipped: (jobId, error) => {
    logger.error('report job could not be timed out; skipped until the next sweep', { jobId, error: error as Error });
    metrics.addMetric(BusinessMetric.SweepItemsSkipped, MetricUnit.Count, 1);
  },
});

/** Runs every minute: open jobs past the 5-minute deadline end FAILED/TIMED_OUT. */
export const handler = middy<ScheduledEvent, { timedOut: number; skipped: number }>()
  .use(traceInvocation())
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishRecordedMetrics())
  .handler(async (_event, context) => {
    const result = await runBeforeTimeout(context, BACKGROUND_RESERVE_MS, sweep);
    if (result.timedOut > 0) logger.warn('report jobs timed out', result);
    for (let i = 0; i < result.timedOut; i++) recordReportFailed('TIMED_OUT');
    return result;
  });
