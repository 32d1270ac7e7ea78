import { beforeEach, describe, expect, it } from 'vitest';
import { DependencyUnavailableError, NotFoundError, OpenJobExistsError } from '#shared/domain/errors.ts';
import { REPORT_DEADLINE_MS } from '#shared/domain/reports/report-job.ts';
import { requestReport } from '#shared/domain/reports/request-report.ts';
import { ORG_ID, OTHER_ORG_ID, T0, USER_ID } from '#test/support/fixtures/defaults.ts';
import { completeReportJob, reportJob, TEMPLATE_VERSION } from '#test/support/fixtures/report-jobs.ts';
import { user } from '#test/support/fixtures/users.ts';
import { FakeClock, FakeReportQueue, InMemoryReportJobStore, InMemoryUserDirectory } from './fakes.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const guardOf = (store: InMemoryReportJobStore, orgId = ORG_ID, userId = USER_ID) =>
  store.guards.get(InMemoryReportJobStore.guardKey(orgId, userId));

describe('requestReport', () => {
  let clock: FakeClock;
  let jobs: InMemoryReportJobStore;
  let users: InMemoryUserDirectory;
  let queue: FakeReportQueue;
  let run: (input: { orgId: string; userId: string }) => ReturnType<ReturnType<typeof requestReport>>;
  let request: ReturnType<typeof requestReport>;
  const answerBy = () => new Date(clock.now().getTime() + 9_000);

  beforeEach(() => {
    clock = new FakeClock(T0);
    jobs = new InMemoryReportJobStore(clock);
    users = new InMemoryUserDirectory().add(ORG_ID, user());
    queue = new FakeReportQueue();
    request = requestReport({ jobs, users, queue, clock, templateVersion: TEMPLATE_VERSION });
    run = (input) => request({ ...input, answerBy: answerBy() });
  });

  it('writes a PENDING job with a UUID v4 id, the template version and the clock time, and queues it', async () => {
    const job = await run({ orgId: ORG_ID, userId: USER_ID });

    expect(job).toEqual({
      jobId: expect.stringMatching(UUID_V4),
      orgId: ORG_ID,
      userId: USER_ID,
      status: 'PENDING',
      templateVersion: TEMPLATE_VERSION,
      createdAt: T0.toISOString(),
      updatedAt: T0.toISOString(),
    });
    expect(await jobs.get(job.jobId)).toEqual(job);
    expect(guardOf(jobs)).toEqual({ jobId: job.jobId, createdAt: job.createdAt });
    expect(queue.messages).toEqual([{ orgId: ORG_ID, jobId: job.jobId }]);
  });

  it("records the requester's sub on the job, and nothing when the token had none", async () => {
    const job = await request({ orgId: ORG_ID, userId: USER_ID, answerBy: answerBy(), requestedBy: 'auth0|req-42' });
    expect((await jobs.get(job.jobId))?.requestedBy).toBe('auth0|req-42');
    await jobs.fail(job, 'TIMED_OUT', clock.now());

    const anonymous = await request({ orgId: ORG_ID, userId: USER_ID, answerBy: answerBy(), requestedBy: undefined });
    expect(await jobs.get(anonymous.jobId)).not.toHaveProperty('requestedBy');
  });

  it('confirms the job once queued: neither the answer nor the stored job is provisional any more', async () => {
    const job = await run({ orgId: ORG_ID, userId: USER_ID });

    expect(job.provisionalUntil).toBeUndefined();
    expect((await jobs.get(job.jobId))?.provisionalUntil).toBeUndefined();
    expect(guardOf(jobs)?.provisionalUntil).toBeUndefined();
  });

  it('a request that gave up (its job never confirmed) does not block the next one once its answer is out', async () => {
    // The first request stalled after writing: it answered 503 and never confirmed.
    const abandoned = jobs.seed(
      reportJob({ jobId: 'a0000000-0000-4000-8000-000000000000', provisionalUntil: answerBy().toISOString() }),
    );
    clock.advance(12_000);

    const job = await run({ orgId: ORG_ID, userId: USER_ID });

    expect(job.jobId).not.toBe(abandoned.jobId);
    expect(guardOf(jobs)).toMatchObject({ jobId: job.jobId });
  });

  it('a job still provisional (its request in flight) blocks a second request like any open job', async () => {
    jobs.seed(reportJob({ provisionalUntil: answerBy().toISOString() }));

    await expect(run({ orgId: ORG_ID, userId: USER_ID })).rejects.toBeInstanceOf(OpenJobExistsError);
  });

  it('gives every job a fresh id', async () => {
    const first = await run({ orgId: ORG_ID, userId: USER_ID });
    users.add(ORG_ID, user({ id: 'user-2' }));

    const second = await run({ orgId: ORG_ID, userId: 'user-2' });

    expect(second.jobId).not.toBe(first.jobId);
  });

  it('refuses an unknown user with NotFoundError and writes and queues nothing', async () => {
    await expect(run({ orgId: ORG_ID, userId: 'nobody' })).rejects.toBeInstanceOf(NotFoundError);

    expect(jobs.jobs.size).toBe(0);
    expect(jobs.guards.size).toBe(0);
    expect(queue.messages).toEqual([]);
  });

  it('refuses a user of another organization with NotFoundError', async () => {
    await expect(run({ orgId: OTHER_ORG_ID, userId: USER_ID })).rejects.toBeInstanceOf(NotFoundError);

    expect(jobs.jobs.size).toBe(0);
    expect(queue.messages).toEqual([]);
  });

  it.each(['PENDING', 'IN_PROGRESS'] as const)(
    'refuses a user with an open %s job with OpenJobExistsError naming that job, and queues nothing',
    async (status) => {
      const open = jobs.seed(reportJob({ status }));
      clock.advance(REPORT_DEADLINE_MS - 1);

      const error = await run({ orgId: ORG_ID, userId: USER_ID }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(OpenJobExistsError);
      expect((error as OpenJobExistsError).openJobId).toBe(open.jobId);
      expect((error as OpenJobExistsError).details).toEqual({ jobId: open.jobId });
      expect([...jobs.jobs.keys()]).toEqual([open.jobId]);
      expect(queue.messages).toEqual([]);
    },
  );

  it('lets the same user have a new job once the previous one finished', async () => {
    jobs.seed(completeReportJob());

    const job = await run({ orgId: ORG_ID, userId: USER_ID });

    expect(job.status).toBe('PENDING');
    expect(queue.messages).toHaveLength(1);
  });

  it('fails an open job older than 5 minutes with TIMED_OUT and creates the new one', async () => {
    const abandoned = jobs.seed(reportJob({ status: 'IN_PROGRESS', attemptId: 'dead-worker' }));
    clock.advance(REPORT_DEADLINE_MS);

    const job = await run({ orgId: ORG_ID, userId: USER_ID });

    expect(await jobs.get(abandoned.jobId)).toMatchObject({
      status: 'FAILED',
      errorCode: 'TIMED_OUT',
      updatedAt: clock.now().toISOString(),
    });
    expect(job.jobId).not.toBe(abandoned.jobId);
    expect(guardOf(jobs)?.jobId).toBe(job.jobId);
    expect(queue.messages).toEqual([{ orgId: ORG_ID, jobId: job.jobId }]);
  });

  it('withdraws the job and its guard and reports the queue unavailable when queueing fails', async () => {
    const queueFailure = new Error('SQS is down');
    queue.failure = queueFailure;

    const error = await run({ orgId: ORG_ID, userId: USER_ID }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as DependencyUnavailableError).cause).toBe(queueFailure);
    expect(jobs.jobs.size).toBe(0);
    expect(guardOf(jobs)).toBeUndefined();
  });

  it('leaves the user free to try again after a queue failure', async () => {
    queue.failure = new Error('SQS is down');
    await run({ orgId: ORG_ID, userId: USER_ID }).catch(() => undefined);
    queue.failure = undefined;

    const job = await run({ orgId: ORG_ID, userId: USER_ID });

    expect(queue.messages).toEqual([{ orgId: ORG_ID, jobId: job.jobId }]);
  });

  it('lets exactly one of several concurrent requests for one user through', async () => {
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => run({ orgId: ORG_ID, userId: USER_ID })));

    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof OpenJobExistsError)).toHaveLength(4);
    expect(queue.messages).toHaveLength(1);
  });
});
