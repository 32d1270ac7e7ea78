import { setTimeout as sleep } from 'node:timers/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startWebhookReceiver } from '#test/support/webhook-receiver.ts';
import { apiEvent } from '#test/support/api-event.ts';
import { callApi, tokenFor, uniqueOrg, type ApiResponse } from '#test/support/api-client.ts';
import { coldStart, lambdaContext } from '#test/support/report-support.ts';
import { emailsTo } from '#test/support/ses-inbox.ts';

/**
 * Contract §15's limits on the local stack, with parallel requests and exact counts: onboarding
 * e-mails (5 an hour to one address, 1,000 an hour per organization), webhook tests (10 a minute
 * per organization). E-mails are counted in the SES emulator's store, webhook tests at a receiver.
 */

const person = (email: string) => ({ email, first_name: 'Zoë', last_name: 'Ångström' });
const uniqueEmail = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}@example.com`;
const statuses = (responses: ReadonlyArray<{ status: number }>) => responses.map((response) => response.status).sort();

const resend = (token: string, tokenId: string) =>
  callApi('POST', `/v1/onboarding-tokens/${tokenId}/resend`, { token });

/** A 429 in the contract's shape: the standard body, Retry-After and the refusing quota's RateLimit-*. */
function expectRefused(response: ApiResponse, path: string, limit: number, maxRetryAfter: number): void {
  expect(response.status).toBe(429);
  expect(response.body).toEqual({
    code: 429,
    timestamp: expect.any(String),
    path,
    method: 'POST',
    error: 'TOO_MANY_REQUESTS',
    message: expect.any(String),
  });
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxRetryAfter);
  expect(response.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(response.headers.get('ratelimit-remaining')).toBe('0');
  expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
}

async function listedTokens(token: string): Promise<Array<{ tokenId: string; email: string; status: string }>> {
  const listed = await callApi('GET', '/v1/onboarding-tokens?limit=100', { token });
  expect(listed.status).toBe(200);
  return listed.body.results;
}

describe('onboarding e-mails: at most 5 an hour to one address', () => {
  it('sends exactly 5 of 8 attempts: the last 3, in parallel, get 429 with Retry-After, and nothing is stored or sent for them', async () => {
    const orgId = uniqueOrg('quota');
    const token = await tokenFor(orgId);
    const email = uniqueEmail('five');
    const created = await callApi('POST', '/v1/onboarding-token', { token, body: person(email) });
    expect(created.status).toBe(201);
    expect(created.headers.get('ratelimit-limit')).toBe('5');
    expect(created.headers.get('ratelimit-remaining')).toBe('4');
    let tokenId = created.body.tokenId as string;
    for (const remaining of ['3', '2', '1', '0']) {
      const resent = await resend(token, tokenId);
      expect(resent.status).toBe(201);
      expect(resent.headers.get('ratelimit-remaining')).toBe(remaining);
      tokenId = resent.body.tokenId;
    }

    const refused = await Promise.all([
      resend(token, tokenId),
      resend(token, tokenId),
      // The quota comes before the live-token check: a create for the address is 429 too, not 409.
      callApi('POST', '/v1/onboarding-token', { token, body: person(email.toUpperCase()) }),
    ]);

    expectRefused(refused[0]!, `/v1/onboarding-tokens/${tokenId}/resend`, 5, 3600);
    expectRefused(refused[1]!, `/v1/onboarding-tokens/${tokenId}/resend`, 5, 3600);
    expectRefused(refused[2]!, '/v1/onboarding-token', 5, 3600);
    const mails = await emailsTo(email);
    expect(mails).toHaveLength(5);
    // Five tokens, the last one live: a refused resend revoked nothing and stored nothing.
    const tokens = await listedTokens(token);
    expect(tokens).toHaveLength(5);
    expect(tokens.filter((listed) => listed.status === 'Issued').map((listed) => listed.tokenId)).toEqual([tokenId]);

    // The quota is this organization's use of the address: another organization may still onboard the person.
    const elsewhere = await callApi('POST', '/v1/onboarding-token', {
      token: await tokenFor(uniqueOrg('quota-other')),
      body: person(email),
    });
    expect(elsewhere.status).toBe(201);
    expect(await emailsTo(email)).toHaveLength(6);
  });

  it('spends nothing on a request refused for another reason: parallel creates and resends that conflict (409) leave the quota', async () => {
    const orgId = uniqueOrg('quota');
    const token = await tokenFor(orgId);
    const email = uniqueEmail('conflict');

    // One live token per address: of 8 parallel creates one wins, 7 conflict.
    const creates = await Promise.all(
      Array.from({ length: 8 }, () => callApi('POST', '/v1/onboarding-token', { token, body: person(email) })),
    );
    expect(statuses(creates)).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    let tokenId = creates.find((response) => response.status === 201)!.body.tokenId as string;
    // Of 4 parallel resends of that token one replaces it; the others find it Revoked.
    const resends = await Promise.all(Array.from({ length: 4 }, () => resend(token, tokenId)));
    expect(statuses(resends)).toEqual([201, 409, 409, 409]);
    const winner = resends.find((response) => response.status === 201)!;
    expect(winner.headers.get('ratelimit-remaining')).toBe('3');
    expect(await emailsTo(email)).toHaveLength(2);

    // 2 of 5 spent, whatever the 10 refused requests did.
    tokenId = winner.body.tokenId;
    for (const remaining of ['2', '1', '0']) {
      const resent = await resend(token, tokenId);
      expect(resent.status).toBe(201);
      expect(resent.headers.get('ratelimit-remaining')).toBe(remaining);
      tokenId = resent.body.tokenId;
    }
    expectRefused(await resend(token, tokenId), `/v1/onboarding-tokens/${tokenId}/resend`, 5, 3600);
    expect(await emailsTo(email)).toHaveLength(5);
  });
});

describe('onboarding e-mails: plus and dot variants of one mailbox share its quota', () => {
  it('creates tokens for 5 variants of one Gmail mailbox, refuses the 6th (429) and sends it nothing; another mailbox is unaffected', async () => {
    const token = await tokenFor(uniqueOrg('quota-variants'));
    const mailbox = `victim${Math.random().toString(36).slice(2, 8)}`;
    const dotted = `${mailbox.slice(0, 3)}.${mailbox.slice(3)}`;
    const variants = [
      `${mailbox}@gmail.com`,
      `${mailbox}+1@gmail.com`,
      `${dotted}@gmail.com`,
      `${dotted}+news@googlemail.com`,
      `${mailbox.toUpperCase()}+2@GMAIL.com`,
    ];
    for (const [index, email] of variants.entries()) {
      const created = await callApi('POST', '/v1/onboarding-token', { token, body: person(email) });
      expect(created.status, email).toBe(201);
      expect(created.headers.get('ratelimit-remaining')).toBe(String(4 - index));
    }

    const sixth = `${mailbox}+6@gmail.com`;
    expectRefused(
      await callApi('POST', '/v1/onboarding-token', { token, body: person(sixth) }),
      '/v1/onboarding-token',
      5,
      3600,
    );
    expect(await emailsTo(sixth)).toHaveLength(0);
    const other = await callApi('POST', '/v1/onboarding-token', { token, body: person(`${mailbox}x+1@gmail.com`) });
    expect(other.status).toBe(201);
  });
});

describe('onboarding e-mails: the organization’s hourly quota (lowered to 3 for this test)', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  type ApiHandler = (
    event: APIGatewayProxyEventV2,
    context: ReturnType<typeof lambdaContext>,
  ) => Promise<APIGatewayProxyStructuredResultV2>;

  const invoke = async (handler: ApiHandler, name: string, event: APIGatewayProxyEventV2) => {
    const result = await handler(event, lambdaContext(name, 10_000));
    return {
      status: result.statusCode!,
      headers: new Headers(result.headers as Record<string, string>),
      body: result.body ? JSON.parse(result.body) : undefined,
    } satisfies ApiResponse;
  };

  it('sends exactly 3 of 6 parallel creates to 6 addresses; the rest 429 until the hour ends, another organization unaffected', async () => {
    // The organization's window is the clock hour: keep the burst inside one.
    const untilHourEnds = 3_600_000 - (Date.now() % 3_600_000);
    if (untilHourEnds < 15_000) await sleep(untilHourEnds + 500);
    const quotas = { EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR: '3' };
    const create = (await coldStart<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(
      'create-onboarding-token',
      quotas,
    )) as { handler: ApiHandler };
    const resendHandler = (await coldStart<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(
      'resend-onboarding-token',
      quotas,
    )) as { handler: ApiHandler };
    const orgId = uniqueOrg('quota-org');
    const token = await tokenFor(orgId);
    const createEvent = (bearer: string, email: string) =>
      apiEvent({
        method: 'POST',
        path: '/v1/onboarding-token',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: person(email),
      });
    const addresses = Array.from({ length: 6 }, () => uniqueEmail('org'));

    // Retry-After is counted when the quota refuses: at most the hour's seconds left when the requests went out.
    const secondsLeftInHour = Math.ceil((3_600_000 - (Date.now() % 3_600_000)) / 1000) + 1;
    const answers = await Promise.all(
      addresses.map((email) => invoke(create.handler, 'CreateOnboardingToken', createEvent(token, email))),
    );

    expect(statuses(answers)).toEqual([201, 201, 201, 429, 429, 429]);
    for (const refused of answers.filter((answer) => answer.status === 429)) {
      expectRefused(refused, '/v1/onboarding-token', 3, secondsLeftInHour);
    }
    const sentTo = [];
    for (const [i, email] of addresses.entries()) {
      const mails = await emailsTo(email);
      expect(mails, email).toHaveLength(answers[i]!.status === 201 ? 1 : 0);
      if (mails.length > 0) sentTo.push(email);
    }
    expect(sentTo).toHaveLength(3);
    const tokens = await listedTokens(token);
    expect(tokens.map((listed) => listed.email).sort()).toEqual([...sentTo].sort());

    // Resend spends the same quota.
    const resent = await invoke(
      resendHandler.handler,
      'ResendOnboardingToken',
      apiEvent({
        method: 'POST',
        path: `/v1/onboarding-tokens/${tokens[0]!.tokenId}/resend`,
        headers: { authorization: `Bearer ${token}` },
        pathParameters: { tokenId: tokens[0]!.tokenId },
      }),
    );
    expectRefused(resent, `/v1/onboarding-tokens/${tokens[0]!.tokenId}/resend`, 3, secondsLeftInHour);
    expect((await listedTokens(token)).map((listed) => listed.status)).toEqual(['Issued', 'Issued', 'Issued']);

    // Another organization, same function: its own quota.
    const other = await invoke(
      create.handler,
      'CreateOnboardingToken',
      createEvent(await tokenFor(uniqueOrg('quota-org-other')), uniqueEmail('other')),
    );
    expect(other.status).toBe(201);
    expect(other.headers.get('ratelimit-remaining')).toBe('2');
  });
});

describe('webhook tests: at most 10 a minute per organization', () => {
  it('answers 12 parallel tests with exactly 10 × 202 and 2 × 429; exactly 10 messages go out; another organization is unaffected', async () => {
    const hook = await startWebhookReceiver();
    const otherHook = await startWebhookReceiver();
    try {
      const token = await tokenFor(uniqueOrg('wh-limit'));
      const endpoint = await callApi('POST', '/v1/webhooks', {
        token,
        body: { url: hook.url, events: ['report.completed'] },
      });
      expect(endpoint.status).toBe(201);
      const path = `/v1/webhooks/${endpoint.body.id}/test`;

      const tests = await Promise.all(Array.from({ length: 12 }, () => callApi('POST', path, { token })));

      expect(statuses(tests)).toEqual([...Array(10).fill(202), 429, 429]);
      const accepted = tests.filter((response) => response.status === 202);
      expect(accepted.map((response) => response.headers.get('ratelimit-remaining')).sort()).toEqual(
        ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'].sort(),
      );
      for (const refused of tests.filter((response) => response.status === 429)) expectRefused(refused, path, 10, 60);

      // Another organization's test goes through while this one's minute is spent.
      const otherToken = await tokenFor(uniqueOrg('wh-limit-other'));
      const otherEndpoint = await callApi('POST', '/v1/webhooks', {
        token: otherToken,
        body: { url: otherHook.url, events: ['report.completed'] },
      });
      const otherTest = await callApi('POST', `/v1/webhooks/${otherEndpoint.body.id}/test`, { token: otherToken });
      expect(otherTest.status).toBe(202);
      expect(otherTest.headers.get('ratelimit-remaining')).toBe('9');
      expectRefused(await callApi('POST', path, { token }), path, 10, 60);

      // Exactly the accepted tests were queued and delivered.
      await hook.waitFor(10);
      await otherHook.waitFor(1);
      await sleep(2_000);
      const eventIds = hook.received.map((message) => JSON.parse(message.body).data?.endpointId as string);
      expect(hook.received).toHaveLength(10);
      expect(new Set(eventIds)).toEqual(new Set([endpoint.body.id]));
      expect(new Set(hook.received.map((message) => message.headers['webhook-id'])).size).toBe(10);
      expect(otherHook.received).toHaveLength(1);
    } finally {
      await Promise.all([hook.close(), otherHook.close()]);
    }
  });
});
