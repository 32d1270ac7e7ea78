import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { issuedTokenRecord, tokenItem } from '#test/support/fixtures/onboarding-tokens.ts';
import { emailsTo } from '#test/support/ses-inbox.ts';

function tokenTable() {
  const env = inject('localEnv');
  const client = new DynamoDBClient({
    endpoint: env.AWS_ENDPOINT_URL_DYNAMODB,
    region: env.AWS_REGION,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  });
  return { documents: DynamoDBDocumentClient.from(client), tableName: env.ONBOARDING_TOKENS_TABLE_NAME! };
}

const person = (email: string) => ({ email, first_name: 'Zoë', last_name: 'Ångström' });
const uniqueEmail = () => `user-${Math.random().toString(36).slice(2, 10)}@example.com`;

describe('POST /v1/onboarding-token', () => {
  it('creates a token, e-mails it with the template and stores only its hash', async () => {
    const orgId = uniqueOrg();
    const email = uniqueEmail();
    const token = await tokenFor(orgId, { orgName: 'Acme Health' });

    const response = await callApi('POST', '/v1/onboarding-token', {
      token,
      body: person(`  ${email.toUpperCase()} `),
    });

    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('x-request-id')).toMatch(/\S+/);
    const onboardingToken: string = response.body.onboarding_token;
    expect(onboardingToken).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const [sent] = await emailsTo(email);
    expect(sent?.subject).toContain('Acme Health');
    expect(sent?.body.text).toContain(onboardingToken);
    expect(sent?.body.text).toContain('Zoë Ångström');

    const { documents, tableName } = tokenTable();
    const stored = await documents.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `ORG#${orgId}` },
      }),
    );
    // The token, its e-mail guard, its id and hash pointers, and the e-mail quotas spent on it
    // (the address's, keyed by its SHA-256, and the organization's hour).
    const keys = (stored.Items ?? []).map((item) => (item.sk as string).replace(/#.*/, '#'));
    expect(keys.sort()).toEqual(['EMAIL#', 'RATE_LIMIT#', 'RATE_LIMIT#', 'TOKEN#', 'TOKENHASH#', 'TOKENID#']);
    expect(JSON.stringify(stored.Items)).not.toContain(onboardingToken);
    const quotaItems = (stored.Items ?? []).filter((item) => (item.sk as string).startsWith('RATE_LIMIT#'));
    expect(JSON.stringify(quotaItems)).not.toContain(email);
  });

  it('refuses a second live token for the same e-mail in the organization, whatever its case', async () => {
    const orgId = uniqueOrg();
    const email = uniqueEmail();
    const token = await tokenFor(orgId);
    await callApi('POST', '/v1/onboarding-token', { token, body: person(email) });

    const second = await callApi('POST', '/v1/onboarding-token', { token, body: person(email.toUpperCase()) });

    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 409, error: 'CONFLICT', path: '/v1/onboarding-token', method: 'POST' });
    expect(await emailsTo(email)).toHaveLength(1);
  });

  it('lets another organization issue a token for the same e-mail', async () => {
    const email = uniqueEmail();
    await callApi('POST', '/v1/onboarding-token', { token: await tokenFor(uniqueOrg()), body: person(email) });

    const other = await callApi('POST', '/v1/onboarding-token', {
      token: await tokenFor(uniqueOrg()),
      body: person(email),
    });

    expect(other.status).toBe(201);
  });

  it('issues exactly one token when ten requests for one e-mail arrive at once', async () => {
    const token = await tokenFor(uniqueOrg());
    const email = uniqueEmail();

    const responses = await Promise.all(
      Array.from({ length: 10 }, () => callApi('POST', '/v1/onboarding-token', { token, body: person(email) })),
    );

    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    expect(await emailsTo(email)).toHaveLength(1);
  });

  it('reports every validation problem at once in the contract body', async () => {
    const token = await tokenFor(uniqueOrg());

    const response = await callApi('POST', '/v1/onboarding-token', {
      token,
      body: { email: 'not-an-email', last_name: 7 },
    });

    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      code: 400,
      errors: [
        { field: 'email', code: 'isEmail', hint: expect.stringContaining('email') },
        { field: 'firstName', code: 'isNotEmpty', hint: expect.stringContaining('first_name') },
        { field: 'lastName', code: 'isString', hint: expect.stringContaining('last_name') },
      ],
    });
  });

  it.each([
    ['malformed JSON', '{"email": '],
    ['a JSON array', '[]'],
  ])('answers %s with 400 isJson', async (_, rawBody) => {
    const response = await callApi('POST', '/v1/onboarding-token', {
      token: await tokenFor(uniqueOrg()),
      rawBody,
      headers: { 'content-type': 'application/json' },
    });

    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([expect.objectContaining({ field: 'body', code: 'isJson' })]);
  });

  it('answers a body over 64 KiB with 413', async () => {
    const token = await tokenFor(uniqueOrg());
    const response = await callApi('POST', '/v1/onboarding-token', {
      token,
      body: { ...person(uniqueEmail()), padding: 'x'.repeat(64 * 1024) },
    });

    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 413, error: 'PAYLOAD_TOO_LARGE' });
  });

  it.each([
    ['no token', async () => undefined],
    ['an expired token', async () => tokenFor('acme', { expiresInSeconds: -120 })],
    ['a token without an organization', async () => tokenFor('acme', { claims: { org_id: undefined } })],
    ['a token for another audience', async () => tokenFor('acme', { audience: 'someone-else' })],
  ])('answers %s with 401', async (_, makeToken) => {
    const response = await callApi('POST', '/v1/onboarding-token', {
      token: await makeToken(),
      body: person(uniqueEmail()),
    });

    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({
      code: 401,
      error: 'UNAUTHORIZED',
      path: '/v1/onboarding-token',
      method: 'POST',
    });
  });

  it('answers a token without onboarding:write with 403', async () => {
    const token = await tokenFor(uniqueOrg(), { scopes: ['onboarding:read'] });

    const response = await callApi('POST', '/v1/onboarding-token', { token, body: person(uniqueEmail()) });

    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 403, error: 'FORBIDDEN' });
  });
});

