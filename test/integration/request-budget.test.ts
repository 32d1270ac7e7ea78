import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import { leaseSize, overAdmissionBound } from '#shared/domain/limits/request-budget.ts';
import { apiEvent } from '#test/support/api-event.ts';
import { tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { coldStart, lambdaContext } from '#test/support/report-support.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';

/**
 * Contract §15's request budget on DynamoDB Local, through real function modules: each
 * `coldStart` is one container (its own module instance, its own leases), both spending the same
 * organization's bucket in the stack's RequestBudgets table. Budget here: 1 request per second,
 * bursts of 20, so leases of 2.
 */
const BUDGET = { REQUEST_BUDGET_RATE: '1', REQUEST_BUDGET_BURST: '20' };
const policy = { ratePerSecond: 1, burst: 20 };

type ApiHandler = (
  event: APIGatewayProxyEventV2,
  context: ReturnType<typeof lambdaContext>,
) => Promise<APIGatewayProxyStructuredResultV2>;

async function containers(count: number): Promise<ApiHandler[]> {
  const handlers: ApiHandler[] = [];
  for (let i = 0; i < count; i++) {
    const started = await coldStart<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(
      'list-webhook-endpoints',
      BUDGET,
    );
    handlers.push(started.handler as ApiHandler);
  }
  return handlers;
}

/** A token of a fresh organization, from the issuer the stack's functions trust. */
const organizationToken = (prefix: string) => tokenFor(uniqueOrg(prefix), { issuer: inject('localEnv').JWT_ISSUER });

const listEndpoints = (handler: ApiHandler, token: string) =>
  handler(
    apiEvent({ method: 'GET', path: '/v1/webhooks', headers: { authorization: `Bearer ${token}` } }),
    lambdaContext('ListWebhookEndpoints', 10_000),
  );

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

describe('each organization’s request budget (1 per second, bursts of 20, two containers)', () => {
  it('with time standing still: of 40 parallel requests of one organization over two containers exactly 20 pass, the rest 429; another organization’s 20 all pass', async () => {
    expect(leaseSize(policy)).toBe(2);
    const [first, second] = await containers(2);
    const noisy = await organizationToken('budget-noisy');
    const quiet = await organizationToken('budget-quiet');
    // No refill during the test: the bound is then the burst itself, with no excess at all.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });

    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => listEndpoints(i % 2 === 0 ? first! : second!, noisy)),
    );
    const quietAnswers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => listEndpoints(i % 2 === 0 ? first! : second!, quiet)),
    );

    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(20);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    for (const refused of answers.filter((answer) => answer.statusCode === 429)) {
      expect(JSON.parse(refused.body ?? '')).toEqual({
        code: 429,
        timestamp: expect.any(String),
        path: '/v1/webhooks',
        method: 'GET',
        error: 'TOO_MANY_REQUESTS',
        message: expect.any(String),
      });
      expect(refused.headers).toMatchObject({
        'ratelimit-limit': '20',
        'ratelimit-remaining': '0',
        'retry-after': '1',
      });
    }
    expect(quietAnswers.map((answer) => answer.statusCode)).toEqual(Array.from({ length: 20 }, () => 200));
  });

  it('with a running clock: 60 parallel requests over two containers admit at least the burst and at most burst + rate x elapsed (+ 0 carried leases from a full bucket)', async () => {
    const [first, second] = await containers(2);
    const token = await organizationToken('budget-clock');
    const startedAt = Date.now();

    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => listEndpoints(i % 2 === 0 ? first! : second!, token)),
    );
    const elapsedMs = Date.now() - startedAt;

    const passed = answers.filter((answer) => answer.statusCode === 200).length;
    expect(answers.every((answer) => answer.statusCode === 200 || answer.statusCode === 429)).toBe(true);
    expect(passed).toBeGreaterThanOrEqual(20);
    // A bucket full at the start carries no lease into the interval: the containers' term is 0.
    expect(passed).toBeLessThanOrEqual(overAdmissionBound(policy, elapsedMs, 0));
  });
});

