import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { logReportJobOutcome } from '#shared/observability/report-job-outcome-log.ts';
import { reportJob } from '#test/support/fixtures/report-jobs.ts';

describe('logReportJobOutcome', () => {
  const logger = new Logger({ serviceName: 'test' });
  const message = { orgId: 'org-acme', jobId: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed' };
  const job = reportJob({ orgId: message.orgId, jobId: message.jobId });
  const spies = () => ({
    error: vi.spyOn(logger, 'error').mockImplementation(() => undefined),
    warn: vi.spyOn(logger, 'warn').mockImplementation(() => undefined),
    info: vi.spyOn(logger, 'info').mockImplementation(() => undefined),
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('logs a failure with its cause as an error, naming job, organization and code', () => {
    const log = spies();
    const refused = new Error('S3 PutObject failed: HTTP 403 AccessDenied');

    logReportJobOutcome(logger, message, { outcome: 'failed', job, errorCode: 'STORAGE_FAILED', cause: refused });

    expect(log.error).toHaveBeenCalledWith('report job failed', {
      ...message,
      errorCode: 'STORAGE_FAILED',
      error: refused,
    });
    expect(log.warn).not.toHaveBeenCalled();
  });

  it('logs an expected end without a cause (user gone, deadline passed) as a warning', () => {
    const log = spies();

    logReportJobOutcome(logger, message, { outcome: 'failed', job, errorCode: 'TIMED_OUT' });

    expect(log.warn).toHaveBeenCalledWith('report job failed', { ...message, errorCode: 'TIMED_OUT' });
    expect(log.error).not.toHaveBeenCalled();
  });

  it('logs completed and skipped messages as information, without the whole job', () => {
    const log = spies();

    logReportJobOutcome(logger, message, { outcome: 'completed', job });
    logReportJobOutcome(logger, message, { outcome: 'skipped', reason: 'already-finished' });

    expect(log.info).toHaveBeenNthCalledWith(1, 'report job processed', {
      ...message,
      outcome: 'completed',
      job: undefined,
    });
    expect(log.info).toHaveBeenNthCalledWith(2, 'report job processed', {
      ...message,
      outcome: 'skipped',
      reason: 'already-finished',
      job: undefined,
    });
    expect(log.error).not.toHaveBeenCalled();
  });
});
