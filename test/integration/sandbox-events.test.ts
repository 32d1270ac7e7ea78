import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '#lib/repo-root.ts';
import { ALL_SCOPES } from '#local/dev-keys.ts';
import { SANDBOX_SCOPE } from '#shared/domain/identity/tenant.ts';
import { callApi, sandboxTokenFor, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { openApiValidator } from '#test/support/openapi-validator.ts';
import { startWebhookReceiver, type ReceivedWebhook } from '#test/support/webhook-receiver.ts';

/**
 * POST /v1/sandbox/events and POST /v1/sandbox/onboarding-tokens/{tokenId}/expire through the
 * local stack (docs/sandbox.md#triggered-events): every event type the document lists can be
 * triggered, its message reaches the sandbox's endpoint signed and logged, and the object its
 * `data` names is the one the API returns.
 */

const document = JSON.parse(await readFile(path.join(repoRoot, 'openapi.json'), 'utf8')) as {
  components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
};
const validator = openApiValidator(document as unknown as Record<string, unknown>, { strict: true });
/** The webhook event enum as the document gives it to integrators: every type a delivery can carry. */
const DOCUMENTED_EVENT_TYPES = document.components.schemas.WebhookDelivery!.properties.type!.enum!;
const SUBSCRIBABLE = DOCUMENTED_EVENT_TYPES.filter((type) => type !== 'webhook.test');

const EVENTS_PATH = '/v1/sandbox/events';
const expirePath = (tokenId: string) => `/v1/sandbox/onboarding-tokens/${tokenId}/expire`;

const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

/** A fresh sandbox with one endpoint on a local receiver, subscribed to every event type. */
async function sandboxWithReceiver() {
  const token = await sandboxTokenFor(uniqueOrg('sbx-events'));
  const hook = await startWebhookReceiver();
  receivers.push(hook);
  const created = await callApi('POST', '/v1/webhooks', { token, body: { url: hook.url, events: SUBSCRIBABLE } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { token, hook, endpoint: created.body as { id: string; secret: string } };
}

async function messageOfType(hook: { received: ReceivedWebhook[] }, type: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = hook.received.find((message) => (JSON.parse(message.body) as { type: string }).type === type);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${type} message among ${hook.received.length}`);
    await sleep(100);
  }
}

async function trigger(token: string, type: string) {
  const response = await callApi('POST', EVENTS_PATH, { token, body: { type } });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  expect(validator.checkResponse({ method: 'POST', path: EVENTS_PATH }, response)).toEqual([]);
  expect(response.body.type).toBe(type);
  return response.body as { type: string; objectId: string };
}

async function deliveryOf(token: string, endpointId: string, messageId: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const listed = await callApi('GET', `/v1/webhooks/${endpointId}/deliveries`, { token });
    const found = (listed.body.results as Array<Record<string, unknown>>).find(
      (delivery) => delivery.messageId === messageId && delivery.status === 'delivered',
    );
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`delivery ${messageId} not logged as delivered`);
    await sleep(200);
  }
}

/** The message's body, verified against the endpoint's secret as any receiver would; its delivery is in the log. */
async function verifiedMessage(
  sandbox: Awaited<ReturnType<typeof sandboxWithReceiver>>,
  type: string,
): Promise<{ type: string; livemode: boolean; data: Record<string, unknown> }> {
  const message = await messageOfType(sandbox.hook, type);
  const verified = new Webhook(sandbox.endpoint.secret).verify(
    message.body,
    message.headers as Record<string, string>,
  ) as { type: string; livemode: boolean; data: Record<string, unknown> };
  await deliveryOf(sandbox.token, sandbox.endpoint.id, message.headers['webhook-id'] as string);
  return verified;
}

describe('POST /v1/sandbox/events', () => {
  it('triggers every event type the document lists (the webhook event enum and webhook.test)', async () => {
    expect(DOCUMENTED_EVENT_TYPES).toContain('webhook.test');
    const { token } = await sandboxWithReceiver();
    for (const type of DOCUMENTED_EVENT_TYPES) {
      const response = await callApi('POST', EVENTS_PATH, { token, body: { type } });
      expect([type, response.status, response.body]).toEqual([type, 202, expect.objectContaining({ type })]);
    }
  });

  it.each([
    ['report.completed', 'COMPLETE'],
    ['report.failed', 'FAILED'],
  ])('%s: a signed message about a report job the API returns %s', async (type, status) => {
    const sandbox = await sandboxWithReceiver();
    const { objectId } = await trigger(sandbox.token, type);

    const message = await verifiedMessage(sandbox, type);
    expect(message.livemode).toBe(false);
    expect(message.data).toMatchObject({
      jobId: objectId,
      status,
      userId: type === 'report.completed' ? 'sbx-clear' : 'sbx-fail',
    });
    const job = await callApi('GET', `/v1/document/api/${objectId}`, { token: sandbox.token });
    expect(job.status).toBe(200);
    expect(job.body).toEqual(message.data);
  });

  it.each([
    ['onboarding_token.used', 'Used'],
    ['onboarding_token.revoked', 'Revoked'],
  ])('%s: a signed message about a token the API lists %s, whose e-mail the mailbox kept', async (type, status) => {
    const sandbox = await sandboxWithReceiver();
    const { objectId } = await trigger(sandbox.token, type);

    const message = await verifiedMessage(sandbox, type);
    expect(message.livemode).toBe(false);
    expect(message.data).toMatchObject({ tokenId: objectId, status });
    const listed = await callApi('GET', '/v1/onboarding-tokens', { token: sandbox.token });
    const row = (listed.body.results as Array<Record<string, unknown>>).find((token) => token.tokenId === objectId);
    expect(row).toMatchObject({ status, email: message.data.email });
    const kept = await callApi('GET', `/v1/sandbox/emails?to=${encodeURIComponent(String(message.data.email))}`, {
      token: sandbox.token,
    });
    expect(kept.status).toBe(200);
    expect(kept.body.results).toEqual([expect.objectContaining({ tokenId: objectId })]);
  });

  it('webhook.test: a signed test message to the endpoint it names', async () => {
    const sandbox = await sandboxWithReceiver();
    const { objectId } = await trigger(sandbox.token, 'webhook.test');

    expect(objectId).toBe(sandbox.endpoint.id);
    const message = await verifiedMessage(sandbox, 'webhook.test');
    expect(message.data).toMatchObject({ endpointId: objectId });
    const endpoints = await callApi('GET', '/v1/webhooks', { token: sandbox.token });
    expect(endpoints.body.results).toEqual([expect.objectContaining({ id: objectId, url: message.data.url })]);
  });

  it('is 400 isIn on type, listing the types, for an unknown type', async () => {
    const token = await sandboxTokenFor(uniqueOrg('sbx-events'));
    const response = await callApi('POST', EVENTS_PATH, { token, body: { type: 'report.started' } });

    expect(response.status).toBe(400);
    expect(validator.checkResponse({ method: 'POST', path: EVENTS_PATH }, response)).toEqual([]);
    const [error] = response.body.errors as Array<{ field: string; code: string; hint: string }>;
    expect(error).toMatchObject({ field: 'type', code: 'isIn' });
    for (const type of DOCUMENTED_EVENT_TYPES) expect(error!.hint).toContain(type);
  });

  it('is 409 for webhook.test in a sandbox without an endpoint', async () => {
    const token = await sandboxTokenFor(uniqueOrg('sbx-events'));
    expect((await callApi('POST', EVENTS_PATH, { token, body: { type: 'webhook.test' } })).status).toBe(409);
  });

  it('is 403 for a sandbox token without a scope the objects need', async () => {
    const org = uniqueOrg('sbx-events');
    const token = await tokenFor(org, { scopes: ['webhooks:manage', SANDBOX_SCOPE] });
    const response = await callApi('POST', EVENTS_PATH, { token, body: { type: 'report.completed' } });
    expect(response.status).toBe(403);
    expect(response.body.message).toContain('reports:write');
  });

  it('is 404 for a live token, whatever its scopes', async () => {
    const token = await tokenFor(uniqueOrg('sbx-events'), { scopes: ALL_SCOPES });
    const response = await callApi('POST', EVENTS_PATH, { token, body: { type: 'report.completed' } });
    expect(response.status).toBe(404);
  });
});

describe('POST /v1/sandbox/onboarding-tokens/{tokenId}/expire', () => {
  async function issuedToken(token: string) {
    const created = await callApi('POST', '/v1/onboarding-token', {
      token,
      body: {
        email: `expire-${Math.random().toString(36).slice(2)}@example.com`,
        first_name: 'Zoë',
        last_name: 'Ångström',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as { tokenId: string; onboarding_token: string };
  }

  it('expires an Issued token now: 200 with its list row, then Expired everywhere', async () => {
    const token = await sandboxTokenFor(uniqueOrg('sbx-expire'));
    const issued = await issuedToken(token);
    const before = Date.now();

    const response = await callApi('POST', expirePath(issued.tokenId), { token });

    expect(response.status).toBe(200);
    expect(
      validator.checkResponse({ method: 'POST', path: '/v1/sandbox/onboarding-tokens/{tokenId}/expire' }, response),
    ).toEqual([]);
    expect(response.body).toMatchObject({ tokenId: issued.tokenId, status: 'Expired' });
    expect(Date.parse(response.body.expiresAt as string)).toBeGreaterThanOrEqual(before - 1_000);
    const listed = await callApi('GET', '/v1/onboarding-tokens?status=Expired', { token });
    expect(listed.body.results).toEqual([response.body]);
    const redeemed = await callApi('POST', '/v1/onboarding-token/redeem', {
      token,
      body: { onboarding_token: issued.onboarding_token },
    });
    expect(redeemed.status).toBe(409);
    expect(redeemed.body.tokenStatus).toBe('Expired');
    const audit = await callApi('GET', '/v1/audit-events?action=onboarding_token.expired', { token });
    expect(audit.body.results).toEqual([
      expect.objectContaining({
        action: 'onboarding_token.expired',
        target: { type: 'onboarding_token', id: issued.tokenId },
      }),
    ]);
  });

  it('is 409 naming tokenStatus for a token that is not Issued', async () => {
    const token = await sandboxTokenFor(uniqueOrg('sbx-expire'));
    const used = await issuedToken(token);
    await callApi('POST', '/v1/onboarding-token/redeem', { token, body: { onboarding_token: used.onboarding_token } });
    const revoked = await issuedToken(token);
    await callApi('DELETE', `/v1/onboarding-tokens/${revoked.tokenId}`, { token });
    const expired = await issuedToken(token);
    await callApi('POST', expirePath(expired.tokenId), { token });

    for (const [tokenId, status] of [
      [used.tokenId, 'Used'],
      [revoked.tokenId, 'Revoked'],
      [expired.tokenId, 'Expired'],
    ] as const) {
      const response = await callApi('POST', expirePath(tokenId), { token });
      expect([response.status, response.body.tokenStatus]).toEqual([409, status]);
    }
  });

  it('is 404 for a live token, and for a live token id from the sandbox', async () => {
    const org = uniqueOrg('sbx-expire');
    const live = await tokenFor(org, { scopes: ALL_SCOPES });
    const liveIssued = await issuedToken(live);
    expect((await callApi('POST', expirePath(liveIssued.tokenId), { token: live })).status).toBe(404);
    const sandbox = await sandboxTokenFor(org);
    expect((await callApi('POST', expirePath(liveIssued.tokenId), { token: sandbox })).status).toBe(404);
  });
});
