import type { Logger } from '@aws-lambda-powertools/logger';
import type { ReportJobMessage } from '#shared/domain/reports/ports.ts';
import type { ProcessOutcome } from '#shared/domain/reports/process-report-job.ts';

/**
 * One log line per processed job message: a failure caused by an error (the renderer, a refusal
 * of the storage) is an error with that error; an expected end (user gone, deadline passed) is a
 * warning; everything else is information.
 */
export function logReportJobOutcome(logger: Logger, message: ReportJobMessage, result: ProcessOutcome): void {
  const keys = { jobId: message.jobId, orgId: message.orgId };
  if (result.outcome === 'failed') {
    const { errorCode, cause } = result;
    if (cause === undefined) logger.warn('report job failed', { ...keys, errorCode });
    else logger.error('report job failed', { ...keys, errorCode, error: cause as Error });
    return;
  }
  logger.info('report job processed', { ...keys, ...result, job: undefined });
}
