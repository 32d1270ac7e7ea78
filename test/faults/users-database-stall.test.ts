import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { childProcessIds } from '#local/users-postgres.ts';
import { callApi, tokenFor, uniqueOrg, type ApiResponse } from '#test/support/api-client.ts';
import { seedOrganization } from '#test/support/report-support.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';

/**
 * The users table's PostgreSQL is paused (SIGSTOP to the postmaster and every backend, so both
 * open connections and new ones hang) while user-status queries and report requests flow, then
 * resumed. The contract (§7, §13): every answer within the function's 10 s, a 503 with
 * Retry-After in the contract's shape, nothing half done; once it answers again, so does the API.
 * A restart that drops every connection is survived without an error: the pool opens new ones.
 */

const FUNCTION_TIMEOUT_MS = 10_000;

const postgresProcesses = () => {
  const postmaster = inject('usersDatabase').processId;
  return [postmaster, ...childProcessIds(postmaster)];
};
const signalAll = (signal: NodeJS.Signals) => {
  for (const pid of postgresProcesses()) {
    try {
      process.kill(pid, signal);
    } catch {
      // a backend that ended meanwhile
    }
  }
};

async function timed(label: string, call: Promise<ApiResponse>) {
  const startedAt = Date.now();
  const response = await call;
  return { ...response, label, elapsedMs: Date.now() - startedAt };
}

describe('the users database paused while requests flow', () => {
  const orgId = uniqueOrg('sqlstall');
  let token: string;
  let userIds: string[];
  let stalled: Array<Awaited<ReturnType<typeof timed>>>;

  beforeAll(async () => {
    token = await tokenFor(orgId);
    userIds = (await seedOrganization(orgId, 3)).map((user) => user.id);
    // Warm the functions and their connections first: the stall must hit open connections too.
    expect((await callApi('POST', '/v1/user-status', { token, body: {} })).status).toBe(200);

    signalAll('SIGSTOP');
    try {
      stalled = await Promise.all([
        timed('user status', callApi('POST', '/v1/user-status', { token, body: { filters: { city: 'Berlin' } } })),
        timed('user status, no filter', callApi('POST', '/v1/user-status', { token, body: {} })),
        ...userIds.map((userId) =>
          timed(`create report ${userId}`, callApi('POST', '/v1/document/api', { token, body: { userId } })),
        ),
      ]);
    } finally {
      signalAll('SIGCONT');
    }
  }, 90_000);

  afterAll(() => signalAll('SIGCONT'));

  it('answers every request before the function timeout with the contract’s 503 and a Retry-After', () => {
    for (const response of stalled) {
      expect.soft(response.elapsedMs, response.label).toBeLessThan(FUNCTION_TIMEOUT_MS);
      expect.soft(response.status, response.label).toBe(503);
      expect.soft(response.body, response.label).toMatchObject({
        code: 503,
        error: 'SERVICE_UNAVAILABLE',
        message: 'a dependency is temporarily unavailable; retry later',
      });
      const retryAfter = Number(response.headers.get('retry-after'));
      expect.soft(retryAfter, response.label).toBeGreaterThanOrEqual(2);
      expect.soft(retryAfter, response.label).toBeLessThanOrEqual(30);
    }
  });

  it('left no report job behind, and answers again once the database does', async () => {
    await expect
      .poll(async () => (await callApi('POST', '/v1/user-status', { token, body: {} })).status, {
        timeout: 20_000,
        interval: 500,
      })
      .toBe(200);

    const listed = await callApi('GET', '/v1/document/api?limit=100', { token });
    expect(listed.status).toBe(200);
    expect(listed.body.results).toEqual([]);
    for (const userId of userIds) {
      const retried = await callApi('POST', '/v1/document/api', { token, body: { userId } });
      expect.soft(retried.status, userId).toBe(202);
    }
  });

  it('survives a restart that drops every connection: the next requests open new ones', async () => {
    const admin = usersDatabaseAsAdmin();
    try {
      const ended = await admin.query<{ ended: boolean }>(
        'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE usename = $1',
        [inject('usersDatabase').reader.user],
      );
      expect(ended.length).toBeGreaterThan(0);
      // pg_terminate_backend only signals: wait for the backends to be gone, so the pooled
      // connections' close reaches the functions (through the tier's fault proxy) before the requests do.
      await expect
        .poll(
          async () =>
            (
              await admin.query<{ open: number }>(
                'SELECT count(*)::integer AS open FROM pg_stat_activity WHERE usename = $1',
                [inject('usersDatabase').reader.user],
              )
            )[0]!.open,
          { timeout: 5_000, interval: 50 },
        )
        .toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await admin.close();
    }

    const responses = await Promise.all(
      Array.from({ length: 4 }, () => callApi('POST', '/v1/user-status', { token, body: {} })),
    );

    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect(responses[0]!.body.pagination.total).toBe(3);
  });
});
