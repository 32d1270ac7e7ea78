import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DynamoDbPendingWebhookEvents } from '#shared/adapters/dynamodb/pending-webhook-events.ts';
import { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import { DEFAULT_CONCURRENCY } from '#shared/domain/limits/concurrency.ts';
import { hashOnboardingToken } from '#shared/domain/onboarding/onboarding-token.ts';
import { reportObjectKey } from '#shared/domain/reports/report-job.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';
import { callApi, tokenFor, uniqueOrg, userStatusTotal } from '#test/support/api-client.ts';
import {
  documentClient,
  reportJobStore,
  reportJobsTableName,
  seedOrganization,
  waitForJob,
  writeOpenJob,
} from '#test/support/report-support.ts';

/**
 * DELETE /v1/users/{id} (contract §16) against the local stack: what is left in PostgreSQL,
 * DynamoDB Local and the S3 emulator afterwards, and what the API answers about it.
 */

const env = inject('localEnv');
const documents = documentClient();
const jobs = reportJobStore(documents);
const admin = usersDatabaseAsAdmin();
const s3 = new S3Client({
  endpoint: env.AWS_ENDPOINT_URL_S3,
  region: env.AWS_REGION,
  forcePathStyle: true,
  credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
});
const tokensTable = env.ONBOARDING_TOKENS_TABLE_NAME!;
const pendingEvents = new DynamoDbPendingWebhookEvents(documents, env.WEBHOOKS_TABLE_NAME!);

afterAll(async () => {
  await admin.close();
});

const erasePath = (userId: string) => `/v1/users/${encodeURIComponent(userId)}`;
const erase = async (orgId: string, userId: string, token?: string) =>
  callApi('DELETE', erasePath(userId), { token: token ?? (await tokenFor(orgId)) });

async function userRow(orgId: string, userId: string): Promise<Record<string, unknown> | undefined> {
  const [row] = await admin.query('SELECT id, email FROM users WHERE org_id = $1 AND id = $2', [orgId, userId]);
  return row;
}

async function reportObjects(orgId: string): Promise<string[]> {
  const listed = await s3.send(
    new ListObjectsV2Command({ Bucket: env.REPORTS_BUCKET_NAME!, Prefix: `reports/${orgId}/` }),
  );
  return (listed.Contents ?? []).map((object) => object.Key!).sort();
}

const jobItem = async (jobId: string) =>
  (
    await documents.send(
      new GetCommand({
        TableName: reportJobsTableName(),
        Key: { pk: `JOB#${jobId}`, sk: 'JOB' },
        ConsistentRead: true,
      }),
    )
  ).Item;

/** Every item of the organization's token partition that names `email` or one of `tokens`. */
async function tokenItemsAbout(orgId: string, email: string, tokens: readonly string[]): Promise<unknown[]> {
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new QueryCommand({
        TableName: tokensTable,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `ORG#${orgId}` },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  const pointers = new Set(tokens.map((token) => `TOKENHASH#${hashOnboardingToken(token)}`));
  return items.filter(
    (item) =>
      item.email === email ||
      item.sk === `EMAIL#${email}` ||
      pointers.has(item.sk as string) ||
      JSON.stringify(item).includes(email),
  );
}

/** Two tokens to the user's e-mail (created, then resent: the first Revoked) and one to somebody else. */
async function issueTokens(orgId: string, person: UserRecord): Promise<{ tokens: string[]; tokenIds: string[] }> {
  const token = await tokenFor(orgId);
  const body = { email: ` ${person.email!.toUpperCase()} `, first_name: 'Zoë', last_name: 'Ångström' };
  const first = await callApi('POST', '/v1/onboarding-token', { token, body });
  expect(first.status).toBe(201);
  const second = await callApi('POST', `/v1/onboarding-tokens/${first.body.tokenId}/resend`, { token });
  expect(second.status).toBe(201);
  const other = await callApi('POST', '/v1/onboarding-token', {
    token,
    body: { email: `someone-else@${orgId}.example`, first_name: 'Ada', last_name: 'Lovelace' },
  });
  expect(other.status).toBe(201);
  return {
    tokens: [first.body.onboarding_token, second.body.onboarding_token],
    tokenIds: [first.body.tokenId, second.body.tokenId],
  };
}

describe('DELETE /v1/users/{id}', () => {
  it('erases the user row, every report job and PDF, and the tokens issued to the e-mail; 204, then 404', async () => {
    const orgId = uniqueOrg('erase');
    const [person, neighbour] = await seedOrganization(orgId, 2);
    const token = await tokenFor(orgId);
    const email = person!.email!.trim().toLowerCase();
    const { tokens, tokenIds } = await issueTokens(orgId, person!);
    const reportOf = async (userId: string) => {
      const created = await callApi('POST', '/v1/document/api', { token, body: { userId } });
      expect(created.status).toBe(202);
      expect(await waitForJob(created.body.jobId, token)).toMatchObject({ status: 'COMPLETE' });
      return created.body.jobId as string;
    };
    const jobId = await reportOf(person!.id);
    const neighboursJobId = await reportOf(neighbour!.id);
    expect(await reportObjects(orgId)).toHaveLength(2);
    expect(await tokenItemsAbout(orgId, email, tokens)).not.toEqual([]);

    const response = await erase(orgId, person!.id);

    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect(await userRow(orgId, person!.id)).toBeUndefined();
    expect(await jobItem(jobId)).toBeUndefined();
    expect(await reportObjects(orgId)).toEqual([reportObjectKey(orgId, neighboursJobId)]);
    expect(await tokenItemsAbout(orgId, email, tokens)).toEqual([]);
    for (const tokenId of tokenIds) {
      expect((await callApi('DELETE', `/v1/onboarding-tokens/${tokenId}`, { token })).status).toBe(404);
    }
    const listed = await callApi('GET', '/v1/onboarding-tokens?limit=100', { token });
    expect(listed.body.results.map((t: { email: string }) => t.email)).toEqual([`someone-else@${orgId}.example`]);
    expect((await callApi('GET', `/v1/document/api/${jobId}`, { token })).status).toBe(404);
    expect((await callApi('GET', `/v1/document/api?userId=${person!.id}`, { token })).body.results).toEqual([]);
    expect(await userStatusTotal(orgId, { id: person!.id })).toBe(0);
    expect(await userStatusTotal(orgId, { email })).toBe(0);
    // The neighbour keeps everything.
    expect(await userRow(orgId, neighbour!.id)).toBeDefined();
    expect((await callApi('GET', `/v1/document/api/${neighboursJobId}`, { token })).body.status).toBe('COMPLETE');

    const again = await erase(orgId, person!.id);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: 404, error: 'NOT_FOUND', method: 'DELETE', path: erasePath(person!.id) });
  });

  it('removes the webhook events still pending (kept while SQS refused them) that name the e-mail, and no others', async () => {
    const orgId = uniqueOrg('erase');
    const otherOrgId = uniqueOrg('erase');
    const [person, neighbour] = await seedOrganization(orgId, 2);
    const email = person!.email!.trim().toLowerCase();
    const keep = (org: string, eventId: string, named: string) =>
      pendingEvents.keep(
        {
          eventId,
          orgId: org,
          type: 'onboarding_token.revoked',
          timestamp: new Date().toISOString(),
          data: { tokenId: eventId, email: named, status: 'Revoked' },
        },
        new Date(),
      );
    await keep(orgId, `evt_${orgId}_person`, email);
    await keep(orgId, `evt_${orgId}_neighbour`, neighbour!.email!.trim().toLowerCase());
    await keep(otherOrgId, `evt_${otherOrgId}_same_address`, email);

    expect((await erase(orgId, person!.id)).status).toBe(204);

    const left = async (org: string) => (await pendingEvents.ofOrganization(org)).map(({ event }) => event.eventId);
    expect(await left(orgId)).toEqual([`evt_${orgId}_neighbour`]);
    expect(await left(otherOrgId)).toEqual([`evt_${otherOrgId}_same_address`]);
    for (const org of [orgId, otherOrgId])
      for (const pending of await pendingEvents.ofOrganization(org)) await pendingEvents.remove(pending);
  });

  it('records user.erasure_started, then one user.erased, naming the user id and nothing else of the person', async () => {
    const orgId = uniqueOrg('erase');
    const [person] = await seedOrganization(orgId, 1);
    expect((await erase(orgId, person!.id)).status).toBe(204);

    const audit = await callApi('GET', '/v1/audit-events?action=user.erased', { token: await tokenFor(orgId) });

    expect(audit.status).toBe(200);
    expect(audit.body.results).toEqual([
      {
        eventId: expect.any(String),
        occurredAt: expect.any(String),
        action: 'user.erased',
        actor: expect.objectContaining({ sub: expect.anything() }),
        target: { type: 'user', id: person!.id },
        requestId: expect.any(String),
        outcome: 'success',
      },
    ]);
    const history = await callApi('GET', `/v1/audit-events?targetId=${encodeURIComponent(person!.id)}`, {
      token: await tokenFor(orgId),
    });
    expect(
      history.body.results.map(({ action, outcome }: { action: string; outcome: string }) => [action, outcome]),
    ).toEqual([
      ['user.erased', 'success'],
      ['user.erasure_started', 'started'],
    ]);
    const text = JSON.stringify(history.body);
    for (const value of [person!.email, person!.first_name, person!.last_name, person!.name, person!.phone]) {
      if (value) expect(text).not.toContain(value);
    }
  });

  it('answers 404 for another organization’s user (and for an id no user can have), touching neither organization', async () => {
    const orgA = uniqueOrg('erase-a');
    const orgB = uniqueOrg('erase-b');
    // The same seed gives both organizations the same ids and e-mail addresses.
    const [inA] = await seedOrganization(orgA, 2);
    const [inB, onlyInB] = await seedOrganization(orgB, 2);
    expect(inA!.id).toBe(inB!.id);
    await admin.query('DELETE FROM users WHERE org_id = $1 AND id = $2', [orgB, inB!.id]);

    expect((await erase(orgB, inA!.id)).status).toBe(404);
    expect(await userRow(orgA, inA!.id)).toBeDefined();

    // Erasing A's user leaves B's users, even one with A's user's id.
    await seedOrganization(orgB, 1);
    expect((await erase(orgA, inA!.id)).status).toBe(204);
    expect(await userRow(orgB, inA!.id)).toBeDefined();
    expect(await userRow(orgB, onlyInB!.id)).toBeDefined();

    for (const id of ['x'.repeat(17), ' ']) {
      const response = await erase(orgA, id);
      expect(response.status, JSON.stringify(id)).toBe(404);
    }
  });

  it('gives five parallel calls 204 or 404 (or 429 beyond the organization’s 4 erasures at once, contract §25), at least one 204, and the user fully erased', async () => {
    const orgId = uniqueOrg('erase');
    const [person] = await seedOrganization(orgId, 1);
    const token = await tokenFor(orgId);
    const email = person!.email!.trim().toLowerCase();
    const { tokens } = await issueTokens(orgId, person!);
    const created = await callApi('POST', '/v1/document/api', { token, body: { userId: person!.id } });
    await waitForJob(created.body.jobId, token);

    const responses = await Promise.all(Array.from({ length: 5 }, () => erase(orgId, person!.id, token)));

    const statuses = responses.map((response) => response.status);
    expect(
      statuses.every((status) => status === 204 || status === 404 || status === 429),
      statuses.join(),
    ).toBe(true);
    expect(statuses.filter((status) => status === 429).length, statuses.join()).toBeLessThanOrEqual(
      5 - DEFAULT_CONCURRENCY.databasePerOrganization,
    );
    expect(statuses).toContain(204);
    expect(await userRow(orgId, person!.id)).toBeUndefined();
    expect(await jobItem(created.body.jobId)).toBeUndefined();
    expect(await reportObjects(orgId)).toEqual([]);
    expect(await tokenItemsAbout(orgId, email, tokens)).toEqual([]);
  });

  it('ends a job in progress FAILED/USER_ERASED and removes any PDF stored under it; new reports wait out the hold', async () => {
    const orgId = uniqueOrg('erase');
    const [person] = await seedOrganization(orgId, 1);
    const token = await tokenFor(orgId);
    const open = await writeOpenJob(jobs, { orgId, userId: person!.id, status: 'IN_PROGRESS' });
    // What a worker that stored the PDF and then died would leave.
    await s3.send(
      new PutObjectCommand({
        Bucket: env.REPORTS_BUCKET_NAME!,
        Key: reportObjectKey(orgId, open.jobId),
        Body: '%PDF-1.7',
      }),
    );

    expect((await erase(orgId, person!.id, token)).status).toBe(204);

    const job = await callApi('GET', `/v1/document/api/${open.jobId}`, { token });
    expect(job.body).toMatchObject({ status: 'FAILED', errorCode: 'USER_ERASED', userId: person!.id });
    expect(await reportObjects(orgId)).toEqual([]);
    // The open-job slot is free of the job: no guard names it.
    const guard = await documents.send(
      new GetCommand({
        TableName: reportJobsTableName(),
        Key: { pk: `ORG#${orgId}`, sk: `OPEN_JOB#${person!.id}` },
        ConsistentRead: true,
      }),
    );
    expect(guard.Item?.jobId).not.toBe(open.jobId);

    // The same id imported again right away: no report until the erasure's hold (a minute) is over.
    await seedOrganization(orgId, 1);
    const refused = await callApi('POST', '/v1/document/api', { token, body: { userId: person!.id } });
    expect(refused.status).toBe(404);
  });

  it('refuses a token without users:erase (403) and changes nothing', async () => {
    const orgId = uniqueOrg('erase');
    const [person] = await seedOrganization(orgId, 1);
    const token = await tokenFor(orgId, { scopes: ['users:read', 'reports:write', 'onboarding:write'] });

    const response = await erase(orgId, person!.id, token);

    expect(response.status).toBe(403);
    expect(await userRow(orgId, person!.id)).toBeDefined();
    const audit = await callApi('GET', '/v1/audit-events?action=user.erased', { token: await tokenFor(orgId) });
    expect(audit.body.results).toEqual([]);
  });
});

