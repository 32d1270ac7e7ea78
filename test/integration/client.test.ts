import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  OnboardingApiClient,
  ReportTimedOutError,
  SEED_POLLING_SCHEDULE,
  UnauthorizedError,
  ValidationError,
  type ReportProgress,
  type UserStatusPage,
} from '#client/index.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { reportJobStore, seedOrganization, writeOpenJob } from '#test/support/report-support.ts';

/** The client against the local stack, as a user of the API would run it. */

let orgId: string;
let users: UserRecord[];
let client: OnboardingApiClient;
let dir: string;

beforeAll(async () => {
  orgId = uniqueOrg('client');
  // The demo organization's data set (300 users), in an organization of its own.
  users = await seedOrganization(orgId, 300);
  const token = await tokenFor(orgId);
  client = new OnboardingApiClient({ baseUrl: inject('baseUrl'), token });
  dir = await mkdtemp(path.join(tmpdir(), 'client-it-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('onboarding tokens', () => {
  it('creates a token, lists it, and refuses a second one for the same e-mail with a typed 409', async () => {
    const request = { email: `Ada.${orgId}@Example.com`, first_name: 'Ada', last_name: 'Lovelace' };

    const created = await client.createOnboardingToken(request);
    const page = await client.listOnboardingTokens({ limit: 5 });
    const conflict = await client.createOnboardingToken(request).catch((error: unknown) => error);

    expect(created.onboarding_token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(page.results[0]).toMatchObject({
      email: request.email.toLowerCase(),
      status: 'Issued',
      tokenHint: created.onboarding_token.slice(-4),
    });
    expect(conflict).toBeInstanceOf(ConflictError);
    expect((conflict as ConflictError).requestId).toEqual(expect.any(String));
    expect((conflict as ConflictError).standardBody).toMatchObject({
      code: 409,
      error: 'CONFLICT',
      path: '/v1/onboarding-token',
      method: 'POST',
    });
  });

  it('throws ValidationError listing every problem, and UnauthorizedError for a bad token', async () => {
    const invalid = await client
      .createOnboardingToken({ email: 'nope', first_name: '', last_name: 'x' })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).errors.map((problem) => problem.field).sort()).toEqual(['email', 'firstName']);

    const stranger = new OnboardingApiClient({ baseUrl: inject('baseUrl'), token: 'not-a-jwt' });
    await expect(stranger.listOnboardingTokens()).rejects.toBeInstanceOf(UnauthorizedError);
  });
});

describe('reports', () => {
  it('creates a report, waits for it on the seed’s schedule, downloads it and verifies its sha256', async () => {
    const [user] = users;
    const progress: ReportProgress[] = [];

    const created = await client.createReportJob({ userId: user!.id });
    const startedAt = Date.now();
    const job = await client.waitForReport(created.job.jobId, {
      job: created.job,
      onProgress: (p) => progress.push(p),
    });
    const waitedMs = Date.now() - startedAt;
    const target = path.join(dir, 'report.pdf');
    const downloaded = await client.downloadReport(job.jobId, target, { job });

    expect(created).toMatchObject({
      location: `/v1/document/api/${created.job.jobId}`,
      replayed: false,
      rateLimit: { limit: 10 },
    });
    // The local worker finishes in about a second; the first poll of the seed's schedule comes after 3-5 s.
    expect(waitedMs).toBeGreaterThanOrEqual(SEED_POLLING_SCHEDULE.initialIntervalMs[0] - 50);
    expect(waitedMs).toBeLessThan(SEED_POLLING_SCHEDULE.initialPhaseMs);
    expect(progress.at(0)?.status).toBe('PENDING');
    expect(progress.at(-1)?.status).toBe('COMPLETE');
    const bytes = await readFile(target);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(job.sha256);
    expect(downloaded).toMatchObject({ path: target, sizeBytes: job.sizeBytes, sha256: job.sha256, attempts: 1 });
    expect(downloaded.filename).toMatch(new RegExp(`^report-${user!.id}-\\d{8}\\.pdf$`));
  });

  it('waits on a faster schedule passed as an option, and treats a job stuck past the deadline as failed', async () => {
    const stuck = await writeOpenJob(reportJobStore(), { orgId, userId: users[1]!.id });
    const fast = {
      initialIntervalMs: [100, 150] as const,
      initialPhaseMs: 500,
      laterIntervalMs: [200, 250] as const,
      deadlineMs: 1_500,
    };

    const error = await client.waitForReport(stuck.jobId, { schedule: fast }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ReportTimedOutError);
    expect((error as ReportTimedOutError).lastJob?.status).toBe('PENDING');
  });

  it('stops waiting when the signal aborts', async () => {
    const stuck = await writeOpenJob(reportJobStore(), { orgId, userId: users[2]!.id });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('enough')), 200);
    await expect(client.waitForReport(stuck.jobId, { signal: controller.signal })).rejects.toThrow('enough');
  });

  it('throws NotFoundError and ForbiddenError for unknown and foreign jobs', async () => {
    await expect(client.getReportJob('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(NotFoundError);
    const foreign = await writeOpenJob(reportJobStore(), { orgId: uniqueOrg('elsewhere'), userId: 'x' });
    await expect(client.waitForReport(foreign.jobId)).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe('user status', () => {
  it('iterates every page of the demo data set: each record once, in order, as one big page has them', async () => {
    const pages: UserStatusPage[] = [];
    for await (const page of client.queryUserStatus({ result_keys: ['id', 'created_at'], pagination: { limit: 64 } }))
      pages.push(page);
    const whole = await client.queryUserStatusPage({ result_keys: ['id', 'created_at'], pagination: { limit: 1000 } });

    expect(pages.map((page) => page.results.length)).toEqual([64, 64, 64, 64, 44]);
    expect(pages.map((page) => page.pagination.offset)).toEqual([0, 64, 128, 192, 256]);
    const ids = pages.flatMap((page) => page.results.map((record) => record.id));
    expect(ids).toEqual(whole.results.map((record) => record.id));
    expect(new Set(ids)).toEqual(new Set(users.map((user) => user.id)));
  });

  it('iterates filtered records one by one', async () => {
    const adults: unknown[] = [];
    for await (const record of client.userStatusRecords({
      filters: { age: { gte: 18 } },
      result_keys: ['id', 'age'],
      pagination: { limit: 50 },
    })) {
      adults.push(record.age);
    }
    expect(adults.length).toBe(users.filter((user) => (user.age ?? 0) >= 18).length);
    expect(adults.every((age) => (age as number) >= 18)).toBe(true);
  });
});
