import { beforeEach, describe, expect, it, vi } from 'vitest';
import { failDeadLetteredJob, sweepTimedOutJobs } from '#shared/domain/reports/fail-abandoned-jobs.ts';
import { REPORT_DEADLINE_MS } from '#shared/domain/reports/report-job.ts';
import { ORG_ID, T0, USER_ID } from '#test/support/fixtures/defaults.ts';
import { completeReportJob, failedReportJob, reportJob } from '#test/support/fixtures/report-jobs.ts';
import { FakeClock, InMemoryReportJobStore } from './fakes.ts';

const JOB_IDS = [
  '11111111-1111-4111-8111-111111111111',
  '22222222-2222-4222-8222-222222222222',
  '33333333-3333-4333-8333-333333333333',
  '44444444-4444-4444-8444-444444444444',
];

let clock: FakeClock;
let jobs: InMemoryReportJobStore;

beforeEach(() => {
  clock = new FakeClock(T0);
  jobs = new InMemoryReportJobStore(clock);
});

describe('failDeadLetteredJob', () => {
  const failDeadLettered = () => failDeadLetteredJob({ jobs, clock });

  it.each(['PENDING', 'IN_PROGRESS'] as const)(
    'fails an open %s job with INTERNAL_ERROR and releases its guard',
    async (status) => {
      const job = jobs.seed(reportJob({ status }));
      clock.advance(90_000);

      const failed = await failDeadLettered()({ orgId: ORG_ID, jobId: job.jobId });

      expect(failed).toBe(true);
      expect(await jobs.get(job.jobId)).toMatchObject({
        status: 'FAILED',
        errorCode: 'INTERNAL_ERROR',
        updatedAt: clock.now().toISOString(),
      });
      expect(jobs.guards.size).toBe(0);
    },
  );

  it('leaves a COMPLETE job alone', async () => {
    const job = jobs.seed(completeReportJob({ completedAt: T0.toISOString(), sizeBytes: 10 }));

    const failed = await failDeadLettered()({ orgId: ORG_ID, jobId: job.jobId });

    expect(failed).toBe(false);
    expect(await jobs.get(job.jobId)).toEqual(job);
  });

  it('leaves a job that already FAILED with its own code', async () => {
    const job = jobs.seed(failedReportJob({ errorCode: 'RENDER_FAILED' }));

    const failed = await failDeadLettered()({ orgId: ORG_ID, jobId: job.jobId });

    expect(failed).toBe(false);
    expect((await jobs.get(job.jobId))?.errorCode).toBe('RENDER_FAILED');
  });

  it('reports false for a job that no longer exists', async () => {
    expect(await failDeadLettered()({ orgId: ORG_ID, jobId: JOB_IDS[0]! })).toBe(false);
  });
});

