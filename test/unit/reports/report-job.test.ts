import { describe, expect, it } from 'vitest';
import {
  downloadFilename,
  isOpen,
  isPastDeadline,
  processingDurationMs,
  REPORT_DEADLINE_MS,
  reportObjectKey,
  type ReportJobStatus,
} from '#shared/domain/reports/report-job.ts';
import { T0 } from '#test/support/fixtures/defaults.ts';
import { reportJob } from '#test/support/fixtures/report-jobs.ts';

const at = (msAfterT0: number) => new Date(T0.getTime() + msAfterT0);

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