describe('the budget weighted by cost (contract §19: 1 unit, plus 1 per 100 ms of database time)', () => {
  const DATABASE_HOLD_MS = 400;
  let admin: PostgresUsersDatabase;
  beforeAll(() => {
    admin = usersDatabaseAsAdmin();
  });
  afterAll(() => admin.close());

  const queryUsers = (handler: ApiHandler, token: string) =>
    handler(
      apiEvent({
        method: 'POST',
        path: '/v1/user-status',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ filters: { city: 'Nowhere' }, pagination: { limit: 10, offset: 5_000 } }),
      }),
      lambdaContext('QueryUserStatus', 10_000),
    );

  /**
   * One request whose statements the database holds `DATABASE_HOLD_MS` (a lock on the users table
   * the test takes first and keeps that long): the database time of a slow scan, made certain.
   */
  async function heldByTheDatabase(request: () => Promise<APIGatewayProxyStructuredResultV2>) {
    let answer: Promise<APIGatewayProxyStructuredResultV2> | undefined;
    await admin.transaction(async (run) => {
      await run.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
      answer = request();
      await new Promise((resolve) => setTimeout(resolve, DATABASE_HOLD_MS));
    });
    return answer!;
  }

  it('with time standing still, refuses a flood of slow queries sooner than a flood of quick ones (burst 20)', async () => {
    const { handler } = await coldStart<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(
      'query-user-status',
      BUDGET,
    );
    const quick = await organizationToken('cost-quick');
    const slow = await organizationToken('cost-slow');
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });

    const admittedUntilRefused = async (send: () => Promise<APIGatewayProxyStructuredResultV2>) => {
      const statuses: number[] = [];
      for (let i = 0; i < 30 && !statuses.includes(429); i++) statuses.push((await send()).statusCode ?? 0);
      expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
      return statuses.filter((status) => status === 200).length;
    };

    const quickAdmitted = await admittedUntilRefused(() => queryUsers(handler as ApiHandler, quick));
    const slowAdmitted = await admittedUntilRefused(() =>
      heldByTheDatabase(() => queryUsers(handler as ApiHandler, slow)),
    );

    // Quick: 1 unit each, the whole burst. Slow: at least 100 ms of database time each, at least
    // 2 units, so at most half the burst; with the lock's 400 ms, about 5 units each.
    expect(quickAdmitted).toBe(20);
    expect(slowAdmitted).toBeGreaterThanOrEqual(1);
    expect(slowAdmitted).toBeLessThanOrEqual(10);
  }, 120_000);

  it('charges a flood’s queries while they run: once its burst is spent they are cut (429, gone from the database) within a second, while another organization’s query held as long is not', async () => {
    const { handler } = await coldStart<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(
      'query-user-status',
      BUDGET,
    );
    const flooding = await organizationToken('cost-running-flood');
    const other = await organizationToken('cost-running-other');
    // Both organizations' queries wait on the test's lock, and are charged as they wait: the
    // flood's 12 spend 12 units when admitted and 12 more per 100 ms, past its burst of 20 within
    // about 100 ms of waiting; the other's one spends 1 unit per 100 ms, its 20 in about 2 s.
    let flood: APIGatewayProxyStructuredResultV2[] = [];
    let floodMs = 0;
    let otherAnswer: Promise<APIGatewayProxyStructuredResultV2> | undefined;
    const waitingOnTheLock: number[] = [];
    await admin.transaction(async (run) => {
      await run.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
      const blocked = async () =>
        (
          await run.query<{ count: number }>(
            'SELECT count(*)::int AS count FROM pg_stat_activity WHERE pg_blocking_pids(pid) @> ARRAY[pg_backend_pid()]',
          )
        )[0]!.count;
      const startedAt = performance.now();
      otherAnswer = queryUsers(handler as ApiHandler, other);
      flood = await Promise.all(Array.from({ length: 12 }, () => queryUsers(handler as ApiHandler, flooding)));
      floodMs = performance.now() - startedAt;
      // The server cancels the flood's statements a moment after their answers: wait for it, at most a second.
      for (let polls = 0; polls < 20; polls++) {
        waitingOnTheLock.push(await blocked());
        if (waitingOnTheLock.at(-1)! <= 1) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
    const others = await otherAnswer!;

    // Cut while the lock still held them (uncut, they would have waited for the request's deadline, 9 s).
    expect(flood.map((answer) => answer.statusCode)).toEqual(Array.from({ length: 12 }, () => 429));
    expect(floodMs).toBeLessThan(3_000);
    for (const refused of flood) {
      expect(JSON.parse(refused.body ?? '')).toMatchObject({ code: 429, error: 'TOO_MANY_REQUESTS' });
      expect(Number(refused.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // Then only the other organization's query was still waiting on the lock, and it answered once the lock went.
    expect(waitingOnTheLock.at(-1)).toBe(1);
    expect(others.statusCode).toBe(200);
  }, 60_000);
});
