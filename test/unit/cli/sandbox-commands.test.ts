import { describe, expect, it } from 'vitest';
import type { Fetch, Timers } from '#client/index.ts';
import { EXIT, runCli, type CliIo } from '#cli/run-cli.ts';

const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const LISTENER = {
  id: '6f1c2c52-2f7e-8a55-9a57-7bb0f0ce43c1',
  events: [],
  createdAt: '2026-01-01T00:00:00Z',
  secret: SECRET,
};
const MESSAGE = {
  messageId: 'msg_1',
  type: 'report.completed',
  body: '{"type":"report.completed","timestamp":"2026-01-01T00:00:00.000Z","livemode":false,"data":{}}',
  headers: {
    'content-type': 'application/json',
    'webhook-id': 'msg_1',
    'webhook-timestamp': '1767225600',
    'webhook-signature': 'v1,abc=',
  },
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function captured() {
  let text = '';
  return { stream: { isTTY: false, write: (chunk: string) => (text += chunk) }, text: () => text };
}

const instantTimers = (): Timers => ({ now: () => 0, random: () => 0, sleep: async () => {} });

async function run(argv: string[], fetch: Fetch, signal?: AbortSignal) {
  const stdout = captured();
  const stderr = captured();
  const io: CliIo = {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { API_TOKEN: 'jwt' },
    cwd: '/',
    fetch,
    timers: instantTimers(),
    ...(signal ? { signal } : {}),
  };
  const code = await runCli(argv, io);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const noFetch: Fetch = async () => {
  throw new Error('no request expected');
};

describe('onboarding trigger', () => {
  it('posts the type to /v1/sandbox/events and prints the object it made', async () => {
    const requests: string[] = [];
    const fetch: Fetch = async (input, init) => {
      requests.push(`${init?.method} ${String(input)} ${String(init?.body)}`);
      return json(202, { type: 'report.completed', objectId: LISTENER.id });
    };
    const result = await run(['trigger', 'report.completed'], fetch);
    expect(result).toMatchObject({ code: EXIT.ok, stdout: `report.completed triggered (${LISTENER.id})\n` });
    expect(requests).toEqual([`POST http://127.0.0.1:3000/v1/sandbox/events {"type":"report.completed"}`]);
  });

  it('exits 2 without a request for no type, an unknown type or two types; 0 with help on stdout', async () => {
    expect((await run(['trigger'], noFetch)).stderr).toContain('expected <type>');
    const unknown = await run(['trigger', 'report.done'], noFetch);
    expect(unknown).toMatchObject({ code: EXIT.usage });
    expect(unknown.stderr).toContain('unknown event type report.done; one of report.completed');
    expect((await run(['trigger', 'report.failed', 'webhook.test'], noFetch)).code).toBe(EXIT.usage);
    const helped = await run(['trigger', '--help'], noFetch);
    expect(helped.code).toBe(EXIT.ok);
    expect(helped.stdout).toMatch(/^Usage: onboarding trigger <type>/);
  });

  it('exits 1 with a hint when the token is not a sandbox token (404)', async () => {
    const fetch: Fetch = async () => json(404, { code: 404, error: 'NOT_FOUND', message: 'not found' });
    const result = await run(['trigger', 'webhook.test'], fetch);
    expect(result.code).toBe(EXIT.apiError);
    expect(result.stderr).toContain('--sandbox');
  });
});

describe('onboarding listen', () => {
  it('exits 2 without a request when --forward-to is missing or not an http(s) URL; 0 with help', async () => {
    expect((await run(['listen'], noFetch)).stderr).toContain('--forward-to is required');
    const ftp = await run(['listen', '--forward-to', 'ftp://localhost/x'], noFetch);
    expect(ftp.code).toBe(EXIT.usage);
    expect(ftp.stderr).toContain('is not an http(s) URL');
    expect((await run(['listen', '--forward-to'], noFetch)).code).toBe(EXIT.usage);
    const helped = await run(['listen', '-h'], noFetch);
    expect(helped.code).toBe(EXIT.ok);
    expect(helped.stdout).toMatch(/^Usage: onboarding listen --forward-to <url>/);
  });

  it('prints the listener’s secret alone with --print-secret', async () => {
    const fetch: Fetch = async () => json(200, LISTENER);
    expect(await run(['listen', '--print-secret'], fetch)).toEqual({
      code: EXIT.ok,
      stdout: `${SECRET}\n`,
      stderr: '',
    });
  });

  it('forwards each message with its body and headers unchanged, a line per message, until interrupted (130)', async () => {
    const interrupt = new AbortController();
    const forwarded: Array<{ url: string; headers: Record<string, string>; body: string; redirect?: string }> = [];
    const feedReads: string[] = [];
    const fetch: Fetch = async (input, init) => {
      const url = String(input);
      if (url.endsWith('/v1/sandbox/webhook-listener')) return json(200, LISTENER);
      if (url.includes('/v1/sandbox/webhook-messages')) {
        feedReads.push(new URL(url).search);
        if (feedReads.length === 1) return json(200, { results: [], cursor: 'c0' });
        if (feedReads.length === 2) return json(200, { results: [MESSAGE], cursor: 'c1' });
        if (feedReads.length === 3) return json(503, { code: 503, error: 'SERVICE_UNAVAILABLE', message: 'busy' });
        interrupt.abort(new Error('SIGINT: interrupted'));
        throw new DOMException('aborted', 'AbortError');
      }
      forwarded.push({
        url,
        headers: init?.headers as Record<string, string>,
        body: String(init?.body),
        redirect: init?.redirect,
      });
      return new Response(null, { status: 204 });
    };
    const result = await run(['listen', '--forward-to', 'http://localhost:4242/hooks'], fetch, interrupt.signal);
    expect(result.code).toBe(EXIT.interrupted);
    expect(feedReads).toEqual(['', '?after=c0&wait=20', '?after=c1&wait=20', '?after=c1&wait=20']);
    expect(forwarded).toEqual([
      { url: 'http://localhost:4242/hooks', headers: MESSAGE.headers, body: MESSAGE.body, redirect: 'manual' },
    ]);
    expect(result.stdout).toMatch(/^Ready: forwarding .* to http:\/\/localhost:4242\/hooks/);
    expect(result.stdout).toMatch(/ report\.completed msg_1 -> 204\n/);
    expect(result.stderr).toContain(`signing secret ${SECRET}`);
    expect(result.stderr).toContain('reading again');
  });

  it('prints the receiver’s status or why it gave none, and keeps listening', async () => {
    const interrupt = new AbortController();
    let reads = 0;
    let posts = 0;
    const fetch: Fetch = async (input) => {
      const url = String(input);
      if (url.endsWith('/v1/sandbox/webhook-listener')) return json(200, LISTENER);
      if (url.includes('/v1/sandbox/webhook-messages')) {
        reads++;
        if (reads === 1) return json(200, { results: [], cursor: 'c0' });
        if (reads === 2) return json(200, { results: [MESSAGE, { ...MESSAGE, messageId: 'msg_2' }], cursor: 'c1' });
        interrupt.abort(new Error('SIGINT'));
        throw new DOMException('aborted', 'AbortError');
      }
      posts++;
      if (posts === 1) return new Response('bad signature', { status: 400 });
      throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
    };
    const result = await run(['listen', '--forward-to', 'http://127.0.0.1:9/x'], fetch, interrupt.signal);
    expect(result.stdout).toMatch(/msg_1 -> 400\n/);
    expect(result.stdout).toMatch(/msg_2 -> no answer \(socket hang up\)\n/);
  });
});
