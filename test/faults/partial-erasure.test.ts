import { afterAll, describe, expect, it } from 'vitest';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { seedOrganization, waitForJob } from '#test/support/report-support.ts';
import { expectServiceUnavailable, fault, storedReports, timed } from './fault-support.ts';

/**
 * Contract §20: an erasure cut off half way is in the audit trail. S3 refuses (503) while
 * `DELETE /v1/users/{id}` removes a user's PDF: the erasure has already held the user's report
 * slot, so it stops half way with a 503, and the trail holds its `user.erasure_started` and no
 * `user.erased`. Once S3 is back the same call finishes it: the PDF, the job and the user are
 * gone, `user.erased` follows a second `user.erasure_started`, and a third call is 404.
 */
describe('an erasure cut off by S3 failing', () => {
  const orgId = uniqueOrg('erasefault');

  afterAll(async () => {
    await fault('s3', 'pass');
  });

  it('leaves user.erasure_started in the trail and finishes on the next call', async () => {
    const token = await tokenFor(orgId);
    const [person] = await seedOrganization(orgId, 1);
    const userId = person!.id;
    const requested = await callApi('POST', '/v1/document/api', { token, body: { userId } });
    expect(requested.status).toBe(202);
    const job = await waitForJob(requested.body.jobId as string, token, ['COMPLETE']);
    expect(await storedReports(orgId)).toHaveLength(1);
    const erase = () => callApi('DELETE', `/v1/users/${encodeURIComponent(userId)}`, { token });
    const trail = async () =>
      (await callApi('GET', `/v1/audit-events?targetId=${encodeURIComponent(userId)}&limit=10`, { token })).body
        .results as Array<{ action: string; outcome: string; occurredAt: string }>;

    await fault('s3', 'http-503');
    let cutOff;
    try {
      cutOff = await timed('erasure, S3 failing', erase());
    } finally {
      const s3 = await fault('s3', 'pass');
      expect(s3.refusedWith503, 'the erasure reached the failing S3').toBeGreaterThan(0);
    }
    expectServiceUnavailable(cutOff);
    expect((await trail()).map(({ action, outcome }) => [action, outcome])).toEqual([
      ['user.erasure_started', 'started'],
    ]);
    // Half way: the PDF and its job are still there for the next call to find.
    expect(await storedReports(orgId)).toHaveLength(1);
    expect((await callApi('GET', `/v1/document/api/${job.jobId}`, { token })).status).toBe(200);

    expect((await erase()).status).toBe(204);
    // Newest first: the finished erasure after the second start, after the first.
    expect((await trail()).map(({ action }) => action)).toEqual([
      'user.erased',
      'user.erasure_started',
      'user.erasure_started',
    ]);
    expect(await storedReports(orgId)).toEqual([]);
    expect((await callApi('GET', `/v1/document/api/${job.jobId}`, { token })).status).toBe(404);
    expect((await erase()).status).toBe(404);
  }, 90_000);
});
