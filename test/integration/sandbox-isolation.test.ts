import { describe, expect, inject, it } from 'vitest';
import { OnboardingApiClient } from '#client/index.ts';
import { DynamoDbSandboxMailbox } from '#shared/adapters/dynamodb/sandbox-mailbox.ts';
import { callApi, sandboxTokenFor, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { documentClient } from '#test/support/report-support.ts';
import { emailsTo } from '#test/support/ses-inbox.ts';

/**
 * The sandbox beside live through the local stack (contract §23, docs/sandbox.md): a sandbox
 * token's e-mail is kept, never sent; every answer to it says `Sandbox: true`; its ids are not
 * live's and the reverse; its report rate limit is its own.
 */

const mailbox = () => new DynamoDbSandboxMailbox(documentClient(), inject('localEnv').ONBOARDING_TOKENS_TABLE_NAME!);
const person = (email: string) => ({ email, first_name: 'Ada', last_name: 'Lovelace' });

describe('the sandbox beside live', () => {
  it('keeps a sandbox token’s onboarding e-mail in the sandbox mailbox and sends SES nothing; live’s goes out', async () => {
    const orgId = uniqueOrg('sbx-mail');
    const sandboxAddress = `sandbox-${orgId}@example.com`;
    const liveAddress = `live-${orgId}@example.com`;

    const kept = await callApi('POST', '/v1/onboarding-token', {
      token: await sandboxTokenFor(orgId),
      body: person(sandboxAddress),
    });
    const sent = await callApi('POST', '/v1/onboarding-token', {
      token: await tokenFor(orgId),
      body: person(liveAddress),
    });

    expect([kept.status, sent.status]).toEqual([201, 201]);
    expect(kept.headers.get('sandbox')).toBe('true');
    expect(sent.headers.get('sandbox')).toBeNull();
    expect(await emailsTo(sandboxAddress)).toEqual([]);
    expect(await emailsTo(liveAddress)).toHaveLength(1);

    const page = await mailbox().list(`${orgId}~sandbox`, { to: sandboxAddress, limit: 10 });
    expect(page.emails).toEqual([
      {
        to: sandboxAddress,
        subject: expect.stringContaining('Your onboarding code'),
        text: expect.stringContaining(kept.body.onboarding_token as string),
        html: expect.stringContaining(kept.body.onboarding_token as string),
        tokenId: kept.body.tokenId,
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      },
    ]);
    expect((await mailbox().list(orgId, { limit: 10 })).emails).toEqual([]);
  });

  it('answers a live token 404 for a sandbox token id and a sandbox token 404 for a live one, and lists apart', async () => {
    const orgId = uniqueOrg('sbx-ids');
    const sandbox = await sandboxTokenFor(orgId);
    const live = await tokenFor(orgId);
    const sandboxToken = await callApi('POST', '/v1/onboarding-token', {
      token: sandbox,
      body: person(`s-${orgId}@example.com`),
    });
    const liveToken = await callApi('POST', '/v1/onboarding-token', {
      token: live,
      body: person(`l-${orgId}@example.com`),
    });

    const liveOnSandbox = await callApi('DELETE', `/v1/onboarding-tokens/${sandboxToken.body.tokenId}`, {
      token: live,
    });
    const sandboxOnLive = await callApi('DELETE', `/v1/onboarding-tokens/${liveToken.body.tokenId}`, {
      token: sandbox,
    });

    expect(liveOnSandbox.status).toBe(404);
    expect(sandboxOnLive.status).toBe(404);
    expect(sandboxOnLive.headers.get('sandbox')).toBe('true');
    const listed = async (token: string) =>
      ((await callApi('GET', '/v1/onboarding-tokens', { token })).body.results as Array<{ tokenId: string }>).map(
        (row) => row.tokenId,
      );
    expect(await listed(live)).toEqual([liveToken.body.tokenId]);
    expect(await listed(sandbox)).toEqual([sandboxToken.body.tokenId]);
  });

  it('gives the sandbox its own 10 report requests per 10 minutes, apart from live’s', async () => {
    const orgId = uniqueOrg('sbx-rate');
    const live = await tokenFor(orgId);
    const sandbox = await sandboxTokenFor(orgId);
    // Every authenticated request spends the limit, whatever its outcome (here 404: no such user).
    for (let i = 0; i < 10; i++)
      await callApi('POST', '/v1/document/api', { token: live, body: { userId: `nobody-${i}` } });

    const liveRefused = await callApi('POST', '/v1/document/api', { token: live, body: { userId: 'nobody' } });
    const sandboxAnswers = [];
    for (let i = 0; i < 11; i++) {
      sandboxAnswers.push(
        await callApi('POST', '/v1/document/api', { token: sandbox, body: { userId: `nobody-${i}` } }),
      );
    }

    expect(liveRefused.status).toBe(429);
    expect(sandboxAnswers.map((answer) => answer.status)).toEqual([...Array(10).fill(404), 429]);
    expect(sandboxAnswers.every((answer) => answer.headers.get('sandbox') === 'true')).toBe(true);
  });
});

describe('GET /v1/sandbox/emails', () => {
  it('lists the sandbox’s kept e-mails newest first, by recipient, a page at a time, through the typed client', async () => {
    const orgId = uniqueOrg('sbx-inbox');
    const client = new OnboardingApiClient({ baseUrl: inject('baseUrl'), token: await sandboxTokenFor(orgId) });
    const ada = `ada-${orgId}@example.com`;
    const created = [];
    for (const email of [ada, `bob-${orgId}@example.com`, `Cy-${orgId}@Example.com`]) {
      created.push(await client.createOnboardingToken({ email, first_name: 'Ada', last_name: 'Lovelace' }));
    }

    const first = await client.listSandboxEmails({ limit: 2 });
    const second = await client.listSandboxEmails({ limit: 2, cursor: first.nextCursor! });
    const toAda = await client.listSandboxEmails({ to: ada.toUpperCase() });

    expect([...first.results, ...second.results].map((email) => email.tokenId)).toEqual(
      created.map((token) => token.tokenId).reverse(),
    );
    expect(second.nextCursor).toBeNull();
    expect(toAda.results).toEqual([expect.objectContaining({ to: ada, tokenId: created[0]!.tokenId })]);
    expect(toAda.results[0]!.text).toContain(created[0]!.onboarding_token);
  });

  it('does not exist for a live token (404, the standard body), and refuses a cursor of another recipient (400)', async () => {
    const orgId = uniqueOrg('sbx-inbox');
    const live = await callApi('GET', '/v1/sandbox/emails', { token: await tokenFor(orgId) });
    expect(live.status).toBe(404);
    expect(live.body).toMatchObject({ code: 404, path: '/v1/sandbox/emails', method: 'GET' });
    expect(live.headers.get('sandbox')).toBeNull();

    const sandbox = await sandboxTokenFor(orgId);
    for (const email of ['a', 'b'].map((name) => `${name}-${orgId}@example.com`)) {
      await callApi('POST', '/v1/onboarding-token', { token: sandbox, body: person(email) });
    }
    const page = await callApi('GET', `/v1/sandbox/emails?to=a-${orgId}@example.com&limit=1`, { token: sandbox });
    const all = await callApi('GET', '/v1/sandbox/emails?limit=1', { token: sandbox });
    const mixed = await callApi('GET', `/v1/sandbox/emails?to=a-${orgId}@example.com&cursor=${all.body.nextCursor}`, {
      token: sandbox,
    });
    expect(page.status).toBe(200);
    expect(mixed.status).toBe(400);
    expect(mixed.headers.get('sandbox')).toBe('true');
  });
});
