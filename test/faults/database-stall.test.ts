import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ORGANIZATION_QUOTA_KEY, recipientQuotaKey } from '#shared/adapters/dynamodb/limits/email-quota.ts';
import { callApi, tokenFor, uniqueOrg, type ApiResponse } from '#test/support/api-client.ts';
import { documentClient, seedOrganization } from '#test/support/report-support.ts';
import { emailsTo } from '#test/support/ses-inbox.ts';

/**
 * DynamoDB Local is paused (SIGSTOP) while requests flow, and resumed (SIGCONT) after every
 * request was answered. Requests sent to the paused database are buffered by the kernel and
 * executed by DynamoDB Local when it resumes, after the service gave up on them, as a real stall
 * does. Token creates and report requests read first (the e-mail quotas, the rate limit), so they
 * stall before writing anything. The contract: every answer within the function's 10 s, in the
 * contract's shape, and a 503 leaves nothing behind.
 */

const FUNCTION_TIMEOUT_MS = 10_000;
const STALLED_TOKEN_CREATES = 6;
const STALLED_REPORT_CREATES = 3;

interface TimedResponse extends ApiResponse {
  elapsedMs: number;
  label: string;
}

const pause = () => process.kill(inject('databaseProcessId'), 'SIGSTOP');
const resume = () => process.kill(inject('databaseProcessId'), 'SIGCONT');

async function timed(label: string, call: Promise<ApiResponse>): Promise<TimedResponse> {
  const startedAt = Date.now();
  const response = await call;
  return { ...response, label, elapsedMs: Date.now() - startedAt };
}

async function untilDatabaseAnswers(documents: DynamoDBDocumentClient, tableName: string): Promise<void> {
  for (let attempt = 0; attempt < 60; attempt++) {
    try {
      await documents.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': 'ORG#nobody' },
        }),
      );
      return;
    } catch {
      await sleep(500);
    }
  }
  throw new Error('DynamoDB Local did not answer after SIGCONT');
}

describe('DynamoDB Local paused while requests flow', () => {
  const orgId = uniqueOrg('stall');
  const emails = Array.from({ length: STALLED_TOKEN_CREATES }, (_, i) => `stalled-${i}-${orgId}@example.com`);
  const person = (email: string) => ({ email, first_name: 'Ada', last_name: 'Stall' });
  let token: string;
  let userIds: string[];
  let redeemable: string;
  let stalled: TimedResponse[];
  let resumedAt: number;

  beforeAll(async () => {
    token = await tokenFor(orgId);
    userIds = (await seedOrganization(orgId, STALLED_REPORT_CREATES)).map((user) => user.id);
    const before = await callApi('POST', '/v1/onboarding-token', {
      token,
      body: person(`before-${orgId}@example.com`),
    });
    expect(before.status).toBe(201);
    redeemable = before.body.onboarding_token as string;

    pause();
    try {
      stalled = await Promise.all([
        ...emails.map((email) =>
          timed(`create token ${email}`, callApi('POST', '/v1/onboarding-token', { token, body: person(email) })),
        ),
        ...userIds.map((userId) =>
          timed(`create report ${userId}`, callApi('POST', '/v1/document/api', { token, body: { userId } })),
        ),
        timed('list tokens', callApi('GET', '/v1/onboarding-tokens', { token })),
        timed(
          'redeem token',
          callApi('POST', '/v1/onboarding-token/redeem', { token, body: { onboarding_token: redeemable } }),
        ),
      ]);
    } finally {
      resume();
    }
    resumedAt = Date.now();
    await untilDatabaseAnswers(documentClient(), inject('localEnv').ONBOARDING_TOKENS_TABLE_NAME!);
  }, 90_000);

  afterAll(() => resume());

  it('answers every request before the function timeout with the contract’s 503 body and a Retry-After of the stall', () => {
    for (const response of stalled) {
      expect.soft(response.elapsedMs, response.label).toBeLessThan(FUNCTION_TIMEOUT_MS);
      expect.soft(response.status, response.label).toBe(503);
      expect.soft(response.body, response.label).toEqual({
        code: 503,
        error: 'SERVICE_UNAVAILABLE',
        message: 'a dependency is temporarily unavailable; retry later',
        path: expect.any(String),
        method: expect.any(String),
        timestamp: expect.any(String),
      });
      // A stalled call gives up after its three attempt timeouts (shared/adapters/aws-clients.ts), or at the deadline.
      const retryAfter = Number(response.headers.get('retry-after'));
      expect.soft(retryAfter, response.label).toBeGreaterThanOrEqual(3);
      expect.soft(retryAfter, response.label).toBeLessThanOrEqual(30);
    }
  });

  it('token creates stalled on their e-mail quota reads: neither a token nor a quota unit of theirs reached the database', async () => {
    const items = await documentClient().send(
      new QueryCommand({
        TableName: inject('localEnv').ONBOARDING_TOKENS_TABLE_NAME!,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `ORG#${orgId}` },
        ConsistentRead: true,
      }),
    );
    const stored = items.Items ?? [];
    expect(stored.filter((item) => item.provisionalUntil !== undefined)).toEqual([]);
    for (const email of emails) {
      expect(
        stored.find((item) => item.sk === recipientQuotaKey(email)),
        email,
      ).toBeUndefined();
    }
    // The organization's hourly e-mails: the one token created before the pause.
    const counted = stored
      .filter((item) => (item.sk as string).startsWith(`${ORGANIZATION_QUOTA_KEY}#`))
      .reduce((sum, item) => sum + (item.count as number), 0);
    expect(counted).toBe(1);
  });

  it('a 503 left nothing behind: the same creates succeed on retry, and e-mails sent = tokens issued', async () => {
    const waitMs = Math.max(...stalled.map((response) => Number(response.headers.get('retry-after')) * 1000));
    await sleep(Math.max(0, resumedAt + waitMs - Date.now()));

    for (const email of emails) {
      const retried = await callApi('POST', '/v1/onboarding-token', { token, body: person(email) });
      expect.soft(retried.status, email).toBe(201);
    }
    const listed = await callApi('GET', '/v1/onboarding-tokens?limit=100', { token });
    const issuedTo = (listed.body.results as Array<{ email: string }>).map((listedToken) => listedToken.email);
    for (const email of emails) {
      expect
        .soft(
          issuedTo.filter((address) => address === email),
          email,
        )
        .toHaveLength(1);
      expect.soft(await emailsTo(email), email).toHaveLength(1);
    }

    const redeemed = await callApi('POST', '/v1/onboarding-token/redeem', {
      token,
      body: { onboarding_token: redeemable },
    });
    expect(redeemed.status).toBe(200);
  });

  it('report requests that got 503 spent nothing: the retries are accepted and every job ends COMPLETE or FAILED', async () => {
    const accepted = [];
    for (const userId of userIds) {
      const retried = await callApi('POST', '/v1/document/api', { token, body: { userId } });
      expect.soft(retried.status, userId).toBe(202);
      accepted.push(retried);
    }
    expect(accepted.at(-1)?.headers.get('ratelimit-remaining')).toBe(String(10 - userIds.length));

    for (const { body } of accepted) {
      let status = '';
      for (let poll = 0; poll < 60 && !['COMPLETE', 'FAILED'].includes(status); poll++) {
        await sleep(500);
        status = (await callApi('GET', `/v1/document/api/${body.jobId}`, { token })).body.status as string;
      }
      expect.soft(['COMPLETE', 'FAILED'], body.jobId as string).toContain(status);
    }
  }, 90_000);
});
