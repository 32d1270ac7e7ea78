import { describe, expect, it } from 'vitest';
import type { ReportJob, ReportJobStatus } from '#shared/domain/reports/report-job.ts';
import {
  reportDownloadBody,
  reportJobBody,
  reportJobCreatedBody,
  reportJobPageBody,
} from '#shared/presenters/report-job-bodies.ts';
import { T0 } from '#test/support/fixtures/defaults.ts';
import { completedReport, completeReportJob, failedReportJob, reportJob } from '#test/support/fixtures/report-jobs.ts';

const at = (msAfterT0: number) => new Date(T0.getTime() + msAfterT0);

/** What the COMPLETE job's worker stored: every member a finished report carries, from the fixture. */
const finishedReport = completedReport({
  completedAt: '2026-03-01T12:00:03.000Z',
  sizeBytes: 2048,
  sha256: 'ab'.repeat(32),
  durationMs: 2000,
});

const completeJob = (): ReportJob => completeReportJob(finishedReport);

const failedJob = (): ReportJob => failedReportJob({ errorCode: 'RENDER_FAILED', durationMs: 1500 });

describe('reportJobCreatedBody', () => {
  it('has exactly jobId, status, userId, createdAt and updatedAt', () => {
    const job = reportJob({ attemptId: 'internal', leaseExpiresAt: 'internal' });

    expect(reportJobCreatedBody(job)).toStrictEqual({
      jobId: job.jobId,
      status: 'PENDING',
      userId: job.userId,
      createdAt: job.createdAt,
      updatedAt: job.updatedAt,
    });
  });
});

describe('reportJobBody', () => {
  const always = (job: ReportJob) => ({
    jobId: job.jobId,
    status: job.status,
    userId: job.userId,
    templateVersion: job.templateVersion,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
  });

  it.each<ReportJobStatus>(['PENDING', 'IN_PROGRESS'])(
    'for %s has only the six members every status carries',
    (status) => {
      const job = reportJob({
        status,
        startedAt: T0.toISOString(),
        attemptId: 'attempt-1',
        leaseExpiresAt: at(60_000).toISOString(),
      });

      expect(reportJobBody(job)).toStrictEqual(always(job));
    },
  );

  it('for COMPLETE adds every member of the report its worker stored, and no errorCode', () => {
    const job = completeJob();

    expect(reportJobBody(job)).toStrictEqual({ ...always(job), ...finishedReport });
  });

  it('for FAILED adds errorCode and durationMs, and none of the COMPLETE members', () => {
    const job = failedJob();

    expect(reportJobBody(job)).toStrictEqual({ ...always(job), errorCode: 'RENDER_FAILED', durationMs: 1500 });
  });

  it('never exposes the internal attempt and lease fields', () => {
    const inProgress = reportJob({ status: 'IN_PROGRESS', attemptId: 'a', leaseExpiresAt: 'b', startedAt: 'c' });
    for (const job of [completeJob(), failedJob(), inProgress]) {
      expect(reportJobBody(job)).not.toHaveProperty('attemptId');
      expect(reportJobBody(job)).not.toHaveProperty('leaseExpiresAt');
      expect(reportJobBody(job)).not.toHaveProperty('startedAt');
      expect(reportJobBody(job)).not.toHaveProperty('orgId');
    }
  });
});

describe('reportJobPageBody', () => {
  it('presents each job as the status response, with the cursor or null', () => {
    const jobs = [completeJob(), failedJob()];

    expect(reportJobPageBody({ jobs, nextCursor: 'next' })).toStrictEqual({
      results: jobs.map(reportJobBody),
      nextCursor: 'next',
    });
    expect(reportJobPageBody({ jobs: [], nextCursor: null })).toStrictEqual({ results: [], nextCursor: null });
  });
});

describe('reportDownloadBody', () => {
  it('writes the expiry as an ISO instant', () => {
    expect(
      reportDownloadBody({
        url: 'https://example.test/r.pdf',
        expiresInSeconds: 300,
        expiresAt: at(300_000),
        filename: 'report-u-20260301.pdf',
      }),
    ).toStrictEqual({
      url: 'https://example.test/r.pdf',
      expiresInSeconds: 300,
      expiresAt: '2026-03-01T12:05:00.000Z',
      filename: 'report-u-20260301.pdf',
    });
  });
});
