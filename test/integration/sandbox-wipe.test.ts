import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { DynamoDbSandboxWipes } from '#shared/adapters/dynamodb/sandbox-wipes.ts';
import { tenantKey } from '#shared/domain/identity/tenant.ts';
import { SCENARIO_IDS } from '#shared/domain/sandbox/scenarios.ts';
import { callApi, sandboxTokenFor, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { documentClient, seedOrganization, waitForJob } from '#test/support/report-support.ts';

/**
 * DELETE /v1/sandbox through the local stack (contract §23, docs/sandbox.md "Wiping a sandbox"):
 * an organization's sandbox and its live data, each with tokens, kept e-mails, report jobs and
 * their PDFs, users, a webhook endpoint and its deliveries; the wipe empties the sandbox (its
 * scenario users stay) and leaves every stored item of live as it was.
 */

const env = () => inject('localEnv');
/** Refuses connections: each event opens a delivery, which is all the log needs. */
const UNREACHABLE_RECEIVER = 'http://127.0.0.1:9/hooks';

/** Every stored item and object of one tenant key: its partitions of each table, its jobs, its PDFs, its users. */
async function storedState(key: string, token: string) {
  const documents = documentClient();
  const partition = async (table: string, pk: string) => {
    const { Items = [] } = await documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
      }),
    );
    return Items.map(({ sk }) => String(sk)).sort();
  };
  const { Items: jobs = [] } = await documents.send(
    new QueryCommand({
      TableName: env().REPORT_JOBS_TABLE_NAME!,
      IndexName: 'jobsByOrganization',
      KeyConditionExpression: 'orgJobsPk = :pk',
      ExpressionAttributeValues: { ':pk': `ORG#${key}` },
    }),
  );
  const webhooks = await partition(env().WEBHOOKS_TABLE_NAME!, `ORG#${key}`);
  const deliveries = await Promise.all(
    webhooks
      .filter((sk) => sk.startsWith('ENDPOINT#'))
      .map((sk) => partition(env().WEBHOOKS_TABLE_NAME!, `ORG#${key}#${sk}`)),
  );
  const s3 = new S3Client({
    endpoint: env().AWS_ENDPOINT_URL_S3,
    region: env().AWS_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env().AWS_ACCESS_KEY_ID!, secretAccessKey: env().AWS_SECRET_ACCESS_KEY! },
  });
  const { Contents = [] } = await s3.send(
    new ListObjectsV2Command({ Bucket: env().REPORTS_BUCKET_NAME!, Prefix: `reports/${key}/` }),
  );
  s3.destroy();
  const users = await callApi('POST', '/v1/user-status', {
    token,
    body: { filters: {}, result_keys: ['id'], pagination: { limit: 100 } },
  });
  return {
    onboardingTokens: await partition(env().ONBOARDING_TOKENS_TABLE_NAME!, `ORG#${key}`),
    reportJobItems: await partition(env().REPORT_JOBS_TABLE_NAME!, `ORG#${key}`),
    jobs: jobs.map(({ jobId, status }) => `${String(jobId)} ${String(status)}`).sort(),
    webhooks,
    deliveries: deliveries.flat(),
    reportObjects: Contents.map(({ Key }) => Key).sort(),
    users: (users.body.results as Array<{ id: string }>).map(({ id }) => id).sort(),
  };
}