describe('Idempotency-Key on POST /v1/onboarding-token', () => {
  it('replays the first response to a retry with the same key and body, sending one e-mail', async () => {
    const token = await tokenFor(uniqueOrg());
    const email = uniqueEmail();
    const headers = { 'idempotency-key': `retry-${email}` };

    const first = await callApi('POST', '/v1/onboarding-token', { token, body: person(email), headers });
    const retry = await callApi('POST', '/v1/onboarding-token', { token, body: person(email), headers });

    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await emailsTo(email)).toHaveLength(1);
    const { documents } = tokenTable();
    const records = await documents.send(new ScanCommand({ TableName: inject('localEnv').IDEMPOTENCY_TABLE_NAME! }));
    expect(records.Items?.length).toBeGreaterThan(0);
    expect(JSON.stringify(records.Items)).not.toContain(first.body.onboarding_token);
  });

  it('refuses the same key with a different body with 422', async () => {
    const token = await tokenFor(uniqueOrg());
    const headers = { 'idempotency-key': `key-${uniqueEmail()}` };
    await callApi('POST', '/v1/onboarding-token', { token, body: person(uniqueEmail()), headers });

    const reuse = await callApi('POST', '/v1/onboarding-token', { token, body: person(uniqueEmail()), headers });

    expect(reuse.status).toBe(422);
    expect(reuse.body).toMatchObject({ code: 422, error: 'UNPROCESSABLE_ENTITY' });
  });

  it('keeps keys apart between organizations', async () => {
    const email = uniqueEmail();
    const headers = { 'idempotency-key': 'same-key-in-two-orgs' };

    const first = await callApi('POST', '/v1/onboarding-token', {
      token: await tokenFor(uniqueOrg()),
      body: person(email),
      headers,
    });
    const second = await callApi('POST', '/v1/onboarding-token', {
      token: await tokenFor(uniqueOrg()),
      body: person(email),
      headers,
    });

    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.onboarding_token).not.toBe(first.body.onboarding_token);
  });
});

