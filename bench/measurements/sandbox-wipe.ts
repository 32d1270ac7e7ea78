import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { BatchWriteCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ALL_SCOPES, tenantMachineClientId } from '#local/dev-keys.ts';
import { connectAsAdmin } from '#local/seed-demo-data.ts';
import { createS3Client } from '#shared/adapters/aws-clients.ts';
import { organizationPartition } from '#shared/adapters/dynamodb/keys.ts';
import { DynamoDbSandboxWipes } from '#shared/adapters/dynamodb/sandbox-wipes.ts';
import { SANDBOX_SCOPE, tenantKey } from '#shared/domain/identity/tenant.ts';
import { reportObjectKey } from '#shared/domain/reports/report-job.ts';
import { single, type Row } from '#bench/report.ts';
import { callLocalApi, seedOrganization } from '#bench/support/local-api.ts';
import type { Measurement } from '#bench/support/measurement.ts';
import { sleep } from '#bench/support/timing.ts';

/**
 * 18. `DELETE /v1/sandbox` of a sandbox holding 10,000 objects, on the local stack (contract §23:
 * gone within 60 s). One organization's sandbox: 4,000 users (through the import's writer, with
 * their name words), 3,000 onboarding tokens (each its token item and its two pointers), 2,500
 * report jobs (with the index keys the listing reads) and 500 of them with a PDF in S3; its live
 * side holds 200 users, 100 tokens and 100 jobs. The tokens and jobs are written straight into
 * the tables (the API would take 10 report requests per 10 minutes): the wipe reads them as it
 * reads any. Measured: from the 202 until the wipe record says DONE (polled every 100 ms), through
 * the router, the route's handler, the wipe queue and the consumer with its deadline and
 * continuations, as the local stack runs them. Checked afterwards: nothing of the sandbox is left
 * in any store but its scenario users, and live holds all it held.
 */
const SANDBOX = { users: 4_000, tokens: 3_000, jobs: 2_500, pdfs: 500 };
const LIVE = { users: 200, tokens: 100, jobs: 100, pdfs: 0 };
const MAX_WIPE_MS = 60_000;

type Counts = typeof SANDBOX;

export default {
  title: '18 sandbox wipe',
  async run(context) {
    const stack = await context.localStack();
    const documents = await context.localDocuments();
    const env = stack.env;
    const orgId = `bench-wipe-${context.runId}`;
    const sandboxKey = tenantKey({ orgId, mode: 'sandbox' });
    const tables = { tokens: env.ONBOARDING_TOKENS_TABLE_NAME!, jobs: env.REPORT_JOBS_TABLE_NAME! };
    const bucket = env.REPORTS_BUCKET_NAME!;
    const admin = connectAsAdmin(stack.usersDatabase, 1);
    context.onClose(() => admin.close());
    const usersCount = async (key: string) =>
      Number((await admin.query<{ n: string }>('SELECT count(*) AS n FROM users WHERE org_id = $1', [key]))[0]?.n ?? 0);

    context.log('seeding the sandbox (10,000 objects) and live');
    await seedTenant(context, documents, tables, bucket, sandboxKey, SANDBOX);
    await seedTenant(context, documents, tables, bucket, orgId, LIVE);
    const liveBefore = await storedCounts(documents, tables, bucket, orgId, usersCount);

    const token = await stack.issueToken({
      orgId,
      scopes: [...ALL_SCOPES, SANDBOX_SCOPE],
      claims: { client_id: tenantMachineClientId({ orgId, mode: 'sandbox' }) },
    });
    const wipes = new DynamoDbSandboxWipes(documents, tables.jobs);
    const startedAt = performance.now();
    const answered = await callLocalApi(stack.baseUrl, 'DELETE', '/v1/sandbox', { token });
    if (answered.status !== 202)
      throw new Error(`DELETE /v1/sandbox: ${answered.status} ${JSON.stringify(answered.body)}`);
    let wipeMs: number | undefined;
    while (performance.now() - startedAt < 2 * MAX_WIPE_MS) {
      if ((await wipes.get(sandboxKey))?.status === 'DONE') {
        wipeMs = performance.now() - startedAt;
        break;
      }
      await sleep(100);
    }
    const sandboxAfter = await storedCounts(documents, tables, bucket, sandboxKey, usersCount);
    const liveAfter = await storedCounts(documents, tables, bucket, orgId, usersCount);
    const problems = [
      ...Object.entries(sandboxAfter)
        .filter(([, left]) => left > 0)
        .map(([store, left]) => `sandbox ${store}: ${left} left`),
      ...Object.entries(liveAfter)
        .filter(([store, count]) => count !== liveBefore[store as keyof Counts])
        .map(([store, count]) => `live ${store}: ${count}, was ${liveBefore[store as keyof Counts]}`),
    ];
    const objects = SANDBOX.users + SANDBOX.tokens + SANDBOX.jobs + SANDBOX.pdfs;
    return [
      {
        measurement: this.title,
        subject: `DELETE /v1/sandbox until DONE, ${objects.toLocaleString('en')} objects`,
        unit: 'ms',
        value: single(wipeMs ?? Number.POSITIVE_INFINITY),
        budget: { on: 'median', max: MAX_WIPE_MS },
        note: `${SANDBOX.users} users, ${SANDBOX.tokens} tokens (3 items each), ${SANDBOX.jobs} jobs, ${SANDBOX.pdfs} PDFs`,
      },
      {
        measurement: this.title,
        subject: 'sandbox objects left, live objects changed',
        unit: 'count',
        value: single(problems.length),
        budget: { on: 'median', max: 0 },
        note:
          problems.length > 0
            ? problems.slice(0, 5).join('; ')
            : 'sandbox empty but its scenario users; live as it was',
      },
    ] satisfies Row[];
  },
} satisfies Measurement;

