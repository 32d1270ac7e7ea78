import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { verifyWebhook } from '#client/index.ts';
import { repoRoot } from '#lib/repo-root.ts';
import { callApi, sandboxTokenFor, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { openApiValidator } from '#test/support/openapi-validator.ts';

/**
 * The sandbox's webhook listener through the local stack (docs/sandbox.md#the-webhook-listener):
 * `onboarding listen` forwards a message `onboarding trigger` caused, signed so that the client's
 * verifyWebhook accepts it with the secret `listen` printed; the routes are the document's and
 * exist for sandbox tokens alone.
 */

const document = JSON.parse(await readFile(path.join(repoRoot, 'openapi.json'), 'utf8')) as Record<string, unknown>;
const validator = openApiValidator(document, { strict: true });
const orgId = uniqueOrg('listener');
let sandboxToken: string;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
    response.writeHead(202).end();
  });
});
let receiverUrl: string;

beforeAll(async () => {
  sandboxToken = await sandboxTokenFor(orgId);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
});
afterAll(() => new Promise((resolve) => receiver.close(resolve)));

/** `onboarding <args>` (the package's bin) as a child process; resolves when it exits. */
function onboarding(args: string[], onOutput?: (text: string) => void) {
  const child = spawn(process.execPath, [path.join(repoRoot, 'cli', 'onboarding.mjs'), ...args], {
    env: { PATH: process.env.PATH ?? '', API_URL: inject('baseUrl'), API_TOKEN: sandboxToken },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    onOutput?.(stdout);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, exited, output: () => stdout };
}

describe('onboarding listen', () => {
  it('forwards a triggered report.completed, signed as delivered: verifyWebhook accepts it with the printed secret', async () => {
    const secret = (await onboarding(['listen', '--print-secret']).exited).stdout.trim();
    expect(secret).toMatch(/^whsec_/);

    const listen = onboarding(['listen', '--forward-to', receiverUrl]);
    try {
      await expect.poll(listen.output, { timeout: 20_000 }).toMatch(/^Ready/);
      const triggered = await onboarding(['trigger', 'report.completed', '--json']).exited;
      expect(triggered.code).toBe(0);
      const { objectId } = JSON.parse(triggered.stdout) as { objectId: string };

      await expect.poll(() => received.length, { timeout: 30_000 }).toBeGreaterThan(0);
      const [message] = received;
      const verified = verifyWebhook<{ jobId: string; userId: string; status: string }>(
        secret,
        message!.body,
        message!.headers,
      );
      expect(verified).toMatchObject({ type: 'report.completed', livemode: false });
      expect(verified.data).toMatchObject({ jobId: objectId, userId: 'sbx-clear', status: 'COMPLETE' });
      await expect
        .poll(listen.output, { timeout: 5000 })
        .toMatch(new RegExp(` report\\.completed ${String(message!.headers['webhook-id'])} -> 202\\n`));
      // Another secret does not verify it: the signature is the listener's.
      expect(() =>
        verifyWebhook(`whsec_${Buffer.alloc(32).toString('base64')}`, message!.body, message!.headers),
      ).toThrow();
    } finally {
      listen.child.kill('SIGINT');
    }
    expect((await listen.exited).code).toBe(130);
  });
});

describe('the listener’s routes', () => {
  it('answer the same listener and secret each time, and a feed in the document’s shape', async () => {
    const first = await callApi('POST', '/v1/sandbox/webhook-listener', { token: sandboxToken });
    const second = await callApi('POST', '/v1/sandbox/webhook-listener', { token: sandboxToken });
    expect(first.status).toBe(200);
    expect(first.headers.get('sandbox')).toBe('true');
    expect(validator.checkResponse({ method: 'POST', path: '/v1/sandbox/webhook-listener' }, first)).toEqual([]);
    expect(second.body).toEqual(first.body);

    const start = await callApi('GET', '/v1/sandbox/webhook-messages', { token: sandboxToken });
    expect(start.status).toBe(200);
    expect(start.body.results).toEqual([]);
    const feed = await callApi('GET', `/v1/sandbox/webhook-messages?after=${start.body.cursor}&wait=1`, {
      token: sandboxToken,
    });
    expect(validator.checkResponse({ method: 'GET', path: '/v1/sandbox/webhook-messages' }, feed)).toEqual([]);
    expect((await callApi('GET', '/v1/sandbox/webhook-messages?wait=21', { token: sandboxToken })).status).toBe(400);
  });

  it('do not exist for a live token (404), whatever its scopes', async () => {
    const live = await tokenFor(orgId);
    expect((await callApi('POST', '/v1/sandbox/webhook-listener', { token: live })).status).toBe(404);
    expect((await callApi('GET', '/v1/sandbox/webhook-messages', { token: live })).status).toBe(404);
  });
});
