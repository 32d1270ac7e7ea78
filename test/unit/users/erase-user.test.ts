import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DependencyUnavailableError, NotFoundError } from '#shared/domain/errors.ts';
import type { OnboardingTokenRecord } from '#shared/domain/onboarding/onboarding-token.ts';
import type { UserDirectory } from '#shared/domain/reports/ports.ts';
import { processReportJob } from '#shared/domain/reports/process-report-job.ts';
import { reportObjectKey, type ReportJob } from '#shared/domain/reports/report-job.ts';
import { requestReport } from '#shared/domain/reports/request-report.ts';
import { ERASURE_HOLD_MS, eraseUser } from '#shared/domain/users/erase-user.ts';
import type { UserEraser } from '#shared/domain/users/ports.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { ORG_ID, OTHER_ORG_ID, T0, USER_ID } from '#test/support/fixtures/defaults.ts';
import { issuedTokenRecord } from '#test/support/fixtures/onboarding-tokens.ts';
import { completeReportJob, reportJob, TEMPLATE_VERSION } from '#test/support/fixtures/report-jobs.ts';
import { user } from '#test/support/fixtures/users.ts';
import { FakeClock, FakeReportQueue, FakeReportStorage, InMemoryReportJobStore } from '#test/unit/reports/fakes.ts';
import { InMemoryPendingEvents } from '#test/unit/webhooks/fakes.ts';
import { tokenEvent } from '#shared/domain/webhooks/webhook-events.ts';

const PDF = new TextEncoder().encode('%PDF-1.7 a report %%EOF');
/** The handler's `user.erasure_started` audit event. */
const started = vi.fn(async () => {});
beforeEach(() => {
  started.mockReset();
  started.mockResolvedValue(undefined);
});
const EMAIL = 'zoe@example.com';
const jobId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The users table: found by the directory, deleted by the eraser. */
class InMemoryUsers implements UserDirectory, UserEraser {
  readonly rows = new Map<string, UserRecord>();
  eraseFailure: Error | undefined;
  add(orgId: string, record: UserRecord): this {
    this.rows.set(`${orgId}/${record.id}`, structuredClone(record));
    return this;
  }
  async find(orgId: string, userId: string) {
    const row = this.rows.get(`${orgId}/${userId}`);
    return row ? structuredClone(row) : undefined;
  }
  async erase(orgId: string, userId: string) {
    if (this.eraseFailure) throw this.eraseFailure;
    this.rows.delete(`${orgId}/${userId}`);
  }
}

/** Tokens as the store keeps them: lower-cased e-mails. */
class InMemoryTokens {
  records: Array<Pick<OnboardingTokenRecord, 'orgId' | 'tokenId' | 'email'>> = [];
  async eraseIssuedTo(orgId: string, email: string): Promise<number> {
    const before = this.records.length;
    this.records = this.records.filter((token) => !(token.orgId === orgId && token.email === email));
    return before - this.records.length;
  }
}

