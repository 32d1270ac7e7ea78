import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { repoRoot } from '#lib/repo-root.ts';
import { concurrencyPartition, DynamoDbConcurrencySlots } from '#shared/adapters/dynamodb/limits/concurrency-slots.ts';
import type { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import { DEFAULT_CONCURRENCY, type SlotLease } from '#shared/domain/limits/concurrency.ts';
import { callApi, tokenFor, uniqueOrg, type ApiResponse } from '#test/support/api-client.ts';
import { openApiValidator } from '#test/support/openapi-validator.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';

/**
 * Contract §25's concurrency limit through the local stack's router, on DynamoDB Local and the
 * real PostgreSQL: the stack's defaults, 20 requests in flight per organization and 4 of them on
 * the database routes.
 */

const env = inject('localEnv');
const documents = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    endpoint: env.AWS_ENDPOINT_URL_DYNAMODB,
    region: env.AWS_REGION,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  }),
);
const tableName = env.REQUEST_BUDGETS_TABLE_NAME!;
const slots = new DynamoDbConcurrencySlots(documents, tableName);

/** The organization's slots as the table holds them. */
async function heldSlots(orgId: string): Promise<{ requests: string[]; databaseRequests: string[] }> {
  const { Item } = await documents.send(
    new GetCommand({ TableName: tableName, Key: { pk: concurrencyPartition(orgId) }, ConsistentRead: true }),
  );
  const asList = (value: unknown) => (value instanceof Set ? [...(value as Set<string>)] : []);
  return { requests: asList(Item?.requests), databaseRequests: asList(Item?.databaseRequests) };
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const userStatus = async (orgId: string) =>
  callApi('POST', '/v1/user-status', {
    token: await tokenFor(orgId),
    body: { filters: {}, result_keys: ['id'], pagination: { limit: 1 } },
  });

/** Slots taken straight in the table, as a request of the organization would, expiring at `expiresAt`. */
async function takeDirectly(orgId: string, count: number, options: { database: boolean; expiresAt: number }) {
  const leases: SlotLease[] = Array.from({ length: count }, () => ({ id: randomUUID(), orgId, ...options }));
  for (const lease of leases) expect(await slots.take(lease, DEFAULT_CONCURRENCY, Date.now())).toBe('taken');
  return leases;
}

const openApi = openApiValidator(
  JSON.parse(readFileSync(join(repoRoot, 'openapi.json'), 'utf8')) as Record<string, unknown>,
  { strict: true },
);

/** The contract's 429, as openapi.json declares the operation's (its shared TooManyRequests response). */
function expectConcurrencyRefusal(response: ApiResponse, path: string, method: string): void {
  expect(response.status).toBe(429);
  expect(openApi.checkResponse({ method, path }, response)).toEqual([]);
  expect(response.headers.get('retry-after')).toBe('1');
  expect(response.body).toEqual({
    code: 429,
    timestamp: expect.any(String),
    path,
    method,
    error: 'TOO_MANY_REQUESTS',
    message: expect.stringMatching(/^the organization already has \d+ requests/),
  });
}

describe('each organization’s requests in flight (20, of which 4 on the database routes)', () => {
  let admin: PostgresUsersDatabase;
  beforeAll(() => {
    admin = usersDatabaseAsAdmin();
  });
  afterAll(() => admin.close());

  it('the fifth concurrent user-status request of one organization is 429 with Retry-After: 1 while another organization’s first holds a slot and is answered 200; the slots come back when the requests end', async () => {
    const crowded = uniqueOrg('concurrency-crowded');
    const other = uniqueOrg('concurrency-other');
    let fifth: ApiResponse | undefined;
    let first: Promise<ApiResponse[]> | undefined;
    let othersFirst: Promise<ApiResponse> | undefined;
    // The four run until the test lets the users table go: their statements wait for its lock.
    await admin.transaction(async (run) => {
      await run.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
      first = Promise.all(Array.from({ length: 4 }, () => userStatus(crowded)));
      await until(async () => (await heldSlots(crowded)).databaseRequests.length === 4, 'four slots are held');
      fifth = await userStatus(crowded);
      othersFirst = userStatus(other);
      await until(
        async () => (await heldSlots(other)).databaseRequests.length === 1,
        'the other organization holds a slot',
      );
    });

    expectConcurrencyRefusal(fifth!, '/v1/user-status', 'POST');
    expect(fifth!.body.message).toBe(
      'the organization already has 4 requests running database statements; retry when one ends',
    );
    expect((await othersFirst!).status).toBe(200);
    expect((await first!).map((response) => response.status)).toEqual([200, 200, 200, 200]);
    // Each request gave its slot back as it ended.
    expect(await heldSlots(crowded)).toEqual({ requests: [], databaseRequests: [] });
    expect(await heldSlots(other)).toEqual({ requests: [], databaseRequests: [] });
    expect((await Promise.all(Array.from({ length: 4 }, () => userStatus(crowded)))).map((r) => r.status)).toEqual([
      200, 200, 200, 200,
    ]);
  });

  it('slots a request never gave back (its invocation crashed) come back at their deadline: 429 before it, 200 after, the expired slots reclaimed', async () => {
    const orgId = uniqueOrg('concurrency-crashed');
    const deadline = Date.now() + 1_500;
    const crashed = await takeDirectly(orgId, 4, { database: true, expiresAt: deadline });

    expectConcurrencyRefusal(await userStatus(orgId), '/v1/user-status', 'POST');
    await new Promise((resolve) => setTimeout(resolve, deadline - Date.now() + 50));
    const after = await userStatus(orgId);

    expect(after.status).toBe(200);
    const held = await heldSlots(orgId);
    for (const lease of crashed) expect(held.databaseRequests.join()).not.toContain(lease.id);
  });

  it('20 requests in flight on any routes refuse the 21st, on a route without database statements too; another organization is untouched', async () => {
    const orgId = uniqueOrg('concurrency-all');
    const leases = await takeDirectly(orgId, DEFAULT_CONCURRENCY.perOrganization, {
      database: false,
      expiresAt: Date.now() + 10_000,
    });
    const token = await tokenFor(orgId);

    const webhooks = await callApi('GET', '/v1/webhooks', { token });
    expectConcurrencyRefusal(webhooks, '/v1/webhooks', 'GET');
    expect(webhooks.body.message).toBe('the organization already has 20 requests in flight; retry when one ends');
    expectConcurrencyRefusal(await userStatus(orgId), '/v1/user-status', 'POST');
    expect(
      (await callApi('GET', '/v1/webhooks', { token: await tokenFor(uniqueOrg('concurrency-calm')) })).status,
    ).toBe(200);

    await slots.release(leases[0]!);
    expect((await callApi('GET', '/v1/webhooks', { token })).status).toBe(200);
  });
});
