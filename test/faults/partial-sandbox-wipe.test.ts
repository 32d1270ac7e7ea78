import { afterAll, describe, expect, inject, it } from 'vitest';
import { DynamoDbSandboxWipes } from '#shared/adapters/dynamodb/sandbox-wipes.ts';
import { tenantKey } from '#shared/domain/identity/tenant.ts';
import { SCENARIO_IDS } from '#shared/domain/sandbox/scenarios.ts';
import { callApi, sandboxTokenFor, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { documentClient, seedOrganization, waitForJob } from '#test/support/report-support.ts';
import { fault, storedReports } from './fault-support.ts';

/**
 * DELETE /v1/sandbox cut off half way (docs/sandbox.md "Wiping a sandbox"): S3 answers 503 while the
 * consumer reaches the sandbox's report folder, after it has deleted the tokens and the jobs and
 * before the users. The run fails, its message comes back after the queue's visibility timeout, and
 * with S3 back the next run finishes the wipe. Live data is untouched throughout.
 */
describe('a sandbox wipe cut off by S3 failing', () => {
  const orgId = uniqueOrg('wipefault');
  const sandboxKey = tenantKey({ orgId, mode: 'sandbox' });

  afterAll(async () => {
    await fault('s3', 'pass');
  });

  const seed = async (key: string, token: string) => {
    const [user] = await seedOrganization(key, 2);
    const issued = await callApi('POST', '/v1/onboarding-token', {
      token,
      body: { email: `fault-${key.replace('~', '-')}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
    });
    expect(issued.status).toBe(201);
    const requested = await callApi('POST', '/v1/document/api', { token, body: { userId: user!.id } });
    expect(requested.status).toBe(202);
    return waitForJob(requested.body.jobId as string, token, ['COMPLETE']);
  };
  const userIds = async (token: string) =>
    (
      (
        await callApi('POST', '/v1/user-status', {
          token,
          body: { filters: {}, result_keys: ['id'], pagination: { limit: 100 } },
        })
      ).body.results as Array<{ id: string }>
    )
      .map(({ id }) => id)
      .sort();
  const listed = async (path: string, token: string) =>
    ((await callApi('GET', path, { token })).body.results as unknown[]).length;

  it('stops half way and is finished by the redelivered message; live is untouched', async () => {
    const live = await tokenFor(orgId);
    const sandbox = await sandboxTokenFor(orgId);
    const liveJob = await seed(orgId, live);
    await seed(sandboxKey, sandbox);
    const liveUsers = await userIds(live);
    const liveReports = await storedReports(orgId);
    expect(liveReports).toHaveLength(1);
    const wipes = new DynamoDbSandboxWipes(documentClient(), inject('localEnv').REPORT_JOBS_TABLE_NAME!);

    const refusedBefore = (await fault('s3', 'http-503')).refusedWith503;
    try {
      const wipe = await callApi('DELETE', '/v1/sandbox', { token: sandbox });
      expect(wipe.status).toBe(202);
      // The run reaches the report folder, which S3 refuses.
      await expect
        .poll(async () => (await fault('s3', 'http-503')).refusedWith503, { timeout: 30_000, interval: 200 })
        .toBeGreaterThan(refusedBefore);
      // Half way: tokens and jobs gone, the PDF and the users (later stores) still there, the wipe still running.
      expect(await listed('/v1/onboarding-tokens', sandbox)).toBe(0);
      expect(await listed('/v1/document/api', sandbox)).toBe(0);
      expect(await storedReports(sandboxKey)).toHaveLength(1);
      expect((await userIds(sandbox)).length).toBe(SCENARIO_IDS.length + 2);
      expect((await wipes.get(sandboxKey))?.status).toBe('RUNNING');
    } finally {
      await fault('s3', 'pass');
    }

    await expect
      .poll(async () => (await wipes.get(sandboxKey))?.status, { timeout: 60_000, interval: 500 })
      .toBe('DONE');
    expect(await storedReports(sandboxKey)).toEqual([]);
    expect(await userIds(sandbox)).toEqual([...SCENARIO_IDS].sort());

    expect(await userIds(live)).toEqual(liveUsers);
    expect(await storedReports(orgId)).toEqual(liveReports);
    expect(await listed('/v1/onboarding-tokens', live)).toBe(1);
    expect((await callApi('GET', `/v1/document/api/${liveJob.jobId as string}`, { token: live })).status).toBe(200);
  }, 120_000);
});
