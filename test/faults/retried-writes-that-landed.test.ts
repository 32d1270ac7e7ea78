import { beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPT_TIMEOUT_MS } from '#shared/adapters/aws-clients.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { seedOrganization } from '#test/support/report-support.ts';
import { finalJobs, FUNCTION_TIMEOUT_MS, timed, withOneHungAttempt } from './fault-support.ts';

/**
 * Gray failures whose write landed: DynamoDB applies one conditional write, but its answer never
 * comes back (the proxy's `hang-then-land-next-request`), so the SDK cuts the attempt off at its
 * attempt timeout and sends the write again. The retry meets the item its own call wrote and fails
 * its condition. Each write must take that as done (shared/adapters/dynamodb/write-once.ts), not
 * as a conflict: before it did, an erasure answered 503, a worker skipped its own job and left it
 * IN_PROGRESS, and a report request spent two units of its rate limit.
 */

/** The attempt timeout, the SDK's backoff and the retried call, on two busy cores. */
const RETRIED_WITHIN_MS = ATTEMPT_TIMEOUT_MS.dynamoDbItem + 3_000;

/** An organization of its own for each test (each erases, spends or takes something): its token and its one user. */
async function organization(prefix: string): Promise<{ token: string; userId: string }> {
  const orgId = uniqueOrg(prefix);
  const [user] = await seedOrganization(orgId, 1);
  return { token: await tokenFor(orgId), userId: user!.id };
}

describe('one conditional write lands, its answer is lost, the retry meets it', () => {
  // The functions warm, so each answer below is the hang and its retry alone.
  beforeAll(async () => {
    const { token, userId } = await organization('landed-warm-up');
    const [requested, erased, created] = await Promise.all([
      callApi('POST', '/v1/document/api', { token, body: { userId } }),
      callApi('DELETE', '/v1/users/no-such-user', { token }),
      callApi('POST', '/v1/onboarding-token', {
        token,
        body: { email: 'landed-warm-up@example.com', first_name: 'Warm', last_name: 'Up' },
      }),
    ]);
    expect([requested.status, erased.status, created.status]).toEqual([202, 404, 201]);
    await finalJobs(token, [requested.body.jobId as string], 30_000);
  }, 60_000);

  it('an erasure goes on (204) when its user.erasure_started landed unanswered, and the trail holds it once', async () => {
    const { token, userId } = await organization('landed-erasure');

    const erased = await withOneHungAttempt(
      'dynamodb',
      'user.erasure_started',
      () => timed('erase', callApi('DELETE', `/v1/users/${encodeURIComponent(userId)}`, { token })),
      'hang-then-land-next-request',
    );

    expect(erased.status, JSON.stringify(erased.body)).toBe(204);
    expect(erased.elapsedMs).toBeLessThan(RETRIED_WITHIN_MS);
    const trail = await callApi('GET', `/v1/audit-events?targetId=${encodeURIComponent(userId)}&limit=10`, { token });
    expect((trail.body.results as Array<{ action: string }>).map(({ action }) => action)).toEqual([
      'user.erased',
      'user.erasure_started',
    ]);
  });

  it('a worker whose start landed unanswered completes its job instead of skipping it as another’s', async () => {
    const { token, userId } = await organization('landed-worker');

    const [job] = await withOneHungAttempt(
      'dynamodb',
      ':leaseExpiresAt',
      async () => {
        const requested = await callApi('POST', '/v1/document/api', { token, body: { userId } });
        expect(requested.status, JSON.stringify(requested.body)).toBe(202);
        // Skipped, the job would stay IN_PROGRESS until the sweep times it out, minutes later.
        return finalJobs(token, [requested.body.jobId as string], 30_000);
      },
      'hang-then-land-next-request',
    );

    expect(job).toMatchObject({ status: 'COMPLETE' });
  });

  it('a report request whose rate-limit spend landed unanswered spends one unit, not two', async () => {
    const { token, userId } = await organization('landed-limit');

    const requested = await withOneHungAttempt(
      'dynamodb',
      'spentAt',
      () => timed('report', callApi('POST', '/v1/document/api', { token, body: { userId } })),
      'hang-then-land-next-request',
    );

    expect(requested.status, JSON.stringify(requested.body)).toBe(202);
    expect(requested.elapsedMs).toBeLessThan(FUNCTION_TIMEOUT_MS);
    const limit = Number(requested.headers.get('ratelimit-limit'));
    expect(requested.headers.get('ratelimit-remaining')).toBe(String(limit - 1));
    await finalJobs(token, [requested.body.jobId as string], 30_000);
  });

  it('a token create whose transaction landed unanswered is created once (201): its retry carries the same ClientRequestToken', async () => {
    const { token } = await organization('landed-token');
    const email = 'landed-transaction@example.com';

    const created = await withOneHungAttempt(
      'dynamodb',
      'DynamoDB_20120810.TransactWriteItems',
      () =>
        timed(
          email,
          callApi('POST', '/v1/onboarding-token', { token, body: { email, first_name: 'Landed', last_name: 'Once' } }),
        ),
      'hang-then-land-next-request',
    );

    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.elapsedMs).toBeLessThan(RETRIED_WITHIN_MS);
    const listed = await callApi('GET', '/v1/onboarding-tokens?limit=100', { token });
    expect((listed.body.results as Array<{ email: string }>).filter((item) => item.email === email)).toHaveLength(1);
  });
});