describe('GET /v1/onboarding-tokens', () => {
  it("lists the organization's tokens newest first, page by page, with hints only", async () => {
    const orgId = uniqueOrg();
    const token = await tokenFor(orgId);
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await callApi('POST', '/v1/onboarding-token', { token, body: person(uniqueEmail()) });
      created.push(response.body.onboarding_token);
    }
    await callApi('POST', '/v1/onboarding-token', { token: await tokenFor(uniqueOrg()), body: person(uniqueEmail()) });

    const hints: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const page = await callApi('GET', `/v1/onboarding-tokens${query}`, { token });
      expect(page.status).toBe(200);
      hints.push(...page.body.results.map((r: { tokenHint: string; status: string }) => r.tokenHint));
      expect(page.body.results.every((r: { status: string }) => r.status === 'Issued')).toBe(true);
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor);

    expect(pages).toBe(3);
    expect(hints).toEqual(created.map((t) => t.slice(-4)).reverse());
  });

  it('answers status=Used&limit=1 over 3,000 Issued tokens at once with a cursor, and the cursors reach the Used one', async () => {
    const orgId = uniqueOrg('many');
    const { documents, tableName } = tokenTable();
    const token = await tokenFor(orgId);
    const day = Date.parse('2026-01-01T00:00:00.000Z');
    // Written straight into the table: 3,000 Issued tokens, and one Used token older than all of them.
    const items = Array.from({ length: 3_001 }, (_, index) => {
      const createdAt = new Date(day + index * 60_000).toISOString();
      return tokenItem(
        issuedTokenRecord({
          orgId,
          tokenId: `id-${index}`,
          tokenHash: `hash-${index}`,
          tokenHint: String(index).padStart(4, '0').slice(-4),
          email: `user${index}@example.com`,
          createdAt,
          expiresAt: '2099-01-01T00:00:00.000Z',
          ...(index === 0 ? { usedAt: createdAt } : {}),
        }),
      );
    });
    for (let start = 0; start < items.length; start += 25) {
      const batch = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
      let unprocessed: Record<string, unknown[]> | undefined = { [tableName]: batch };
      while (unprocessed && Object.keys(unprocessed).length > 0) {
        const result = await documents.send(new BatchWriteCommand({ RequestItems: unprocessed as never }));
        unprocessed = result.UnprocessedItems as typeof unprocessed;
      }
    }

    const startedAt = Date.now();
    const first = await callApi('GET', '/v1/onboarding-tokens?status=Used&limit=1', { token });
    const firstMs = Date.now() - startedAt;

    expect(first.status).toBe(200);
    expect(first.body.results).toEqual([]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    // 500 items read, not the partition until the deadline (10 s).
    expect(firstMs).toBeLessThan(3_000);
    let cursor: string | null = first.body.nextCursor;
    const found: string[] = [];
    let requests = 1;
    while (cursor) {
      const page = await callApi(
        'GET',
        `/v1/onboarding-tokens?status=Used&limit=1&cursor=${encodeURIComponent(cursor)}`,
        {
          token,
        },
      );
      expect(page.status).toBe(200);
      found.push(...page.body.results.map((row: { tokenId: string }) => row.tokenId));
      cursor = page.body.nextCursor;
      requests++;
    }
    expect(found).toEqual(['id-0']);
    // 3,001 items at 500 a request.
    expect(requests).toBeLessThanOrEqual(7);
  });

  it('refuses a limit out of range and a forged cursor with 400', async () => {
    const token = await tokenFor(uniqueOrg());

    const badLimit = await callApi('GET', '/v1/onboarding-tokens?limit=500', { token });
    const badCursor = await callApi('GET', '/v1/onboarding-tokens?cursor=abc', { token });

    expect(badLimit.status).toBe(400);
    expect(badLimit.body.errors).toEqual([expect.objectContaining({ field: 'limit', code: 'max' })]);
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.errors).toEqual([expect.objectContaining({ field: 'cursor', code: 'isIn' })]);
  });

  it('needs the onboarding:read scope', async () => {
    const token = await tokenFor(uniqueOrg(), { scopes: ['onboarding:write'] });

    expect((await callApi('GET', '/v1/onboarding-tokens', { token })).status).toBe(403);
  });
});

describe('unmatched routes', () => {
  it('answers an unknown path with 404 and a known path with the wrong method with 405, in the standard body', async () => {
    const notFound = await callApi('GET', '/v1/nothing-here');
    const wrongMethod = await callApi('GET', '/v1/onboarding-token');

    expect(notFound.status).toBe(404);
    expect(notFound.body).toMatchObject({ code: 404, error: 'NOT_FOUND', path: '/v1/nothing-here', method: 'GET' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
  });
});
