import { setTimeout as sleep } from 'node:timers/promises';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { verifyWebhook } from '#client/index.ts';
import { repoRoot } from '#lib/repo-root.ts';
import { startWebhookReceiver } from '#test/support/webhook-receiver.ts';
import { callApi, sandboxTokenFor, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import type { ScheduledEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  coldStart,
  lambdaContext,
  reportJobRecord,
  reportJobStore,
  seedOrganization,
  waitForJob,
  writeOpenJob,
} from '#test/support/report-support.ts';

const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(...args: Parameters<typeof startWebhookReceiver>) {
  const started = await startWebhookReceiver(...args);
  receivers.push(started);
  return started;
}

async function registerEndpoint(token: string, url: string, events: string[]) {
  const created = await callApi('POST', '/v1/webhooks', { token, body: { url, events } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; secret: string; url: string; events: string[] };
}

async function waitForDelivery(token: string, endpointId: string, status: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const listed = await callApi('GET', `/v1/webhooks/${endpointId}/deliveries`, { token });
    expect(listed.status).toBe(200);
    const found = (listed.body.results as Array<Record<string, unknown>>).find((d) => d.status === status);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${status} delivery: ${JSON.stringify(listed.body)}`);
    await sleep(200);
  }
}

describe('webhook endpoints', () => {
  it('registers an endpoint with a whsec_ secret shown once, and lists it without the secret', async () => {
    const token = await tokenFor(uniqueOrg('wh'));
    const hook = await receiver();
    const created = await registerEndpoint(token, hook.url, ['report.completed', 'report.failed']);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const listed = await callApi('GET', '/v1/webhooks', { token });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      results: [
        {
          id: created.id,
          url: hook.url,
          events: ['report.completed', 'report.failed'],
          createdAt: expect.any(String),
          disabled: false,
        },
      ],
    });
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
  });

  it.each(['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00::1]/', 'http://100.64.0.1/'])(
    'refuses to register %s with 400 on url',
    async (url) => {
      const token = await tokenFor(uniqueOrg('wh'));
      const refused = await callApi('POST', '/v1/webhooks', { token, body: { url, events: ['report.completed'] } });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ code: 400, errors: [expect.objectContaining({ field: 'url', code: 'isIn' })] });
    },
  );

  it('validates the body: unknown event types and an empty list are 400 naming events', async () => {
    const token = await tokenFor(uniqueOrg('wh'));
    const unknownType = await callApi('POST', '/v1/webhooks', {
      token,
      body: { url: 'http://127.0.0.1:9/', events: ['report.exploded'] },
    });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.errors).toEqual([expect.objectContaining({ field: 'events[0]', code: 'isIn' })]);
    const none = await callApi('POST', '/v1/webhooks', { token, body: { url: 'http://127.0.0.1:9/', events: [] } });
    expect(none.status).toBe(400);
    expect(none.body.errors).toEqual([expect.objectContaining({ field: 'events', code: 'isNotEmpty' })]);
  });

  it('needs the webhooks:manage scope (403) and hides other organizations’ endpoints (404)', async () => {
    const owner = await tokenFor(uniqueOrg('wh'));
    const created = await registerEndpoint(owner, 'http://127.0.0.1:9/', ['report.completed']);
    const other = await tokenFor(uniqueOrg('wh'));
    for (const [method, path] of [
      ['DELETE', `/v1/webhooks/${created.id}`],
      ['POST', `/v1/webhooks/${created.id}/test`],
      ['GET', `/v1/webhooks/${created.id}/deliveries`],
    ] as const) {
      expect((await callApi(method, path, { token: other })).status).toBe(404);
    }
    const unscoped = await tokenFor(uniqueOrg('wh'), { scopes: ['reports:read'] });
    expect((await callApi('GET', '/v1/webhooks', { token: unscoped })).status).toBe(403);
  });

  it('allows at most 10 endpoints per organization (then 409), and a deleted one frees its place', async () => {
    const token = await tokenFor(uniqueOrg('wh'));
    const created = [];
    for (let i = 0; i < 10; i++)
      created.push(await registerEndpoint(token, `http://127.0.0.1:9/${i}`, ['report.failed']));
    const eleventh = await callApi('POST', '/v1/webhooks', {
      token,
      body: { url: 'http://127.0.0.1:9/x', events: ['report.failed'] },
    });
    expect(eleventh.status).toBe(409);
    expect((await callApi('DELETE', `/v1/webhooks/${created[0]!.id}`, { token })).status).toBe(204);
    expect((await callApi('DELETE', `/v1/webhooks/${created[0]!.id}`, { token })).status).toBe(404);
    await registerEndpoint(token, 'http://127.0.0.1:9/y', ['report.failed']);
  });
});

