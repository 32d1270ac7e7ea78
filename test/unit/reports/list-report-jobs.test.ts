import { beforeEach, describe, expect, it } from 'vitest';
import { listReportJobs } from '#shared/domain/reports/list-report-jobs.ts';
import { REPORT_DEADLINE_MS } from '#shared/domain/reports/report-job.ts';
import { ORG_ID, OTHER_ORG_ID, T0 } from '#test/support/fixtures/defaults.ts';
import { completeReportJob, reportJob } from '#test/support/fixtures/report-jobs.ts';
import { FakeClock, InMemoryReportJobStore } from './fakes.ts';

let clock: FakeClock;
let jobs: InMemoryReportJobStore;

beforeEach(() => {
  clock = new FakeClock(T0);
  jobs = new InMemoryReportJobStore(clock);
});

const list = (input: { orgId?: string; limit?: number; cursor?: string; userId?: string } = {}) =>
  listReportJobs({ jobs, clock })({ orgId: ORG_ID, limit: 25, cursor: undefined, ...input });

const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000).toISOString();
const JOB_IDS = [
  '00000000-0000-4000-8000-000000000001',
  '00000000-0000-4000-8000-000000000002',
  '00000000-0000-4000-8000-000000000003',
];

describe('listReportJobs', () => {
  it("lists the caller's jobs newest first as status responses, never another organization's", async () => {
    const older = jobs.seed(completeReportJob({ jobId: JOB_IDS[0], createdAt: at(0), completedAt: at(1) }));
    const newer = jobs.seed(reportJob({ jobId: JOB_IDS[1], createdAt: at(2), userId: 'user-2' }));
    jobs.seed(reportJob({ jobId: JOB_IDS[2], createdAt: at(3), orgId: OTHER_ORG_ID }));

    expect(await list()).toEqual({ jobs: [newer, older], nextCursor: null });
  });

  it('pages with the cursor and filters by user', async () => {
    for (const [index, jobId] of JOB_IDS.entries()) {
      jobs.seed(reportJob({ jobId, createdAt: at(index), userId: index === 1 ? 'user-2' : 'user-1' }));
    }

    const firstPage = await list({ limit: 2 });
    const secondPage = await list({ limit: 2, cursor: firstPage.nextCursor ?? undefined });

    expect(firstPage.jobs.map((job) => job.jobId)).toEqual([JOB_IDS[2], JOB_IDS[1]]);
    expect(secondPage).toEqual({ jobs: [expect.objectContaining({ jobId: JOB_IDS[0] })], nextCursor: null });
    expect((await list({ userId: 'user-2' })).jobs.map((job) => job.jobId)).toEqual([JOB_IDS[1]]);
  });

  it('shows an open job past its deadline as FAILED/TIMED_OUT without writing it', async () => {
    const job = jobs.seed(reportJob({ jobId: JOB_IDS[0], status: 'IN_PROGRESS', attemptId: 'a-1', startedAt: at(1) }));
    clock.advance(REPORT_DEADLINE_MS + 1);

    const [listed] = (await list()).jobs;

    expect(listed).toMatchObject({ jobId: job.jobId, status: 'FAILED', errorCode: 'TIMED_OUT', durationMs: 299_000 });
    expect(jobs.jobs.get(job.jobId)?.status).toBe('IN_PROGRESS');
  });

  it('answers an organization without jobs with an empty page', async () => {
    expect(await list()).toEqual({ jobs: [], nextCursor: null });
  });
});
