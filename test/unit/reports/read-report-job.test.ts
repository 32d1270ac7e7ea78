import { beforeEach, describe, expect, it } from 'vitest';
import { ForbiddenError, NotFoundError, UnprocessableError } from '#shared/domain/errors.ts';
import { getReportDownload, getReportJob } from '#shared/domain/reports/read-report-job.ts';
import { REPORT_DEADLINE_MS, type ReportErrorCode } from '#shared/domain/reports/report-job.ts';
import { ORG_ID, OTHER_ORG_ID, T0, USER_ID } from '#test/support/fixtures/defaults.ts';
import { completeReportJob, failedReportJob, reportJob } from '#test/support/fixtures/report-jobs.ts';
import { FakeClock, FakeReportStorage, InMemoryReportJobStore } from './fakes.ts';

const UNKNOWN_JOB_ID = 'a8098c1a-f86e-41d5-9c4b-0e2f3b7a6d10';
const COMPLETED_AT = '2026-03-01T12:00:04.000Z';

let clock: FakeClock;
let jobs: InMemoryReportJobStore;
let storage: FakeReportStorage;

beforeEach(() => {
  clock = new FakeClock(T0);
  jobs = new InMemoryReportJobStore(clock);
  storage = new FakeReportStorage();
});

const guard = () => jobs.guards.get(InMemoryReportJobStore.guardKey(ORG_ID, USER_ID));

describe('getReportJob', () => {
  const read = (jobId: string, orgId = ORG_ID) => getReportJob({ jobs, clock })({ orgId, jobId });

  it("returns the caller's own job as stored", async () => {
    const job = jobs.seed(reportJob({ status: 'IN_PROGRESS', attemptId: 'a-1' }));
    clock.advance(10_000);

    expect(await read(job.jobId)).toEqual(job);
  });

  it('refuses an unknown job with NotFoundError', async () => {
    await expect(read(UNKNOWN_JOB_ID)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a job its request gave up (never confirmed) with NotFoundError, as if never created', async () => {
    const job = jobs.seed(reportJob({ provisionalUntil: new Date(T0.getTime() + 9_000).toISOString() }));
    clock.advance(9_000);

    await expect(read(job.jobId)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("refuses another organization's job with ForbiddenError (403, not 404), leaving it untouched", async () => {
    const job = jobs.seed(reportJob());
    clock.advance(REPORT_DEADLINE_MS);

    await expect(read(job.jobId, OTHER_ORG_ID)).rejects.toBeInstanceOf(ForbiddenError);
    expect((await jobs.get(job.jobId))?.status).toBe('PENDING');
  });

  it.each(['PENDING', 'IN_PROGRESS'] as const)(
    'fails a %s job found 5 minutes after creation with TIMED_OUT on read',
    async (status) => {
      const job = jobs.seed(reportJob({ status }));
      clock.advance(REPORT_DEADLINE_MS);

      const read1 = await read(job.jobId);

      expect(read1).toMatchObject({
        jobId: job.jobId,
        status: 'FAILED',
        errorCode: 'TIMED_OUT',
        updatedAt: clock.now().toISOString(),
      });
      expect(await jobs.get(job.jobId)).toEqual(read1);
      expect(guard()).toBeUndefined();
    },
  );

  it('leaves an open job alone 1 ms before its deadline', async () => {
    const job = jobs.seed(reportJob());
    clock.advance(REPORT_DEADLINE_MS - 1);

    expect(await read(job.jobId)).toMatchObject({ status: 'PENDING' });
    expect(guard()?.jobId).toBe(job.jobId);
  });

  it('leaves an old COMPLETE job alone', async () => {
    const job = jobs.seed(completeReportJob({ completedAt: COMPLETED_AT }));
    clock.advance(24 * 60 * 60 * 1000);

    expect(await read(job.jobId)).toEqual(job);
  });
});

describe('getReportDownload', () => {
  const download = (jobId: string, orgId = ORG_ID) => getReportDownload({ jobs, storage, clock })({ orgId, jobId });

  it.each(['PENDING', 'IN_PROGRESS'] as const)(
    "refuses a %s job with 422 'report is not ready' naming the status",
    async (status) => {
      const job = jobs.seed(reportJob({ status }));

      const error = await download(job.jobId).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(UnprocessableError);
      expect((error as UnprocessableError).message).toBe('report is not ready');
      expect((error as UnprocessableError).details).toEqual({ status });
      expect(storage.urlRequests).toEqual([]);
    },
  );

  it.each<ReportErrorCode>(['USER_NOT_FOUND', 'RENDER_FAILED', 'STORAGE_FAILED', 'TIMED_OUT', 'INTERNAL_ERROR'])(
    'refuses a job FAILED with %s with 422 naming the error code',
    async (errorCode) => {
      const job = jobs.seed(failedReportJob({ errorCode }));

      const error = await download(job.jobId).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(UnprocessableError);
      expect((error as UnprocessableError).message).toContain(errorCode);
      expect((error as UnprocessableError).details).toEqual({ errorCode });
      expect(storage.urlRequests).toEqual([]);
    },
  );

  it('refuses a stale open job as FAILED/TIMED_OUT, having failed it on the way', async () => {
    const job = jobs.seed(reportJob());
    clock.advance(REPORT_DEADLINE_MS);

    const error = await download(job.jobId).catch((e: unknown) => e);

    expect((error as UnprocessableError).details).toEqual({ errorCode: 'TIMED_OUT' });
    expect((await jobs.get(job.jobId))?.status).toBe('FAILED');
  });

  it("refuses an unknown job with NotFoundError and another organization's with ForbiddenError", async () => {
    const job = jobs.seed(completeReportJob({ completedAt: COMPLETED_AT }));

    await expect(download(UNKNOWN_JOB_ID)).rejects.toBeInstanceOf(NotFoundError);
    await expect(download(job.jobId, OTHER_ORG_ID)).rejects.toBeInstanceOf(ForbiddenError);
    expect(storage.urlRequests).toEqual([]);
  });

  it('gives a COMPLETE job a 300-second address from storage for reports/{orgId}/{jobId}.pdf, with its filename', async () => {
    const job = jobs.seed(completeReportJob({ userId: 'a/b c', completedAt: COMPLETED_AT }));
    clock.advance(60_000);

    const result = await download(job.jobId);

    expect(storage.urlRequests).toEqual([
      { objectKey: `reports/${ORG_ID}/${job.jobId}.pdf`, filename: 'report-a_b_c-20260301.pdf', expiresInSeconds: 300 },
    ]);
    expect(result).toEqual({
      url: `https://reports.storage.test/reports/${ORG_ID}/${job.jobId}.pdf?expires=300`,
      expiresInSeconds: 300,
      expiresAt: new Date(T0.getTime() + 60_000 + 300_000),
      filename: 'report-a_b_c-20260301.pdf',
    });
  });

  it('asks storage for a fresh address on every call', async () => {
    const job = jobs.seed(completeReportJob({ completedAt: COMPLETED_AT }));

    const first = await download(job.jobId);
    clock.advance(1_000);
    const second = await download(job.jobId);

    expect(storage.urlRequests).toHaveLength(2);
    expect(second.expiresAt.getTime() - first.expiresAt.getTime()).toBe(1_000);
  });
});
