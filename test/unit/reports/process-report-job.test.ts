import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import type { ReportRenderer, ReportSigner } from '#shared/domain/reports/ports.ts';
import { processReportJob, type ProcessingAttempt } from '#shared/domain/reports/process-report-job.ts';
import { REPORT_DEADLINE_MS, reportObjectKey, type ReportJob } from '#shared/domain/reports/report-job.ts';
import { ORG_ID, OTHER_ORG_ID, T0, USER_ID } from '#test/support/fixtures/defaults.ts';
import { reportJob, TEMPLATE_VERSION } from '#test/support/fixtures/report-jobs.ts';
import { user } from '#test/support/fixtures/users.ts';
import { FakeClock, FakeReportStorage, InMemoryReportJobStore, InMemoryUserDirectory } from './fakes.ts';

const PDF = new TextEncoder().encode('%PDF-1.7 fake report bytes %%EOF');
/** What the fake signer returns: the rendered bytes with a signature appended. */
const SIGNED_PDF = new TextEncoder().encode('%PDF-1.7 fake report bytes %%EOF signed');
const RENDER_MS = 1_200;
const firstAttempt: ProcessingAttempt = { isFinalAttempt: false, leaseMs: 60_000 };
const finalAttempt: ProcessingAttempt = { isFinalAttempt: true, leaseMs: 60_000 };

