import { DeleteEmailTemplateCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { onboardingEmailTemplate } from '#shared/adapters/ses/onboarding-email-template.ts';
import { putEmailTemplate } from '#local/resources.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';

interface StoredEmail {
  destination: { to: string[] };
  body: { text: string };
}

async function emailsTo(address: string): Promise<StoredEmail[]> {
  const store = (await (await fetch(`${inject('endpoints').ses}/store`)).json()) as { emails: StoredEmail[] };
  return store.emails.filter((email) => email.destination.to.includes(address));
}

function awsClientConfig() {
  const env = inject('localEnv');
  return {
    region: env.AWS_REGION,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  };
}

const uniqueEmail = () => `life-${Math.random().toString(36).slice(2, 10)}@example.com`;

/** An organization with a caller holding every scope, and one Issued token. */
async function issuedToken(orgId = uniqueOrg('life')) {
  const auth = await tokenFor(orgId, { subject: 'staff-7' });
  const email = uniqueEmail();
  const created = await callApi('POST', '/v1/onboarding-token', {
    token: auth,
    body: { email, first_name: 'Zoë', last_name: 'Ångström' },
  });
  expect(created.status).toBe(201);
  return {
    orgId,
    auth,
    email,
    onboardingToken: created.body.onboarding_token as string,
    tokenId: created.body.tokenId as string,
  };
}

const redeem = (auth: string, onboardingToken: string) =>
  callApi('POST', '/v1/onboarding-token/redeem', { token: auth, body: { onboarding_token: onboardingToken } });

describe('onboarding token lifecycle', () => {
  it('gives every token a UUID tokenId, in the 201 and on the dashboard', async () => {
    const { auth, tokenId } = await issuedToken();
    expect(tokenId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const listed = await callApi('GET', '/v1/onboarding-tokens', { token: auth });
    expect(listed.body.results).toEqual([expect.objectContaining({ tokenId, status: 'Issued' })]);
  });

  it('redeems a token exactly once of ten parallel redemptions; the others get 409 Used', async () => {
    const { auth, onboardingToken, email, tokenId } = await issuedToken();

    const responses = await Promise.all(Array.from({ length: 10 }, () => redeem(auth, onboardingToken)));

    expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const used = responses.find((r) => r.status === 200)!;
    expect(used.body).toEqual({
      tokenId,
      email,
      first_name: 'Zoë',
      last_name: 'Ångström',
      status: 'Used',
      usedAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    for (const conflict of responses.filter((r) => r.status === 409)) {
      expect(conflict.body).toMatchObject({ code: 409, error: 'CONFLICT', tokenStatus: 'Used' });
    }
    const listed = await callApi('GET', '/v1/onboarding-tokens?status=Used', { token: auth });
    expect(listed.body.results).toEqual([
      expect.objectContaining({ tokenId, status: 'Used', usedAt: used.body.usedAt }),
    ]);
  });

  it('frees the e-mail once a token is Used: a new token for it is 201', async () => {
    const { auth, onboardingToken, email } = await issuedToken();
    expect((await redeem(auth, onboardingToken)).status).toBe(200);

    const again = await callApi('POST', '/v1/onboarding-token', {
      token: auth,
      body: { email, first_name: 'Zoë', last_name: 'Ångström' },
    });
    expect(again.status).toBe(201);
  });

  it('never confirms another organization’s token: 404 to redeem, revoke or resend it', async () => {
    const { onboardingToken, tokenId } = await issuedToken();
    const stranger = await tokenFor(uniqueOrg('stranger'));

    expect((await redeem(stranger, onboardingToken)).status).toBe(404);
    expect((await callApi('DELETE', `/v1/onboarding-tokens/${tokenId}`, { token: stranger })).status).toBe(404);
    expect((await callApi('POST', `/v1/onboarding-tokens/${tokenId}/resend`, { token: stranger })).status).toBe(404);
    expect((await redeem(stranger, 'A'.repeat(32))).body).toMatchObject({ code: 404, error: 'NOT_FOUND' });
  });

  it('revokes an Issued token (204, again 204), frees its e-mail and refuses to redeem it with 409 Revoked', async () => {
    const { auth, onboardingToken, tokenId, email } = await issuedToken();

    const revoked = await callApi('DELETE', `/v1/onboarding-tokens/${tokenId}`, { token: auth });
    expect(revoked.status).toBe(204);
    expect(revoked.headers.get('x-request-id')).toMatch(/\S+/);
    expect((await callApi('DELETE', `/v1/onboarding-tokens/${tokenId}`, { token: auth })).status).toBe(204);

    expect((await redeem(auth, onboardingToken)).body).toMatchObject({ code: 409, tokenStatus: 'Revoked' });
    const listed = await callApi('GET', '/v1/onboarding-tokens?status=Revoked', { token: auth });
    expect(listed.body.results).toEqual([
      expect.objectContaining({ tokenId, status: 'Revoked', revokedAt: expect.any(String), revokedBy: 'staff-7' }),
    ]);
    const created = await callApi('POST', '/v1/onboarding-token', {
      token: auth,
      body: { email, first_name: 'Zoë', last_name: 'Ångström' },
    });
    expect(created.status).toBe(201);
  });

  it('answers 409 naming the status to revoke a Used token, and to redeem, revoke or resend an Expired one as fits', async () => {
    const used = await issuedToken();
    await redeem(used.auth, used.onboardingToken);
    expect((await callApi('DELETE', `/v1/onboarding-tokens/${used.tokenId}`, { token: used.auth })).body).toMatchObject(
      {
        code: 409,
        tokenStatus: 'Used',
      },
    );
    expect(
      (await callApi('POST', `/v1/onboarding-tokens/${used.tokenId}/resend`, { token: used.auth })).body,
    ).toMatchObject({ code: 409, tokenStatus: 'Used' });

    const expired = await issuedToken();
    await expireToken(expired.orgId, expired.tokenId);
    expect((await redeem(expired.auth, expired.onboardingToken)).body).toMatchObject({ tokenStatus: 'Expired' });
    expect(
      (await callApi('DELETE', `/v1/onboarding-tokens/${expired.tokenId}`, { token: expired.auth })).body,
    ).toMatchObject({ tokenStatus: 'Expired' });
    const listed = await callApi('GET', '/v1/onboarding-tokens?status=Expired', { token: expired.auth });
    expect(listed.body.results.map((row: { tokenId: string }) => row.tokenId)).toEqual([expired.tokenId]);
  });

  it('resends: a new token e-mailed, the old one Revoked and no longer redeemable', async () => {
    const { auth, onboardingToken, tokenId, email } = await issuedToken();

    const resent = await callApi('POST', `/v1/onboarding-tokens/${tokenId}/resend`, { token: auth });

    expect(resent.status).toBe(201);
    expect(resent.body).toEqual({
      onboarding_token: expect.any(String),
      tokenId: expect.any(String),
      expires_at: expect.any(String),
    });
    expect(resent.body.tokenId).not.toBe(tokenId);
    const mails = await emailsTo(email);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.body.text).toContain(resent.body.onboarding_token);
    expect((await redeem(auth, onboardingToken)).body).toMatchObject({ code: 409, tokenStatus: 'Revoked' });
    expect((await redeem(auth, resent.body.onboarding_token)).status).toBe(200);
  });

  it('resends an Expired token too, leaving it Expired', async () => {
    const { orgId, auth, tokenId } = await issuedToken();
    await expireToken(orgId, tokenId);

    const resent = await callApi('POST', `/v1/onboarding-tokens/${tokenId}/resend`, { token: auth });

    expect(resent.status).toBe(201);
    const listed = await callApi('GET', '/v1/onboarding-tokens', { token: auth });
    const statusOf = Object.fromEntries(listed.body.results.map((row: any) => [row.tokenId, row.status]));
    expect(statusOf).toEqual({ [tokenId]: 'Expired', [resent.body.tokenId]: 'Issued' });
  });

  it('leaves the old token Issued and answers 503 when the new e-mail cannot be sent', async () => {
    const { auth, onboardingToken, tokenId, email } = await issuedToken();
    const ses = new SESv2Client({ ...awsClientConfig(), endpoint: inject('localEnv').AWS_ENDPOINT_URL_SESV2 });
    await ses.send(new DeleteEmailTemplateCommand({ TemplateName: onboardingEmailTemplate.templateName }));
    let resent;
    try {
      resent = await callApi('POST', `/v1/onboarding-tokens/${tokenId}/resend`, { token: auth });
    } finally {
      await putEmailTemplate(ses);
    }

    expect(resent.status).toBe(503);
    expect(resent.headers.get('retry-after')).toMatch(/^\d+$/);
    const listed = await callApi('GET', '/v1/onboarding-tokens', { token: auth });
    expect(listed.body.results).toEqual([expect.objectContaining({ tokenId, status: 'Issued' })]);
    expect(listed.body.results[0].revokedAt).toBeUndefined();
    expect(await emailsTo(email)).toHaveLength(1);
    // Still the one live token for the e-mail: a create is refused, the old token redeems.
    const duplicate = await callApi('POST', '/v1/onboarding-token', {
      token: auth,
      body: { email, first_name: 'Zoë', last_name: 'Ångström' },
    });
    expect(duplicate.status).toBe(409);
    expect((await redeem(auth, onboardingToken)).status).toBe(200);
  });

  it('replays a resend with the same Idempotency-Key instead of sending another token', async () => {
    const { auth, tokenId, email } = await issuedToken();
    const headers = { 'idempotency-key': `resend-${tokenId}` };

    const first = await callApi('POST', `/v1/onboarding-tokens/${tokenId}/resend`, { token: auth, headers });
    const replay = await callApi('POST', `/v1/onboarding-tokens/${tokenId}/resend`, { token: auth, headers });

    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await emailsTo(email)).toHaveLength(2);
  });

  it('refuses a bad status filter, a missing token and a token id that is no UUID as the contract says', async () => {
    const auth = await tokenFor(uniqueOrg('life'));
    expect((await callApi('GET', '/v1/onboarding-tokens?status=Gone', { token: auth })).body).toMatchObject({
      code: 400,
      errors: [expect.objectContaining({ field: 'status', code: 'isIn' })],
    });
    expect((await callApi('POST', '/v1/onboarding-token/redeem', { token: auth, body: {} })).body).toMatchObject({
      code: 400,
      errors: [expect.objectContaining({ field: 'onboardingToken' })],
    });
    expect((await callApi('DELETE', '/v1/onboarding-tokens/not-a-uuid', { token: auth })).status).toBe(404);
  });

  it('needs the onboarding:redeem scope to redeem', async () => {
    const { onboardingToken, orgId } = await issuedToken();
    const writer = await tokenFor(orgId, { scopes: ['onboarding:write', 'onboarding:read'] });
    expect((await redeem(writer, onboardingToken)).status).toBe(403);
  });
});

/** Moves a token's expiry into the past, as 14 days would. */
async function expireToken(orgId: string, tokenId: string): Promise<void> {
  const env = inject('localEnv');
  const documents = DynamoDBDocumentClient.from(
    new DynamoDBClient({ ...awsClientConfig(), endpoint: env.AWS_ENDPOINT_URL_DYNAMODB }),
  );
  const auth = await tokenFor(orgId);
  const listed = await callApi('GET', '/v1/onboarding-tokens', { token: auth });
  const row = listed.body.results.find((r: { tokenId: string }) => r.tokenId === tokenId);
  const past = new Date(Date.now() - 60_000).toISOString();
  await documents.send(
    new UpdateCommand({
      TableName: env.ONBOARDING_TOKENS_TABLE_NAME!,
      Key: { pk: `ORG#${orgId}`, sk: `TOKEN#${row.createdAt}#${tokenId}` },
      UpdateExpression: 'SET expiresAt = :past',
      ExpressionAttributeValues: { ':past': past },
    }),
  );
  await documents.send(
    new UpdateCommand({
      TableName: env.ONBOARDING_TOKENS_TABLE_NAME!,
      Key: { pk: `ORG#${orgId}`, sk: `EMAIL#${row.email}` },
      UpdateExpression: 'SET expiresAtEpoch = :past',
      ExpressionAttributeValues: { ':past': Math.floor(Date.parse(past) / 1000) },
    }),
  );
}