describe('the users database roles', () => {
  const connectAs = (user: string, password: string) =>
    PostgresUsersDatabase.withPassword({
      host: env.USERS_DATABASE_HOST!,
      port: Number(env.USERS_DATABASE_PORT),
      user,
      password,
      maxConnections: 1,
    });

  it('let users_eraser read and delete users but not write them, and users_reader not delete them', async () => {
    const orgId = uniqueOrg('erase-roles');
    const [person] = await seedOrganization(orgId, 1);
    const eraser = connectAs(env.USERS_ERASER_DATABASE_USER!, env.USERS_ERASER_DATABASE_PASSWORD!);
    const reader = connectAs(env.USERS_DATABASE_USER!, env.USERS_DATABASE_PASSWORD!);
    try {
      expect(env.USERS_ERASER_DATABASE_USER).toBe('users_eraser');
      const denied = { code: '42501' }; // insufficient_privilege
      await expect(reader.query('DELETE FROM users WHERE org_id = $1', [orgId])).rejects.toMatchObject(denied);
      await expect(
        eraser.query("UPDATE users SET email = 'x@example.com' WHERE org_id = $1", [orgId]),
      ).rejects.toMatchObject(denied);
      await expect(
        eraser.query("INSERT INTO users (org_id, id, created_at, organization_id) VALUES ($1, 'new', 'x', $1)", [
          orgId,
        ]),
      ).rejects.toMatchObject(denied);
      expect(await eraser.query('SELECT id FROM users WHERE org_id = $1', [orgId])).toEqual([{ id: person!.id }]);
      await eraser.query('DELETE FROM users WHERE org_id = $1 AND id = $2', [orgId, person!.id]);
      expect(await userRow(orgId, person!.id)).toBeUndefined();
    } finally {
      await Promise.all([eraser.close(), reader.close()]);
    }
  });
});