describe('processReportJob', () => {
  let clock: FakeClock;
  let jobs: InMemoryReportJobStore;
  let users: InMemoryUserDirectory;
  let storage: FakeReportStorage;
  let render: Mock<ReportRenderer>;
  let sign: Mock<ReportSigner>;
  let process: ReturnType<typeof processReportJob>;
  let job: ReportJob;

  const message = () => ({ orgId: job.orgId, jobId: job.jobId });
  const guard = () => jobs.guards.get(InMemoryReportJobStore.guardKey(ORG_ID, USER_ID));
  const stored = () => jobs.get(job.jobId);

  beforeEach(() => {
    clock = new FakeClock(T0);
    jobs = new InMemoryReportJobStore(clock);
    users = new InMemoryUserDirectory().add(ORG_ID, user());
    storage = new FakeReportStorage();
    render = vi.fn<ReportRenderer>(async () => {
      clock.advance(RENDER_MS);
      return PDF;
    });
    sign = vi.fn<ReportSigner>(async () => SIGNED_PDF);
    process = processReportJob({ jobs, users, storage, render, sign, clock, templateVersion: TEMPLATE_VERSION });
    job = jobs.seed(reportJob());
    clock.advance(500); // the message arrives half a second after the job was created
  });

  it('drops the message of a job its request gave up (never confirmed, past provisionalUntil): renders nothing, removes the job', async () => {
    jobs.jobs.clear();
    jobs.guards.clear();
    job = jobs.seed(reportJob({ provisionalUntil: new Date(T0.getTime() + 400).toISOString() }));

    const result = await process(message(), firstAttempt);

    expect(result).toEqual({ outcome: 'skipped', reason: 'void-job' });
    expect(render).not.toHaveBeenCalled();
    expect(await stored()).toBeUndefined();
    expect(guard()).toBeUndefined();
  });

  it('processes a job whose request is still confirming it (provisional, not yet void)', async () => {
    jobs.jobs.clear();
    jobs.guards.clear();
    job = jobs.seed(reportJob({ provisionalUntil: new Date(T0.getTime() + 9_000).toISOString() }));

    const result = await process(message(), firstAttempt);

    expect(result.outcome).toBe('completed');
  });

  it('stores nothing for a job the sweep failed while it was being rendered', async () => {
    render.mockImplementation(async () => {
      await jobs.fail((await stored())!, 'TIMED_OUT', clock.now());
      return PDF;
    });

    const result = await process(message(), firstAttempt);

    expect(result).toEqual({ outcome: 'skipped', reason: 'lost-to-another-writer' });
    expect(storage.objects.size).toBe(0);
    expect((await stored())?.errorCode).toBe('TIMED_OUT');
  });

  it('removes the PDF it stored when the job was failed during the upload, leaving no orphan object', async () => {
    const save = storage.save.bind(storage);
    vi.spyOn(storage, 'save').mockImplementation(async (key, pdf, sha256) => {
      await save(key, pdf, sha256);
      await jobs.fail((await stored())!, 'TIMED_OUT', clock.now());
    });

    const result = await process(message(), firstAttempt);

    expect(result).toEqual({ outcome: 'skipped', reason: 'lost-to-another-writer' });
    expect(storage.objects.has(reportObjectKey(ORG_ID, job.jobId))).toBe(false);
  });

  it('removes the PDF it stored when the job was deleted during the upload (a sandbox wipe), leaving no orphan object', async () => {
    const save = storage.save.bind(storage);
    vi.spyOn(storage, 'save').mockImplementation(async (key, pdf, sha256) => {
      await save(key, pdf, sha256);
      jobs.jobs.clear();
    });

    const result = await process(message(), firstAttempt);

    expect(result).toEqual({ outcome: 'skipped', reason: 'lost-to-another-writer' });
    expect(storage.objects.has(reportObjectKey(ORG_ID, job.jobId))).toBe(false);
  });

  it('renders a PENDING job, signs it, stores the signed PDF and marks it COMPLETE with its size, SHA-256, duration and template version', async () => {
    const startedAt = clock.now();

    const result = await process(message(), firstAttempt);

    expect(result.outcome).toBe('completed');
    expect(sign).toHaveBeenCalledExactlyOnceWith(PDF, new Date(T0.getTime() + 500), 'live');
    const sha256 = createHash('sha256').update(SIGNED_PDF).digest('hex');
    expect(await stored()).toMatchObject({
      status: 'COMPLETE',
      sizeBytes: SIGNED_PDF.byteLength,
      sha256,
      templateVersion: TEMPLATE_VERSION,
      durationMs: RENDER_MS,
      startedAt: startedAt.toISOString(),
      completedAt: clock.now().toISOString(),
      updatedAt: clock.now().toISOString(),
    });
    expect(storage.objects.get(reportObjectKey(ORG_ID, job.jobId))).toEqual({ pdf: SIGNED_PDF, sha256Hex: sha256 });
  });

  it("releases the user's open-job guard when it completes", async () => {
    expect(guard()).toBeDefined();

    await process(message(), firstAttempt);

    expect(guard()).toBeUndefined();
  });

  it("renders with the user, the user's organization name, the job id and the clock time", async () => {
    await process(message(), firstAttempt);

    expect(render).toHaveBeenCalledTimes(1);
    expect(render).toHaveBeenCalledWith({
      user: user(),
      organizationName: 'Acme Ltd',
      jobId: job.jobId,
      generatedAt: new Date(T0.getTime() + 500),
    });
  });

  it("renders with the requester's sub the job recorded", async () => {
    jobs.jobs.clear();
    jobs.guards.clear();
    job = jobs.seed(reportJob({ requestedBy: 'auth0|req-42' }));

    await process(message(), firstAttempt);

    expect(render).toHaveBeenCalledWith(expect.objectContaining({ requestedBy: 'auth0|req-42' }));
  });

  it('falls back to the organization id when the user record has no organization name', async () => {
    users.add(ORG_ID, user({ organization_name: undefined }));

    await process(message(), firstAttempt);

    expect(render).toHaveBeenCalledWith(expect.objectContaining({ organizationName: ORG_ID }));
  });

  it("skips a duplicate message for a COMPLETE job as 'already-finished' without rendering again", async () => {
    await process(message(), firstAttempt);
    render.mockClear();
    const completed = await stored();

    const result = await process(message(), firstAttempt);

    expect(result).toEqual({ outcome: 'skipped', reason: 'already-finished' });
    expect(render).not.toHaveBeenCalled();
    expect(await stored()).toEqual(completed);
  });

  it("skips a message for a FAILED job as 'already-finished'", async () => {
    job = jobs.seed(
      reportJob({
        jobId: '2c5ea4c0-4067-4fb5-8f38-5b3d8a0a2e11',
        userId: 'user-9',
        status: 'FAILED',
        errorCode: 'RENDER_FAILED',
      }),
    );

    const result = await process(message(), firstAttempt);

    expect(result).toEqual({ outcome: 'skipped', reason: 'already-finished' });
    expect(render).not.toHaveBeenCalled();
  });

  it('skips a job another attempt holds under a live lease, without rendering', async () => {
    await jobs.start(job.jobId, { attemptId: 'other-attempt', now: clock.now(), leaseMs: 60_000 });
    clock.advance(59_000);

    const result = await process(message(), firstAttempt);

    expect(result).toEqual({ outcome: 'skipped', reason: 'taken-by-another-attempt' });
    expect(render).not.toHaveBeenCalled();
    expect(await stored()).toMatchObject({ status: 'IN_PROGRESS', attemptId: 'other-attempt' });
  });

  it('takes over a job whose previous attempt let its lease run out, and completes it', async () => {
    await jobs.start(job.jobId, { attemptId: 'dead-attempt', now: clock.now(), leaseMs: 30_000 });
    clock.advance(30_001);

    const result = await process(message(), firstAttempt);

    expect(result.outcome).toBe('completed');
    expect(render).toHaveBeenCalledTimes(1);
    const completed = await stored();
    expect(completed).toMatchObject({ status: 'COMPLETE' });
    expect(completed?.attemptId).not.toBe('dead-attempt');
  });

  it('gives the lease of this attempt to the store', async () => {
    const start = vi.spyOn(jobs, 'start');

    await process(message(), { isFinalAttempt: false, leaseMs: 12_345 });

    expect(start).toHaveBeenCalledWith(job.jobId, {
      attemptId: expect.any(String),
      now: new Date(T0.getTime() + 500),
      leaseMs: 12_345,
    });
  });

  it('fails the job with USER_NOT_FOUND when the user has gone, without rendering', async () => {
    users = new InMemoryUserDirectory();
    process = processReportJob({ jobs, users, storage, render, sign, clock, templateVersion: TEMPLATE_VERSION });

    const result = await process(message(), firstAttempt);

    expect(result).toMatchObject({ outcome: 'failed', errorCode: 'USER_NOT_FOUND' });
    expect(await stored()).toMatchObject({ status: 'FAILED', errorCode: 'USER_NOT_FOUND' });
    expect(render).not.toHaveBeenCalled();
    expect(guard()).toBeUndefined();
  });

  it('fails the job with RENDER_FAILED when the renderer throws, and stores nothing', async () => {
    const fontMissing = new Error('font missing');
    render.mockRejectedValueOnce(fontMissing);

    const result = await process(message(), firstAttempt);

    expect(result).toMatchObject({ outcome: 'failed', errorCode: 'RENDER_FAILED', cause: fontMissing });
    expect(await stored()).toMatchObject({ status: 'FAILED', errorCode: 'RENDER_FAILED' });
    expect(storage.objects.size).toBe(0);
    expect(guard()).toBeUndefined();
  });

  it('gives the job back (PENDING), stores nothing and rethrows when the signing key is unavailable on a non-final attempt', async () => {
    const unavailable = new DependencyUnavailableError('key management');
    sign.mockRejectedValueOnce(unavailable);

    await expect(process(message(), firstAttempt)).rejects.toBe(unavailable);

    expect(await stored()).toMatchObject({ status: 'PENDING' });
    expect(storage.objects.size).toBe(0);
    expect(guard()?.jobId).toBe(job.jobId);
  });

  it('lets the retry of the message complete, signed, a job given back while the signing key was unavailable', async () => {
    sign.mockRejectedValueOnce(new DependencyUnavailableError('key management'));
    await process(message(), firstAttempt).catch(() => undefined);

    const result = await process(message(), firstAttempt);

    expect(result.outcome).toBe('completed');
    expect(storage.objects.get(reportObjectKey(ORG_ID, job.jobId))?.pdf).toEqual(SIGNED_PDF);
  });

  it('fails the job with RENDER_FAILED, storing nothing, when the signing key is still unavailable on the final attempt', async () => {
    sign.mockRejectedValueOnce(new DependencyUnavailableError('key management'));

    const result = await process(message(), finalAttempt);

    expect(result).toMatchObject({ outcome: 'failed', errorCode: 'RENDER_FAILED' });
    expect(await stored()).toMatchObject({ status: 'FAILED', errorCode: 'RENDER_FAILED' });
    expect(storage.objects.size).toBe(0);
  });

  it('fails the job with RENDER_FAILED at once, storing nothing, when the report cannot be signed (an expired certificate)', async () => {
    const expired = new Error('the report signing certificate has expired');
    sign.mockRejectedValueOnce(expired);

    const result = await process(message(), firstAttempt);

    expect(result).toMatchObject({ outcome: 'failed', errorCode: 'RENDER_FAILED', cause: expired });
    expect(storage.objects.size).toBe(0);
    expect(guard()).toBeUndefined();
  });

  it('gives the job back (PENDING) and rethrows when storage is unavailable on a non-final attempt', async () => {
    const unavailable = new DependencyUnavailableError('storage');
    storage.saveFailure = unavailable;

    await expect(process(message(), firstAttempt)).rejects.toBe(unavailable);

    const released = await stored();
    expect(released).toMatchObject({ status: 'PENDING' });
    expect(released).not.toHaveProperty('attemptId');
    expect(released).not.toHaveProperty('leaseExpiresAt');
    expect(guard()?.jobId).toBe(job.jobId);
  });

  it('lets the retry of the message complete a job given back after a storage outage', async () => {
    storage.saveFailure = new DependencyUnavailableError('storage');
    await process(message(), firstAttempt).catch(() => undefined);
    storage.saveFailure = undefined;

    const result = await process(message(), firstAttempt);

    expect(result.outcome).toBe('completed');
    expect(render).toHaveBeenCalledTimes(2);
  });

  it('fails the job with STORAGE_FAILED when storage is unavailable on the final attempt', async () => {
    storage.saveFailure = new DependencyUnavailableError('storage');

    const result = await process(message(), finalAttempt);

    expect(result).toMatchObject({ outcome: 'failed', errorCode: 'STORAGE_FAILED' });
    expect(await stored()).toMatchObject({ status: 'FAILED', errorCode: 'STORAGE_FAILED' });
    expect(guard()).toBeUndefined();
  });

  it('fails the job with STORAGE_FAILED at once when storage fails permanently', async () => {
    const accessDenied = Object.assign(new Error('Access Denied'), { name: 'AccessDenied' });
    storage.saveFailure = accessDenied;

    const result = await process(message(), firstAttempt);

    expect(result).toMatchObject({ outcome: 'failed', errorCode: 'STORAGE_FAILED', cause: accessDenied });
    expect(await stored()).toMatchObject({ status: 'FAILED', errorCode: 'STORAGE_FAILED', durationMs: RENDER_MS });
  });

  it('fails a job past its 5-minute deadline with TIMED_OUT without rendering', async () => {
    clock.advance(REPORT_DEADLINE_MS - 500);

    const result = await process(message(), firstAttempt);

    expect(result).toMatchObject({ outcome: 'failed', errorCode: 'TIMED_OUT' });
    expect(await stored()).toMatchObject({ status: 'FAILED', errorCode: 'TIMED_OUT' });
    expect(render).not.toHaveBeenCalled();
    expect(guard()).toBeUndefined();
  });

  it('still processes a job 1 ms before its deadline', async () => {
    clock.advance(REPORT_DEADLINE_MS - 501);

    const result = await process(message(), firstAttempt);

    expect(result.outcome).toBe('completed');
  });

  it("skips a message whose orgId differs from the job's as 'unknown-job', touching nothing", async () => {
    const before = await stored();

    const result = await process({ orgId: OTHER_ORG_ID, jobId: job.jobId }, firstAttempt);

    expect(result).toEqual({ outcome: 'skipped', reason: 'unknown-job' });
    expect(render).not.toHaveBeenCalled();
    expect(await stored()).toEqual(before);
  });

  it("skips a message for a job that does not exist as 'unknown-job'", async () => {
    const result = await process({ orgId: ORG_ID, jobId: 'a8098c1a-f86e-41d5-9c4b-0e2f3b7a6d10' }, firstAttempt);

    expect(result).toEqual({ outcome: 'skipped', reason: 'unknown-job' });
    expect(render).not.toHaveBeenCalled();
  });

  it("reports 'lost-to-another-writer' when the job was finished elsewhere while rendering", async () => {
    render.mockImplementationOnce(async () => {
      await jobs.fail((await stored())!, 'TIMED_OUT', clock.now());
      return PDF;
    });

    const result = await process(message(), firstAttempt);

    expect(result).toEqual({ outcome: 'skipped', reason: 'lost-to-another-writer' });
    expect(await stored()).toMatchObject({ status: 'FAILED', errorCode: 'TIMED_OUT' });
  });
});