async function seedTenant(
  context: Parameters<Measurement['run']>[0],
  documents: DynamoDBDocumentClient,
  tables: { tokens: string; jobs: string },
  bucket: string,
  key: string,
  counts: Counts,
): Promise<void> {
  await seedOrganization(context, key, counts.users);
  const createdAt = new Date().toISOString();
  const pk = organizationPartition(key);
  const tokenItems = Array.from({ length: counts.tokens }, (_, i) => {
    const tokenId = randomUUID();
    const tokenSk = `TOKEN#${createdAt}#${tokenId}`;
    return [
      { pk, sk: tokenSk, tokenId, email: `bench-${i}@example.com`, createdAt },
      { pk, sk: `TOKENID#${tokenId}`, tokenSk },
      { pk, sk: `TOKENHASH#${tokenId}`, tokenSk },
    ];
  }).flat();
  const jobIds = Array.from({ length: counts.jobs }, () => randomUUID());
  const jobItems = jobIds.map((jobId) => ({
    pk: `JOB#${jobId}`,
    sk: 'JOB',
    jobId,
    orgId: key,
    status: 'COMPLETE',
    createdAt,
    orgJobsPk: pk,
    orgJobsSk: `${createdAt}#${jobId}`,
  }));
  await putAll(documents, tables.tokens, tokenItems);
  await putAll(documents, tables.jobs, jobItems);
  const s3 = createS3Client();
  const pdf = new TextEncoder().encode('%PDF-1.7 bench');
  for (let start = 0; start < counts.pdfs; start += 25) {
    await Promise.all(
      jobIds
        .slice(start, Math.min(start + 25, counts.pdfs))
        .map((jobId) => s3.send(new PutObjectCommand({ Bucket: bucket, Key: reportObjectKey(key, jobId), Body: pdf }))),
    );
  }
  s3.destroy();
}

async function putAll(documents: DynamoDBDocumentClient, table: string, items: Array<Record<string, unknown>>) {
  for (let start = 0; start < items.length; start += 25 * 8) {
    await Promise.all(
      Array.from({ length: 8 }, (_, batch) => items.slice(start + batch * 25, start + (batch + 1) * 25))
        .filter((batch) => batch.length > 0)
        .map(async (batch) => {
          let requests: unknown[] = batch.map((Item) => ({ PutRequest: { Item } }));
          while (requests.length > 0) {
            const result = await documents.send(
              new BatchWriteCommand({ RequestItems: { [table]: requests as never } }),
            );
            requests = result.UnprocessedItems?.[table] ?? [];
          }
        }),
    );
  }
}

/** What one tenant key holds in each store the seed wrote. */
async function storedCounts(
  documents: DynamoDBDocumentClient,
  tables: { tokens: string; jobs: string },
  bucket: string,
  key: string,
  usersCount: (orgId: string) => Promise<number>,
): Promise<Counts> {
  const count = async (query: ConstructorParameters<typeof QueryCommand>[0]) => {
    let total = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await documents.send(
        new QueryCommand({ ...query, Select: 'COUNT', ...(startKey ? { ExclusiveStartKey: startKey } : {}) }),
      );
      total += page.Count ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return total;
  };
  const pk = organizationPartition(key);
  const s3 = createS3Client();
  let pdfs = 0;
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `reports/${key}/`, ContinuationToken: token }),
    );
    pdfs += page.KeyCount ?? 0;
    token = page.NextContinuationToken;
  } while (token);
  s3.destroy();
  return {
    users: await usersCount(key),
    tokens: await count({
      TableName: tables.tokens,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :token)',
      ExpressionAttributeValues: { ':pk': pk, ':token': 'TOKEN#' },
    }),
    jobs: await count({
      TableName: tables.jobs,
      IndexName: 'jobsByOrganization',
      KeyConditionExpression: 'orgJobsPk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
    }),
    pdfs,
  };
}
