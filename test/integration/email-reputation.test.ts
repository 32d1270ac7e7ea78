import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { DynamoDbEmailReputationStore } from '#shared/adapters/dynamodb/email-reputation-store.ts';
import { MAY_SEND_REUSE_MS } from '#shared/wiring/onboarding.ts';
import { reputationFigures, type EmailReputationFigures } from '#shared/domain/onboarding/email-reputation.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';

const run = promisify(execFile);

function reputationStore(): DynamoDbEmailReputationStore {
  const env = inject('localEnv');
  const client = new DynamoDBClient({
    endpoint: env.AWS_ENDPOINT_URL_DYNAMODB,
    region: env.AWS_REGION,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  });
  return new DynamoDbEmailReputationStore(DynamoDBDocumentClient.from(client), env.ONBOARDING_TOKENS_TABLE_NAME!);
}

/** The figures once the local event destination has counted what `counted` waits for (events arrive within a second). */
async function figuresOnce(
  orgId: string,
  counted: (figures: EmailReputationFigures) => boolean,
): Promise<EmailReputationFigures> {
  const store = reputationStore();
  const deadline = Date.now() + 20_000;
  for (;;) {
    const figures = reputationFigures(await store.read(orgId));
    if (counted(figures) || Date.now() > deadline) return figures;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The figures once `sent` e-mails are counted; an e-mail's bounce or complaint may still be on its way. */
const figuresAfter = (orgId: string, sent: number) => figuresOnce(orgId, (figures) => figures.sent >= sent);

/** `npm run -s org:email -- …` against the tier's DynamoDB. */
function orgEmail(...args: string[]) {
  const env = inject('localEnv');
  return run('npx', ['tsx', 'scripts/email-reputation.ts', ...args], {
    env: {
      ...process.env,
      AWS_ENDPOINT_URL_DYNAMODB: env.AWS_ENDPOINT_URL_DYNAMODB,
      AWS_REGION: env.AWS_REGION,
      AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY,
      ONBOARDING_TOKENS_TABLE_NAME: env.ONBOARDING_TOKENS_TABLE_NAME,
    },
  });
}

/** Until the sending functions, which read an organization that may send once per window, have seen its pause. */
const pauseSeenBySenders = () => new Promise((resolve) => setTimeout(resolve, MAY_SEND_REUSE_MS));

const person = (email: string) => ({ email, first_name: 'Zoë', last_name: 'Ångström' });
const create = (token: string, email: string) =>
  callApi('POST', '/v1/onboarding-token', { token, body: person(email) });
const uniqueEmail = () => `user-${Math.random().toString(36).slice(2, 10)}@example.com`;

describe('e-mail reputation per organization (SES mailbox simulator, end to end)', () => {
  it('pauses an organization past 5% bounces once it has sent 20 and 10 bounced, answers 429 to create and resend, and the command resumes it', async () => {
    const orgId = uniqueOrg('bouncy');
    const otherOrg = uniqueOrg('quiet');
    const token = await tokenFor(orgId);

    // Ten permanent bounces (the simulator's `bounce@` and `suppressionlist@`, with labels: five e-mails an hour to an
    // address) among 19 e-mails: 53%, but fewer than 20 sent.
    for (const mailbox of ['bounce', 'suppressionlist'])
      for (const label of ['a', 'b', 'c', 'd', 'e'])
        expect((await create(token, `${mailbox}+${label}@simulator.amazonses.com`)).status).toBe(201);
    const delivered: string[] = [];
    for (let i = 0; i < 9; i++) {
      const response = await create(token, uniqueEmail());
      expect(response.status).toBe(201);
      delivered.push(response.body.tokenId);
    }
    expect(await figuresAfter(orgId, 19)).toMatchObject({ sent: 19, bounces: 10, paused: undefined });

    // The 20th e-mail goes out; once its send is counted, 10 of 20 (50%) pauses the organization.
    expect((await create(token, 'success@simulator.amazonses.com')).status).toBe(201);
    const paused = await figuresAfter(orgId, 20);
    expect(paused).toMatchObject({ sent: 20, bounces: 10, complaints: 0, paused: { reason: 'bounces' } });
    await pauseSeenBySenders();

    const refused = await create(token, uniqueEmail());
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 429, error: 'TOO_MANY_REQUESTS' });
    expect(refused.body.message).toMatch(/e-mail is paused/);
    expect(refused.headers.get('retry-after')).toBe('3600');
    const resent = await callApi('POST', `/v1/onboarding-tokens/${delivered[0]}/resend`, { token });
    expect(resent.status).toBe(429);
    expect(resent.body.message).toMatch(/e-mail is paused/);
    // Another organization sends as before.
    expect((await create(await tokenFor(otherOrg), uniqueEmail())).status).toBe(201);

    const shown = await orgEmail('show', orgId);
    expect(shown.stdout).toMatch(/paused since .* \(bounces\); last 20 e-mail\(s\): 10 bounce\(s\) \(50\.0%\)/);

    const resumed = await orgEmail('resume', orgId);
    expect(resumed.stdout).toContain('resumed');
    expect((await create(token, uniqueEmail())).status).toBe(201);
    expect((await orgEmail('show', orgId)).stdout).toMatch(/not paused/);
  }, 120_000);

  it('counts the bounce and the complaint of an organization whose id has a period (acme.eu) for that organization', async () => {
    // SES refuses a message tag value with a period (400), and so does the local emulator: the id is escaped in the tag.
    const orgId = 'acme.eu';
    const token = await tokenFor(orgId);
    expect((await create(token, 'bounce@simulator.amazonses.com')).status).toBe(201);
    expect((await create(token, 'complaint@simulator.amazonses.com')).status).toBe(201);

    const counted = await figuresOnce(orgId, (figures) => figures.bounces + figures.complaints >= 2);
    expect(counted).toMatchObject({ sent: 2, bounces: 1, complaints: 1 });
  }, 60_000);

  it('does not pause an organization for two complaints among its 20 e-mails; the third pauses it (contract §27)', async () => {
    const orgId = uniqueOrg('complained');
    const token = await tokenFor(orgId);
    const complain = (label: string) => create(token, `complaint+${label}@simulator.amazonses.com`);
    for (const label of ['a', 'b']) expect((await complain(label)).status).toBe(201);
    for (let i = 0; i < 18; i++) expect((await create(token, uniqueEmail())).status).toBe(201);

    expect(await figuresAfter(orgId, 20)).toMatchObject({ sent: 20, complaints: 2, paused: undefined });
    await pauseSeenBySenders();
    expect((await complain('c')).status).toBe(201);
    const paused = await figuresOnce(orgId, (figures) => figures.paused !== undefined);
    expect(paused).toMatchObject({ sent: 21, complaints: 3, paused: { reason: 'complaints' } });
    await pauseSeenBySenders();
    expect((await create(token, uniqueEmail())).status).toBe(429);
  }, 120_000);
});