describe('eraseUser', () => {
  let clock: FakeClock;
  let jobs: InMemoryReportJobStore;
  let storage: FakeReportStorage;
  let users: InMemoryUsers;
  let tokens: InMemoryTokens;
  let pendingEvents: InMemoryPendingEvents;
  let erase: ReturnType<typeof eraseUser>;

  const storePdf = (job: ReportJob) => storage.save(reportObjectKey(job.orgId, job.jobId), PDF, 'ab');
  const complete = (n: number, overrides: Partial<ReportJob> = {}) =>
    completeReportJob({
      jobId: jobId(n),
      createdAt: new Date(T0.getTime() - n * 60_000).toISOString(),
      completedAt: T0.toISOString(),
      sizeBytes: PDF.byteLength,
      sha256: 'ab',
      ...overrides,
    });

  beforeEach(() => {
    clock = new FakeClock(T0);
    jobs = new InMemoryReportJobStore(clock);
    storage = new FakeReportStorage();
    // Stored with spaces and capitals: the tokens were issued to the trimmed, lower-cased address.
    users = new InMemoryUsers()
      .add(ORG_ID, user({ email: '  Zoe@Example.COM ' }))
      .add(ORG_ID, user({ id: 'user-2', email: 'other@example.com' }))
      .add(OTHER_ORG_ID, user({ email: EMAIL }));
    tokens = new InMemoryTokens();
    tokens.records = [
      { orgId: ORG_ID, tokenId: 't1', email: EMAIL },
      { orgId: ORG_ID, tokenId: 't2', email: EMAIL },
      { orgId: ORG_ID, tokenId: 't3', email: 'other@example.com' },
      { orgId: OTHER_ORG_ID, tokenId: 't4', email: EMAIL },
    ];
    pendingEvents = new InMemoryPendingEvents();
    erase = eraseUser({ users, jobs, storage, tokens, pendingEvents, eraser: users, clock });
  });

  /** A token event kept while SQS refused it, as the publishing functions keep it. */
  const keepTokenEvent = (token: Pick<OnboardingTokenRecord, 'orgId' | 'tokenId' | 'email'>) =>
    pendingEvents.keep(
      tokenEvent(issuedTokenRecord({ ...token, createdAt: T0.toISOString(), revokedAt: T0.toISOString() }), 'revoked'),
      T0,
    );

  it('deletes finished jobs and their PDFs, ends the open job FAILED/USER_ERASED, deletes the tokens, then the user', async () => {
    const done = jobs.seed(complete(1));
    const failed = jobs.seed(complete(2, { status: 'FAILED', errorCode: 'RENDER_FAILED' }));
    const open = jobs.seed(reportJob({ jobId: jobId(3), status: 'IN_PROGRESS', attemptId: 'a-1' }));
    const othersJob = jobs.seed(complete(4, { userId: 'user-2' }));
    const otherOrgsJob = jobs.seed(complete(5, { orgId: OTHER_ORG_ID }));
    for (const job of [done, failed, othersJob, otherOrgsJob]) await storePdf(job);

    const summary = await erase({ orgId: ORG_ID, userId: USER_ID, started });

    expect(summary).toEqual({ jobsFailed: 1, jobsDeleted: 2, tokensDeleted: 2, pendingEventsDeleted: 0 });
    expect(await jobs.get(done.jobId)).toBeUndefined();
    expect(await jobs.get(failed.jobId)).toBeUndefined();
    expect(await jobs.get(open.jobId)).toMatchObject({ status: 'FAILED', errorCode: 'USER_ERASED' });
    expect([...storage.objects.keys()].sort()).toEqual(
      [reportObjectKey(ORG_ID, othersJob.jobId), reportObjectKey(OTHER_ORG_ID, otherOrgsJob.jobId)].sort(),
    );
    expect(await jobs.get(othersJob.jobId)).toBeDefined();
    expect(await jobs.get(otherOrgsJob.jobId)).toBeDefined();
    expect(tokens.records.map((token) => token.tokenId)).toEqual(['t3', 't4']);
    expect(await users.find(ORG_ID, USER_ID)).toBeUndefined();
    // The same id in another organization is another person.
    expect(await users.find(OTHER_ORG_ID, USER_ID)).toBeDefined();
  });

  it('removes the pending webhook events that name the user’s e-mail, and no other organization’s or person’s', async () => {
    for (const token of tokens.records) await keepTokenEvent(token);

    const summary = await erase({ orgId: ORG_ID, userId: USER_ID, started });

    expect(summary.pendingEventsDeleted).toBe(2);
    expect(pendingEvents.kept.map(({ event }) => [event.orgId, event.data.tokenId])).toEqual([
      [ORG_ID, 't3'],
      [OTHER_ORG_ID, 't4'],
    ]);
  });

  it('runs its steps in order: start recorded, slot held, jobs, PDF before its record, tokens, the user row last', async () => {
    jobs.seed(complete(1));
    const calls: string[] = [];
    const record = <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) =>
      vi.fn(async (...args: A) => {
        calls.push(name);
        return fn(...args);
      });
    erase = eraseUser({
      users: { find: record('users.find', (o: string, u: string) => users.find(o, u)) },
      jobs: Object.assign(Object.create(jobs) as InMemoryReportJobStore, {
        holdForErasure: record('jobs.hold', jobs.holdForErasure.bind(jobs)),
        listByOrganization: record('jobs.list', jobs.listByOrganization.bind(jobs)),
        delete: record('jobs.delete', jobs.delete.bind(jobs)),
      }),
      storage: { remove: record('storage.remove', (key: string) => storage.remove(key)) },
      tokens: { eraseIssuedTo: record('tokens.erase', (o: string, e: string) => tokens.eraseIssuedTo(o, e)) },
      pendingEvents: {
        ofOrganization: record('pending.list', (o: string) => pendingEvents.ofOrganization(o)),
        remove: pendingEvents.remove.bind(pendingEvents),
      },
      eraser: { erase: record('users.erase', (o: string, u: string) => users.erase(o, u)) },
      clock,
    });

    await erase({ orgId: ORG_ID, userId: USER_ID, started: record('audit.started', async () => {}) });

    expect(calls).toEqual([
      'users.find',
      'audit.started',
      'jobs.hold',
      'jobs.list',
      'storage.remove',
      'jobs.delete',
      'tokens.erase',
      'pending.list',
      'users.erase',
    ]);
  });

  it('answers NotFoundError for an unknown id, touching nothing', async () => {
    const otherOrgsJob = jobs.seed(complete(1, { orgId: OTHER_ORG_ID, userId: 'nobody' }));
    await expect(erase({ orgId: ORG_ID, userId: 'nobody', started })).rejects.toBeInstanceOf(NotFoundError);
    expect(started).not.toHaveBeenCalled();
    expect(jobs.guards.size).toBe(0);
    expect(await jobs.get(otherOrgsJob.jobId)).toBeDefined();
    expect(tokens.records).toHaveLength(4);
  });

  it('answers NotFoundError once erased: a second call is 404', async () => {
    await erase({ orgId: ORG_ID, userId: USER_ID, started });
    await expect(erase({ orgId: ORG_ID, userId: USER_ID, started })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('deletes nothing when its start cannot be recorded, and the user stays for a retry', async () => {
    const done = jobs.seed(complete(1));
    await storePdf(done);
    started.mockRejectedValueOnce(new DependencyUnavailableError('audit trail'));

    await expect(erase({ orgId: ORG_ID, userId: USER_ID, started })).rejects.toBeInstanceOf(DependencyUnavailableError);

    expect(jobs.guards.size).toBe(0);
    expect(await jobs.get(done.jobId)).toBeDefined();
    expect(storage.objects.size).toBe(1);
    expect(tokens.records).toHaveLength(4);
    expect(await users.find(ORG_ID, USER_ID)).toBeDefined();
  });

  it('skips the tokens of a user without an e-mail', async () => {
    users.add(ORG_ID, user({ id: 'no-mail', email: undefined }));
    const eraseIssuedTo = vi.spyOn(tokens, 'eraseIssuedTo');
    await erase({ orgId: ORG_ID, userId: 'no-mail', started });
    expect(eraseIssuedTo).not.toHaveBeenCalled();
  });

  it('leaves the user in place when a step fails (503), and a retry finishes the erasure', async () => {
    const done = [jobs.seed(complete(1)), jobs.seed(complete(2))];
    for (const job of done) await storePdf(job);
    const remove = vi.spyOn(storage, 'remove');
    remove.mockRejectedValueOnce(new DependencyUnavailableError('storage'));

    await expect(erase({ orgId: ORG_ID, userId: USER_ID, started })).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(started).toHaveBeenCalledTimes(1);
    expect(await users.find(ORG_ID, USER_ID)).toBeDefined();
    // A record whose PDF removal failed is still there for the retry to find.
    expect(storage.objects.size + [...jobs.jobs.keys()].length).toBeGreaterThan(0);

    remove.mockRestore();
    await expect(erase({ orgId: ORG_ID, userId: USER_ID, started })).resolves.toBeDefined();
    // The repeated call records its own start: the trail shows both attempts.
    expect(started).toHaveBeenCalledTimes(2);
    expect(jobs.jobs.size).toBe(0);
    expect(storage.objects.size).toBe(0);
    expect(tokens.records.filter((token) => token.orgId === ORG_ID && token.email === EMAIL)).toEqual([]);
    expect(await users.find(ORG_ID, USER_ID)).toBeUndefined();
  });

  it('refuses report requests for the user while it holds the slot, even one that found the user before the row went', async () => {
    users.eraseFailure = new DependencyUnavailableError('users database');
    await expect(erase({ orgId: ORG_ID, userId: USER_ID, started })).rejects.toBeInstanceOf(DependencyUnavailableError);
    const request = requestReport({
      jobs,
      users,
      queue: new FakeReportQueue(),
      clock,
      templateVersion: TEMPLATE_VERSION,
    });
    const answerBy = () => new Date(clock.now().getTime() + 9_000);

    // The user is still there (the last step failed), but the slot is held: as good as unknown.
    await expect(request({ orgId: ORG_ID, userId: USER_ID, answerBy: answerBy() })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    // Another user of the organization is not held.
    await expect(request({ orgId: ORG_ID, userId: 'user-2', answerBy: answerBy() })).resolves.toMatchObject({
      status: 'PENDING',
    });
    clock.advance(ERASURE_HOLD_MS);
    await expect(request({ orgId: ORG_ID, userId: USER_ID, answerBy: answerBy() })).resolves.toMatchObject({
      status: 'PENDING',
    });
  });

  it('ends the job holding the slot (even one still being confirmed), and replaces a guard left by a finished job', async () => {
    const inFlight = jobs.seed(
      reportJob({ jobId: jobId(1), provisionalUntil: new Date(T0.getTime() + 9_000).toISOString() }),
    );
    await erase({ orgId: ORG_ID, userId: USER_ID, started });
    expect(await jobs.get(inFlight.jobId)).toMatchObject({ status: 'FAILED', errorCode: 'USER_ERASED' });

    users.add(ORG_ID, user({ id: 'user-3' }));
    const finished = jobs.seed(complete(2, { userId: 'user-3' }));
    jobs.guards.set(InMemoryReportJobStore.guardKey(ORG_ID, 'user-3'), {
      jobId: finished.jobId,
      createdAt: finished.createdAt,
    });
    await erase({ orgId: ORG_ID, userId: 'user-3', started });
    expect(jobs.guards.get(InMemoryReportJobStore.guardKey(ORG_ID, 'user-3'))).toMatchObject({
      jobId: 'ERASURE_HOLD',
    });
    expect(await jobs.get(finished.jobId)).toBeUndefined();
  });

  it('keeps a USER_ERASED record on a retry but still removes any PDF under its key', async () => {
    const open = jobs.seed(reportJob({ jobId: jobId(1), status: 'IN_PROGRESS', attemptId: 'a-1' }));
    users.eraseFailure = new DependencyUnavailableError('users database');
    await expect(erase({ orgId: ORG_ID, userId: USER_ID, started })).rejects.toBeInstanceOf(DependencyUnavailableError);
    // A worker that stored its PDF and crashed before cleaning up.
    await storePdf(open);

    users.eraseFailure = undefined;
    const summary = await erase({ orgId: ORG_ID, userId: USER_ID, started });

    expect(summary).toMatchObject({ jobsFailed: 0, jobsDeleted: 0 });
    expect(await jobs.get(open.jobId)).toMatchObject({ status: 'FAILED', errorCode: 'USER_ERASED' });
    expect(storage.objects.size).toBe(0);
  });

  it('gives the same end state to parallel calls; each succeeds or, once the user is gone, is NotFoundError', async () => {
    for (let n = 1; n <= 6; n++) await storePdf(jobs.seed(complete(n)));
    jobs.seed(reportJob({ jobId: jobId(7), status: 'IN_PROGRESS', attemptId: 'a-1' }));

    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => erase({ orgId: ORG_ID, userId: USER_ID, started })),
    );

    expect(outcomes.filter((o) => o.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
    for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(NotFoundError);
    }
    expect([...jobs.jobs.values()]).toEqual([
      expect.objectContaining({ jobId: jobId(7), status: 'FAILED', errorCode: 'USER_ERASED' }),
    ]);
    expect(storage.objects.size).toBe(0);
    expect(await users.find(ORG_ID, USER_ID)).toBeUndefined();
  });
});

describe('eraseUser while the worker renders the user’s report', () => {
  let clock: FakeClock;
  let jobs: InMemoryReportJobStore;
  let storage: FakeReportStorage;
  let users: InMemoryUsers;
  let erase: ReturnType<typeof eraseUser>;
  let job: ReportJob;

  beforeEach(() => {
    clock = new FakeClock(T0);
    jobs = new InMemoryReportJobStore(clock);
    storage = new FakeReportStorage();
    users = new InMemoryUsers().add(ORG_ID, user({ email: EMAIL }));
    erase = eraseUser({
      users,
      jobs,
      storage,
      tokens: { eraseIssuedTo: async () => 0 },
      pendingEvents: new InMemoryPendingEvents(),
      eraser: users,
      clock,
    });
    job = jobs.seed(reportJob());
  });

  const worker = (render: () => Promise<Uint8Array>) =>
    processReportJob({
      jobs,
      users,
      storage,
      render,
      sign: async (pdf) => pdf,
      clock,
      templateVersion: TEMPLATE_VERSION,
    });

  it('stores nothing when the erasure comes while it renders', async () => {
    const result = await worker(async () => {
      await erase({ orgId: ORG_ID, userId: USER_ID, started });
      return PDF;
    })({ orgId: ORG_ID, jobId: job.jobId }, { isFinalAttempt: false, leaseMs: 60_000 });

    expect(result).toEqual({ outcome: 'skipped', reason: 'lost-to-another-writer' });
    expect(await jobs.get(job.jobId)).toMatchObject({ status: 'FAILED', errorCode: 'USER_ERASED' });
    expect(storage.objects.size).toBe(0);
  });

  it('removes the PDF it stored when the erasure failed the job before its completion', async () => {
    const save = storage.save.bind(storage);
    vi.spyOn(storage, 'save').mockImplementation(async (key, pdf, sha) => {
      await save(key, pdf, sha);
      // The erasure runs between the upload and the completion; the object is there for it to see.
      vi.spyOn(storage, 'remove').mockImplementationOnce(async () => undefined);
      await erase({ orgId: ORG_ID, userId: USER_ID, started });
      expect(storage.objects.size).toBe(1);
      vi.mocked(storage.remove).mockRestore();
    });

    const result = await worker(async () => PDF)(
      { orgId: ORG_ID, jobId: job.jobId },
      { isFinalAttempt: false, leaseMs: 60_000 },
    );

    expect(result).toEqual({ outcome: 'skipped', reason: 'lost-to-another-writer' });
    expect(await jobs.get(job.jobId)).toMatchObject({ status: 'FAILED', errorCode: 'USER_ERASED' });
    expect(storage.objects.size).toBe(0);
  });
});
