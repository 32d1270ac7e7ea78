import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { emailsTo } from '#test/support/ses-inbox.ts';
import {
  expectContractAnswers,
  fault,
  longestRetryAfterMs,
  sleep,
  timed,
  type TimedResponse,
} from './fault-support.ts';

/**
 * SES black-holed, then refusing connections, while onboarding tokens are created and resent.
 * A token is confirmed only once SES accepted its e-mail, so each answer is a 201 (token stored,
 * confirmed and e-mailed) or the contract's 503 leaving nothing behind: no token a reader can
 * see, the resent token unchanged. After recovery the same creates succeed and e-mails sent =
 * tokens issued, one of each per address.
 */

const person = (email: string) => ({ email, first_name: 'Ada', last_name: 'Mail' });

describe('SES stalled, then refusing connections, while tokens are created', () => {
  const orgId = uniqueOrg('sesfault');
  const stalledEmails = [0, 1, 2].map((i) => `stalled-${i}-${orgId}@example.com`);
  const refusedEmails = [0, 1].map((i) => `refused-${i}-${orgId}@example.com`);
  const resentEmail = `resent-${orgId}@example.com`;
  let token: string;
  let resent: { tokenId: string; onboarding_token: string };
  const answers: TimedResponse[] = [];
  let recoveredAt = 0;

  const create = (email: string, label: string) =>
    timed(label, callApi('POST', '/v1/onboarding-token', { token, body: person(email) }));

  beforeAll(async () => {
    token = await tokenFor(orgId);
    const before = await callApi('POST', '/v1/onboarding-token', { token, body: person(resentEmail) });
    expect(before.status).toBe(201);
    resent = before.body;

    await fault('ses', 'stall');
    try {
      answers.push(
        ...(await Promise.all([
          ...stalledEmails.map((email) => create(email, `create ${email}, SES stalled`)),
          timed('list tokens, SES stalled', callApi('GET', '/v1/onboarding-tokens', { token })),
        ])),
      );
      const stalled = await fault('ses', 'refuse');
      expect(stalled.stalledConnections, 'the token function reached the stalled SES').toBeGreaterThan(0);
      answers.push(
        ...(await Promise.all([
          ...refusedEmails.map((email) => create(email, `create ${email}, SES refusing`)),
          timed(
            'resend, SES refusing',
            callApi('POST', `/v1/onboarding-tokens/${resent.tokenId}/resend`, { token, body: {} }),
          ),
        ])),
      );
    } finally {
      await fault('ses', 'pass');
      recoveredAt = Date.now();
    }
  }, 60_000);

  afterAll(() => fault('ses', 'pass'));

  it('answers each create and resend with the contract’s 503 in time; reads that need no e-mail succeed', () => {
    const writes = answers.filter((answer) => !answer.label.startsWith('list'));
    expectContractAnswers(writes, 201);
    expect(writes.map((answer) => answer.status)).toEqual(Array(writes.length).fill(503));
    const list = answers.find((answer) => answer.label.startsWith('list'))!;
    expectContractAnswers([list], 200);
    expect(list.status).toBe(200);
  });

  it('left nothing behind: no token for the failed creates, the resent token unchanged and still redeemable', async () => {
    const listed = await callApi('GET', '/v1/onboarding-tokens?limit=100', { token });
    const rows = listed.body.results as Array<{ email: string; tokenId: string; status: string }>;
    expect(rows.map((row) => row.email)).toEqual([resentEmail]);
    expect(rows[0]).toMatchObject({ tokenId: resent.tokenId, status: 'Issued' });
    for (const email of [...stalledEmails, ...refusedEmails]) expect(await emailsTo(email), email).toEqual([]);
  });

  it('after recovery the same creates succeed, and e-mails sent = tokens issued for every address', async () => {
    await sleep(Math.max(0, recoveredAt + longestRetryAfterMs(answers) - Date.now()));
    for (const email of [...stalledEmails, ...refusedEmails]) {
      const retried = await callApi('POST', '/v1/onboarding-token', { token, body: person(email) });
      expect.soft(retried.status, email).toBe(201);
    }
    const retriedResend = await callApi('POST', `/v1/onboarding-tokens/${resent.tokenId}/resend`, {
      token,
      body: {},
    });
    expect(retriedResend.status).toBe(201);

    const listed = await callApi('GET', '/v1/onboarding-tokens?limit=100', { token });
    const rows = listed.body.results as Array<{ email: string; status: string }>;
    for (const email of [...stalledEmails, ...refusedEmails]) {
      expect
        .soft(
          rows.filter((row) => row.email === email).map((row) => row.status),
          email,
        )
        .toEqual(['Issued']);
      expect.soft(await emailsTo(email), email).toHaveLength(1);
    }
    // The resent address: the first token (revoked by the resend) and its replacement, two e-mails.
    expect(
      rows
        .filter((row) => row.email === resentEmail)
        .map((row) => row.status)
        .sort(),
    ).toEqual(['Issued', 'Revoked']);
    expect(await emailsTo(resentEmail)).toHaveLength(2);
  }, 60_000);
});