describe('sweepTimedOutJobs', () => {
  /** Open jobs of different users created `ageMs` before the sweep runs. */
  function seedOpenJobs(...agesMs: number[]): string[] {
    const sweepAt = T0.getTime() + 60 * 60 * 1000;
    return agesMs.map(
      (ageMs, i) =>
        jobs.seed(
          reportJob({
            jobId: JOB_IDS[i]!,
            userId: `${USER_ID}-${i}`,
            createdAt: new Date(sweepAt - ageMs).toISOString(),
          }),
        ).jobId,
    );
  }

  let onSkipped: ReturnType<typeof vi.fn<(jobId: string, error: unknown) => void>>;

  beforeEach(() => {
    clock.advance(60 * 60 * 1000);
    onSkipped = vi.fn<(jobId: string, error: unknown) => void>();
  });

  it('fails with TIMED_OUT only the open jobs created more than 5 minutes ago', async () => {
    const [old, young, justOld] = seedOpenJobs(
      REPORT_DEADLINE_MS + 60_000,
      REPORT_DEADLINE_MS - 1_000,
      REPORT_DEADLINE_MS + 1,
    );

    const result = await sweepTimedOutJobs({ jobs, clock, onSkipped })();

    expect(result).toEqual({ timedOut: 2, skipped: 0 });
    expect(await jobs.get(old!)).toMatchObject({ status: 'FAILED', errorCode: 'TIMED_OUT' });
    expect(await jobs.get(justOld!)).toMatchObject({ status: 'FAILED', errorCode: 'TIMED_OUT' });
    expect(await jobs.get(young!)).toMatchObject({ status: 'PENDING' });
    expect([...jobs.guards.values()].map((g) => g.jobId)).toEqual([young]);
  });

  it('asks the store for open jobs created before now minus 5 minutes, in batches of 100 by default', async () => {
    const find = vi.spyOn(jobs, 'findOpenJobsCreatedBefore');

    await sweepTimedOutJobs({ jobs, clock, onSkipped })();

    expect(find).toHaveBeenCalledWith(new Date(clock.now().getTime() - REPORT_DEADLINE_MS), 100);
  });

  it('honours a smaller batch size, oldest first', async () => {
    const [middle, oldest, newest] = seedOpenJobs(20 * 60_000, 30 * 60_000, 10 * 60_000);

    const result = await sweepTimedOutJobs({ jobs, clock, batchSize: 2, onSkipped })();

    expect(result).toEqual({ timedOut: 2, skipped: 0 });
    expect((await jobs.get(oldest!))?.status).toBe('FAILED');
    expect((await jobs.get(middle!))?.status).toBe('FAILED');
    expect((await jobs.get(newest!))?.status).toBe('PENDING');
  });

  it('removes, rather than times out, a job whose request gave up before confirming it', async () => {
    const job = jobs.seed(
      reportJob({ jobId: JOB_IDS[0], provisionalUntil: new Date(T0.getTime() + 9_000).toISOString() }),
    );
    clock.advance(REPORT_DEADLINE_MS + 1);

    const result = await sweepTimedOutJobs({ jobs, clock, onSkipped: vi.fn() })();

    expect(result).toEqual({ timedOut: 0, skipped: 0 });
    expect(await jobs.get(job.jobId)).toBeUndefined();
    expect(jobs.guards.size).toBe(0);
  });

  it('does not count a job that finished between the query and the update', async () => {
    const [job] = seedOpenJobs(REPORT_DEADLINE_MS + 60_000);
    const find = jobs.findOpenJobsCreatedBefore.bind(jobs);
    vi.spyOn(jobs, 'findOpenJobsCreatedBefore').mockImplementation(async (cutoff, limit) => {
      const found = await find(cutoff, limit);
      await jobs.fail((await jobs.get(job!))!, 'RENDER_FAILED', clock.now());
      return found;
    });

    const result = await sweepTimedOutJobs({ jobs, clock, onSkipped })();

    expect(result).toEqual({ timedOut: 0, skipped: 0 });
    expect((await jobs.get(job!))?.errorCode).toBe('RENDER_FAILED');
  });

  it('skips a job it cannot update, reporting it, and still times out the others', async () => {
    const [poison, healthy] = seedOpenJobs(REPORT_DEADLINE_MS + 120_000, REPORT_DEADLINE_MS + 60_000);
    const failure = Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
      name: 'ValidationException',
    });
    const fail = jobs.fail.bind(jobs);
    vi.spyOn(jobs, 'fail').mockImplementation((job, code, now) =>
      job.jobId === poison ? Promise.reject(failure) : fail(job, code, now),
    );

    const result = await sweepTimedOutJobs({ jobs, clock, onSkipped })();

    expect(result).toEqual({ timedOut: 1, skipped: 1 });
    expect(onSkipped).toHaveBeenCalledWith(poison, failure);
    expect((await jobs.get(healthy!))?.errorCode).toBe('TIMED_OUT');
    expect((await jobs.get(poison!))?.status).toBe('PENDING');
  });

  it('does nothing when no job is open', async () => {
    expect(await sweepTimedOutJobs({ jobs, clock, onSkipped })()).toEqual({ timedOut: 0, skipped: 0 });
  });
});
