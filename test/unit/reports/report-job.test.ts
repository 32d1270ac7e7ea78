import { describe, expect, it } from 'vitest';
import {
  downloadFilename,
  isOpen,
  isPastDeadline,
  processingDurationMs,
  REPORT_DEADLINE_MS,
  reportObjectKey,
  toCreateResponse,
  toStatusResponse,
  type ReportJob,
  type ReportJobStatus,
} from '#shared/domain/reports/report-job.ts';
import { reportJob, T0 } from './fakes.ts';

const at = (msAfterT0: number) => new Date(T0.getTime() + msAfterT0);

const completeJob = (): ReportJob =>
  reportJob({
    status: 'COMPLETE',
    updatedAt: '2026-03-01T12:00:03.000Z',
    startedAt: '2026-03-01T12:00:01.000Z',
    attemptId: 'attempt-1',
    completedAt: '2026-03-01T12:00:03.000Z',
    sizeBytes: 2048,
    sha256: 'ab'.repeat(32),
    durationMs: 2000,
  });

const failedJob = (): ReportJob =>
  reportJob({ status: 'FAILED', updatedAt: '2026-03-01T12:00:02.000Z', errorCode: 'RENDER_FAILED', durationMs: 1500 });

describe('isOpen', () => {
  it.each<[ReportJobStatus, boolean]>([
    ['PENDING', true],
    ['IN_PROGRESS', true],
    ['COMPLETE', false],
    ['FAILED', false],
  ])('%s is open: %s', (status, open) => {
    expect(isOpen(status)).toBe(open);
  });
});

describe('isPastDeadline', () => {
  it('is 5 minutes', () => {
    expect(REPORT_DEADLINE_MS).toBe(300_000);
  });

  it.each<ReportJobStatus>(['PENDING', 'IN_PROGRESS'])(
    'an open %s job is not past its deadline 1 ms before 5 minutes',
    (status) => {
      expect(isPastDeadline(reportJob({ status }), at(REPORT_DEADLINE_MS - 1))).toBe(false);
    },
  );

  it.each<ReportJobStatus>(['PENDING', 'IN_PROGRESS'])(
    'an open %s job is past its deadline at exactly 5 minutes',
    (status) => {
      expect(isPastDeadline(reportJob({ status }), at(REPORT_DEADLINE_MS))).toBe(true);
    },
  );

  it.each<ReportJobStatus>(['COMPLETE', 'FAILED'])('a finished %s job never is, however old', (status) => {
    expect(isPastDeadline(reportJob({ status }), at(24 * 60 * 60 * 1000))).toBe(false);
  });
});

describe('reportObjectKey', () => {
  it('is reports/{orgId}/{jobId}.pdf', () => {
    expect(reportObjectKey('org-1', 'job-1')).toBe('reports/org-1/job-1.pdf');
  });
});

describe('downloadFilename', () => {
  it('is report-{userId}-{yyyymmdd}.pdf from the generation date', () => {
    expect(downloadFilename('user-1', '2026-03-01T23:59:59.999Z')).toBe('report-user-1-20260301.pdf');
  });

  it.each([
    ['a/b c', 'a_b_c'],
    ['..\\x"y', '___x_y'],
    ['Zoë;rm', 'Zo__rm'],
    ['ok_ID-9', 'ok_ID-9'],
  ])('replaces anything but letters, digits, - and _ in %j', (userId, safe) => {
    expect(downloadFilename(userId, '2026-11-03T10:00:00.000Z')).toBe(`report-${safe}-20261103.pdf`);
  });
});

describe('processingDurationMs', () => {
  it('counts from when a worker took the job', () => {
    expect(processingDurationMs({ createdAt: T0.toISOString(), startedAt: at(1_000).toISOString() }, at(3_500))).toBe(
      2_500,
    );
  });

  it('counts from creation when no worker took it', () => {
    expect(processingDurationMs({ createdAt: T0.toISOString() }, at(3_500))).toBe(3_500);
  });
});

describe('toCreateResponse', () => {
  it('has exactly jobId, status, userId, createdAt and updatedAt', () => {
    const job = reportJob({ attemptId: 'internal', leaseExpiresAt: 'internal' });

    expect(toCreateResponse(job)).toStrictEqual({
      jobId: job.jobId,
      status: 'PENDING',
      userId: job.userId,
      createdAt: job.createdAt,
      updatedAt: job.updatedAt,
    });
  });
});

describe('toStatusResponse', () => {
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

      expect(toStatusResponse(job)).toStrictEqual(always(job));
    },
  );

  it('for COMPLETE adds sizeBytes, sha256, durationMs and completedAt, and no errorCode', () => {
    const job = completeJob();

    expect(toStatusResponse(job)).toStrictEqual({
      ...always(job),
      sizeBytes: 2048,
      sha256: 'ab'.repeat(32),
      durationMs: 2000,
      completedAt: '2026-03-01T12:00:03.000Z',
    });
  });

  it('for FAILED adds errorCode and durationMs, and none of the COMPLETE members', () => {
    const job = failedJob();

    expect(toStatusResponse(job)).toStrictEqual({ ...always(job), errorCode: 'RENDER_FAILED', durationMs: 1500 });
  });

  it('never exposes the internal attempt and lease fields', () => {
    const inProgress = reportJob({ status: 'IN_PROGRESS', attemptId: 'a', leaseExpiresAt: 'b', startedAt: 'c' });
    for (const job of [completeJob(), failedJob(), inProgress]) {
      expect(toStatusResponse(job)).not.toHaveProperty('attemptId');
      expect(toStatusResponse(job)).not.toHaveProperty('leaseExpiresAt');
      expect(toStatusResponse(job)).not.toHaveProperty('startedAt');
      expect(toStatusResponse(job)).not.toHaveProperty('orgId');
    }
  });
});