/** A token (and, from the sandbox, its kept e-mail), an endpoint, a completed report whose event the endpoint logs. */
async function seedTenant(key: string, token: string): Promise<void> {
  const [user] = await seedOrganization(key, 3);
  const issued = await callApi('POST', '/v1/onboarding-token', {
    token,
    body: { email: `wipe-${key.replace('~', '-')}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
  });
  expect(issued.status).toBe(201);
  const endpoint = await callApi('POST', '/v1/webhooks', {
    token,
    body: { url: UNREACHABLE_RECEIVER, events: ['report.completed'] },
  });
  expect(endpoint.status).toBe(201);
  const requested = await callApi('POST', '/v1/document/api', { token, body: { userId: user!.id } });
  expect(requested.status).toBe(202);
  await waitForJob(requested.body.jobId as string, token, ['COMPLETE']);
  await expect
    .poll(
      async () =>
        (await callApi('GET', `/v1/webhooks/${endpoint.body.id as string}/deliveries`, { token })).body.results.length,
      { timeout: 20_000, interval: 250 },
    )
    .toBeGreaterThan(0);
}

describe('DELETE /v1/sandbox', () => {
  it('answers a live token 404 and wipes nothing', async () => {
    const orgId = uniqueOrg('wipe-live');
    const response = await callApi('DELETE', '/v1/sandbox', { token: await tokenFor(orgId) });
    expect(response.status).toBe(404);
  });

  it('empties the sandbox within 60 s but for its scenario users, answers a second request with the same wipe, and leaves live as it was', async () => {
    const orgId = uniqueOrg('wipe');
    const sandboxKey = tenantKey({ orgId, mode: 'sandbox' });
    const live = await tokenFor(orgId);
    const sandbox = await sandboxTokenFor(orgId);
    await seedTenant(orgId, live);
    await seedTenant(sandboxKey, sandbox);
    const liveBefore = await storedState(orgId, live);
    const sandboxBefore = await storedState(sandboxKey, sandbox);
    // What was seeded is there: each list below must be emptied by the wipe, not found empty.
    for (const state of [liveBefore, sandboxBefore]) {
      for (const [store, found] of Object.entries(state)) expect(found.length, store).toBeGreaterThan(0);
    }
    expect(sandboxBefore.onboardingTokens.some((sk) => sk.startsWith('SANDBOX_EMAIL#'))).toBe(true);

    const started = Date.now();
    const [first, second] = await Promise.all([
      callApi('DELETE', '/v1/sandbox', { token: sandbox }),
      callApi('DELETE', '/v1/sandbox', { token: sandbox }),
    ]);
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(first.headers.get('sandbox')).toBe('true');
    expect(first.body).toEqual({ wipeId: expect.any(String), status: 'RUNNING', requestedAt: expect.any(String) });
    expect(second.body.wipeId).toBe(first.body.wipeId);
    // Who asked is in the trail: one event per request, both naming the one wipe.
    const audit = await callApi('GET', '/v1/audit-events?action=sandbox.wipe_requested', { token: sandbox });
    expect(audit.body.results).toEqual([
      expect.objectContaining({ target: { type: 'sandbox', id: first.body.wipeId } }),
      expect.objectContaining({ target: { type: 'sandbox', id: first.body.wipeId } }),
    ]);

    const wipes = new DynamoDbSandboxWipes(documentClient(), env().REPORT_JOBS_TABLE_NAME!);
    await expect
      .poll(async () => (await wipes.get(sandboxKey))?.status, { timeout: 60_000, interval: 250 })
      .toBe('DONE');
    expect(Date.now() - started).toBeLessThan(60_000);

    const sandboxAfter = await storedState(sandboxKey, sandbox);
    expect(sandboxAfter).toEqual({
      // Its rate-limit items stay: a wipe gives no budget back.
      onboardingTokens: sandboxBefore.onboardingTokens.filter((sk) => sk.startsWith('RATE_LIMIT#')),
      reportJobItems: sandboxBefore.reportJobItems.filter((sk) => sk.startsWith('RATE_LIMIT#')),
      jobs: [],
      webhooks: sandboxBefore.webhooks.filter((sk) => sk.startsWith('RATE_LIMIT#')),
      deliveries: [],
      reportObjects: [],
      users: [...SCENARIO_IDS].sort(),
    });
    expect((await callApi('GET', '/v1/onboarding-tokens', { token: sandbox })).body.results).toEqual([]);
    expect((await callApi('GET', '/v1/document/api', { token: sandbox })).body.results).toEqual([]);
    expect((await callApi('GET', '/v1/webhooks', { token: sandbox })).body.results).toEqual([]);
    expect(await storedState(orgId, live)).toEqual(liveBefore);

    const again = await callApi('DELETE', '/v1/sandbox', { token: sandbox });
    expect(again.status).toBe(202);
    expect(again.body.wipeId).not.toBe(first.body.wipeId);
  }, 120_000);
});
