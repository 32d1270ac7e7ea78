import { describe, expect, it } from 'vitest';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { reportJobStore, seedOrganization, waitForJob, writeOpenJob } from '#test/support/report-support.ts';

const LIST = '/v1/document/api';
const jobs = reportJobStore();

describe('GET /v1/document/api', () => {
  it("lists the organization's jobs newest first as status responses, pages with the cursor and filters by user", async () => {
    const orgId = uniqueOrg('listing');
    const users = await seedOrganization(orgId, 3);
    const token = await tokenFor(orgId);
    const created: string[] = [];
    for (const user of users) {
      const response = await callApi('POST', LIST, { token, body: { userId: user.id } });
      expect(response.status).toBe(202);
      created.push(response.body.jobId);
    }
    const finished = await Promise.all(created.map((jobId) => waitForJob(jobId, token)));

    const all = await callApi('GET', LIST, { token });
    expect(all.status).toBe(200);
    expect(all.headers.get('x-request-id')).toBeTruthy();
    expect(all.body).toEqual({ results: [...finished].reverse(), nextCursor: null });

    const first = await callApi('GET', `${LIST}?limit=2`, { token });
    expect(first.body.results.map((job: { jobId: string }) => job.jobId)).toEqual([created[2], created[1]]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await callApi('GET', `${LIST}?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`, {
      token,
    });
    expect(second.body).toEqual({ results: [finished[0]], nextCursor: null });

    const ofUser = await callApi('GET', `${LIST}?userId=${encodeURIComponent(users[1]!.id)}`, { token });
    expect(ofUser.body).toEqual({ results: [finished[1]], nextCursor: null });
  });

  it("never shows another organization's jobs, nor a job whose request has not confirmed it", async () => {
    const orgId = uniqueOrg('listing-own');
    const otherOrgId = uniqueOrg('listing-other');
    await writeOpenJob(jobs, { orgId: otherOrgId, userId: 'someone' });
    const provisional = await writeOpenJob(jobs, { orgId, userId: 'in-flight' });
    // writeOpenJob confirms nothing: mark it provisional as a request in flight would leave it.
    await jobs.createOpenJob({
      ...provisional,
      jobId: '0d5c7e9a-1b2c-4d3e-8f4a-5b6c7d8e9f0a',
      userId: 'in-flight-2',
      provisionalUntil: new Date(Date.now() + 60_000).toISOString(),
    });

    const listed = await callApi('GET', LIST, { token: await tokenFor(orgId) });

    expect(listed.status).toBe(200);
    expect(listed.body.results.map((job: { jobId: string }) => job.jobId)).toEqual([provisional.jobId]);
  });

  it('answers bad parameters with every problem at once, and a token without reports:read with 403', async () => {
    const orgId = uniqueOrg('listing-errors');
    const token = await tokenFor(orgId);

    const bad = await callApi('GET', `${LIST}?limit=0&userId=${'x'.repeat(17)}&cursor=nope`, { token });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['limit', 'userId']);

    const foreignCursor = Buffer.from(JSON.stringify({ sk: 'TOKEN#x' })).toString('base64url');
    const badCursor = await callApi('GET', `${LIST}?cursor=${foreignCursor}`, { token });
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.errors).toEqual([{ field: 'cursor', code: 'isIn', hint: expect.any(String) }]);

    const forbidden = await callApi('GET', LIST, { token: await tokenFor(orgId, { scopes: 'reports:write' }) });
    expect(forbidden.status).toBe(403);
  });
});