describe('webhook delivery', () => {
  it('sends one report.completed, signed so that the standardwebhooks library verifies it', async () => {
    const orgId = uniqueOrg('wh');
    const token = await tokenFor(orgId);
    const [user] = await seedOrganization(orgId, 1);
    const hook = await receiver();
    const endpoint = await registerEndpoint(token, hook.url, ['report.completed']);

    const requested = await callApi('POST', '/v1/document/api', { token, body: { userId: user!.id } });
    expect(requested.status).toBe(202);
    const job = await waitForJob(requested.body.jobId as string, token);
    expect(job.status).toBe('COMPLETE');

    const [message] = await hook.waitFor(1);
    const verified = new Webhook(endpoint.secret).verify(message!.body, {
      'webhook-id': message!.headers['webhook-id'] as string,
      'webhook-timestamp': message!.headers['webhook-timestamp'] as string,
      'webhook-signature': message!.headers['webhook-signature'] as string,
    });
    expect(verified).toEqual({ type: 'report.completed', timestamp: job.updatedAt, livemode: true, data: job });
    await sleep(1500);
    expect(hook.received).toHaveLength(1);
    const delivered = await waitForDelivery(token, endpoint.id, 'delivered');
    expect(delivered).toMatchObject({ type: 'report.completed', attempts: 1, lastResponseStatus: 204 });
  });

  it('retries a receiver that fails twice with the same webhook-id, and logs the message delivered', async () => {
    const token = await tokenFor(uniqueOrg('wh'));
    const hook = await receiver((n, response) => {
      response.statusCode = n <= 2 ? 500 : 200;
      response.end('ok');
    });
    const endpoint = await registerEndpoint(token, hook.url, ['report.completed']);
    expect((await callApi('POST', `/v1/webhooks/${endpoint.id}/test`, { token })).status).toBe(202);

    const attempts = await hook.waitFor(3);
    const ids = attempts.map((attempt) => attempt.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/^msg_/);
    // The local schedule waits 1 s, then 2 s.
    expect(attempts[1]!.receivedAt - attempts[0]!.receivedAt).toBeGreaterThanOrEqual(900);
    expect(attempts[2]!.receivedAt - attempts[1]!.receivedAt).toBeGreaterThanOrEqual(1900);
    expect(JSON.parse(attempts[0]!.body)).toMatchObject({ type: 'webhook.test' });

    const delivered = await waitForDelivery(token, endpoint.id, 'delivered');
    expect(delivered).toMatchObject({
      messageId: ids[0],
      type: 'webhook.test',
      attempts: 3,
      lastResponseStatus: 200,
      nextAttemptAt: null,
    });
  });

  it('counts a redirect as a failure and never follows it', async () => {
    const token = await tokenFor(uniqueOrg('wh'));
    const target = await receiver();
    const redirecting = await receiver((_n, response) => {
      response.statusCode = 302;
      response.setHeader('location', target.url);
      response.end();
    });
    const endpoint = await registerEndpoint(token, redirecting.url, ['report.failed']);
    expect((await callApi('POST', `/v1/webhooks/${endpoint.id}/test`, { token })).status).toBe(202);

    await redirecting.waitFor(2);
    const listed = await callApi('GET', `/v1/webhooks/${endpoint.id}/deliveries`, { token });
    expect(listed.body.results).toEqual([
      expect.objectContaining({ status: 'pending', lastResponseStatus: 302, attempts: expect.any(Number) }),
    ]);
    expect(target.received).toHaveLength(0);
  });

  it('says livemode false in a sandbox’s message, signed like a live one, and the sandbox’s events reach only its endpoints', async () => {
    const orgId = uniqueOrg('whsbx');
    const sandbox = await sandboxTokenFor(orgId);
    const liveHook = await receiver();
    const sandboxHook = await receiver();
    await registerEndpoint(await tokenFor(orgId), liveHook.url, ['onboarding_token.revoked']);
    const endpoint = await registerEndpoint(sandbox, sandboxHook.url, ['onboarding_token.revoked']);

    const issued = await callApi('POST', '/v1/onboarding-token', {
      token: sandbox,
      body: { email: `wh-${orgId}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
    });
    expect(issued.status).toBe(201);
    const tokenId = issued.body.tokenId as string;
    expect((await callApi('DELETE', `/v1/onboarding-tokens/${tokenId}`, { token: sandbox })).status).toBe(204);

    const [message] = await sandboxHook.waitFor(1);
    expect(
      new Webhook(endpoint.secret).verify(message!.body, message!.headers as Record<string, string>),
    ).toMatchObject({
      type: 'onboarding_token.revoked',
      livemode: false,
      data: { tokenId, status: 'Revoked' },
    });
    await sleep(1500);
    expect(liveHook.received).toHaveLength(0);
  });

  it('never sends one organization’s events to another organization’s endpoint', async () => {
    const orgA = uniqueOrg('wha');
    const tokenA = await tokenFor(orgA);
    const tokenB = await tokenFor(uniqueOrg('whb'));
    const hookA = await receiver();
    const hookB = await receiver();
    await registerEndpoint(tokenA, hookA.url, ['onboarding_token.revoked']);
    await registerEndpoint(tokenB, hookB.url, ['onboarding_token.revoked', 'onboarding_token.used']);

    const issued = await callApi('POST', '/v1/onboarding-token', {
      token: tokenA,
      body: { email: `wh-${orgA}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
    });
    expect(issued.status).toBe(201);
    const tokenId = issued.body.tokenId as string;
    expect((await callApi('DELETE', `/v1/onboarding-tokens/${tokenId}`, { token: tokenA })).status).toBe(204);

    const [message] = await hookA.waitFor(1);
    expect(JSON.parse(message!.body)).toMatchObject({
      type: 'onboarding_token.revoked',
      data: { tokenId, email: `wh-${orgA}@example.com`, status: 'Revoked', revokedAt: expect.any(String) },
    });
    await sleep(1500);
    expect(hookB.received).toHaveLength(0);
  });
});

describe('token events', () => {
  it('sends onboarding_token.used when a token is redeemed', async () => {
    const orgId = uniqueOrg('whu');
    const token = await tokenFor(orgId);
    const hook = await receiver();
    const endpoint = await registerEndpoint(token, hook.url, ['onboarding_token.used']);
    const email = `used-${orgId}@example.com`;
    const issued = await callApi('POST', '/v1/onboarding-token', {
      token,
      body: { email, first_name: 'Grace', last_name: 'Hopper' },
    });
    const redeemed = await callApi('POST', '/v1/onboarding-token/redeem', {
      token,
      body: { onboarding_token: issued.body.onboarding_token as string },
    });
    expect(redeemed.status).toBe(200);

    const [message] = await hook.waitFor(1);
    expect(new Webhook(endpoint.secret).verify(message!.body, message!.headers as Record<string, string>)).toEqual({
      type: 'onboarding_token.used',
      timestamp: redeemed.body.usedAt,
      livemode: true,
      data: { tokenId: issued.body.tokenId, email, status: 'Used', usedAt: redeemed.body.usedAt },
    });
  });
});

describe('report.failed from the sweep and the dead-letter handler', () => {
  async function failedEventFor(
    errorCode: string,
    createdAt: Date,
    finish: (job: { orgId: string; jobId: string }) => Promise<void>,
  ) {
    const orgId = uniqueOrg('whf');
    const token = await tokenFor(orgId);
    const [user] = await seedOrganization(orgId, 1);
    const hook = await receiver();
    const endpoint = await registerEndpoint(token, hook.url, ['report.failed']);
    const job = await writeOpenJob(reportJobStore(), {
      orgId,
      userId: user!.id,
      createdAt,
    });
    await finish(job);
    const [message] = await hook.waitFor(1);
    const verified = new Webhook(endpoint.secret).verify(message!.body, message!.headers as Record<string, string>);
    expect(verified).toMatchObject({
      type: 'report.failed',
      data: { jobId: job.jobId, status: 'FAILED', errorCode },
    });
  }

  it('sends report.failed with TIMED_OUT when the sweep times a job out', async () => {
    await failedEventFor('TIMED_OUT', new Date(Date.now() - 6 * 60_000), async () => {
      const { handler } = await coldStart<ScheduledEvent, { timedOut: number }>('sweep-timed-out-report-jobs');
      await handler({} as ScheduledEvent, lambdaContext('SweepTimedOutReportJobs'));
    });
  });

  it('sends report.failed with INTERNAL_ERROR when the dead-letter handler fails a job', async () => {
    // A job still within its 5 minutes: the local stack's own sweep never races the handler for it.
    await failedEventFor('INTERNAL_ERROR', new Date(), async (job) => {
      const { handler } = await coldStart<SQSEvent, SQSBatchResponse>('fail-dead-lettered-report-jobs');
      await handler({ Records: [reportJobRecord(job, 3)] }, lambdaContext('FailDeadLetteredReportJobs'));
    });
  });
});

describe('onboarding webhook (CLI)', () => {
  const onboarding = (args: string[], token: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [path.join(repoRoot, 'cli', 'onboarding.mjs'), 'webhook', ...args],
        { env: { PATH: process.env.PATH ?? '', API_URL: inject('baseUrl'), API_TOKEN: token }, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('creates, lists, tests, shows deliveries of and deletes an endpoint', async () => {
    const token = await tokenFor(uniqueOrg('whcli'));
    const hook = await receiver();
    const created = await onboarding(['create', '--url', hook.url, '--event', 'report.completed', '--json'], token);
    expect(created.code, created.stderr).toBe(0);
    const { id, secret } = JSON.parse(created.stdout) as { id: string; secret: string };

    const listed = await onboarding(['list'], token);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).not.toContain('whsec_');

    expect((await onboarding(['test', id], token)).stdout).toMatch(/^webhook.test queued/);
    const [message] = await hook.waitFor(1);
    expect(verifyWebhook(secret, message!.body, message!.headers as Record<string, string>).type).toBe('webhook.test');
    await waitForDelivery(token, id, 'delivered');
    const deliveries = await onboarding(['deliveries', id], token);
    expect(deliveries.stdout).toMatch(/webhook\.test\s+delivered\s+1\s+204/);

    expect((await onboarding(['delete', id], token)).code).toBe(0);
    const unknown = await onboarding(['create', '--url', hook.url, '--event', 'report.exploded'], token);
    expect(unknown.code).toBe(2);
  });
});
