import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Fetch, Timers } from '#client/index.ts';
import { commandNames, EXIT, runCli, type CliIo } from '#cli/run-cli.ts';
import { parseResultKeys, parseUserFilters } from '#cli/user-filters.ts';
import { completeReportJobBody, reportJobBodyIn } from '#test/support/fixtures/report-jobs.ts';

const JOB_ID = '6f1c2c52-2f7e-4a55-9a57-7bb0f0ce43c1';
const PDF = Buffer.from('%PDF-1.7 a small report');

const thisJob = { jobId: JOB_ID, userId: 'u-1' };
const completeJob = completeReportJobBody({
  ...thisJob,
  sizeBytes: PDF.length,
  sha256: createHash('sha256').update(PDF).digest('hex'),
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'x-request-id': 'req-7', ...headers } });

function captured() {
  let text = '';
  return { stream: { isTTY: false, write: (chunk: string) => (text += chunk) }, text: () => text };
}

/** A virtual clock for waiting: no test waits for real. */
function instantTimers(): Timers & { elapsed: () => number } {
  let now = 0;
  return { now: () => now, random: () => 0, sleep: async (ms) => void (now += ms), elapsed: () => now };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cli-unit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(argv: string[], fetch: Fetch, env: Record<string, string> = { API_TOKEN: 'jwt' }) {
  const stdout = captured();
  const stderr = captured();
  const timers = instantTimers();
  const io: CliIo = { stdout: stdout.stream, stderr: stderr.stream, env, cwd: dir, fetch, timers };
  const code = await runCli(argv, io);
  return { code, stdout: stdout.text(), stderr: stderr.text(), elapsedMs: timers.elapsed() };
}

const noFetch: Fetch = async () => {
  throw new Error('no request expected');
};

describe('usage', () => {
  it('exits 2 for no command, an unknown command or option, a missing token or a bad number, without a request', async () => {
    expect((await run([], noFetch)).code).toBe(EXIT.usage);
    expect((await run(['tokens'], noFetch)).stderr).toContain('unknown command tokens');
    expect((await run(['report', 'create', '--user', 'u', '--colour'], noFetch)).code).toBe(EXIT.usage);
    const noToken = await run(['report', 'status', JOB_ID], noFetch, {});
    expect(noToken.code).toBe(EXIT.usage);
    expect(noToken.stderr).toContain('API_TOKEN');
    expect((await run(['users', 'query', '--limit', 'ten'], noFetch)).stderr).toContain(
      '--limit must be a whole number',
    );
    expect((await run(['report', 'status'], noFetch)).stderr).toContain('expected <jobId>');
  });

  it('takes an operand that begins with a dash (a base64url token can) as the operand, not as options', async () => {
    const token = '-Xq3vLr8ZJ0mTq1cN5bYwA2kP7sD4fGh';
    let sent: unknown;
    const fetch: Fetch = async (_url, init) => {
      sent = JSON.parse(String(init?.body));
      return json(409, { code: 409, error: 'CONFLICT', message: 'onboarding token is Used' });
    };
    const result = await run(['token', 'redeem', token], fetch);
    expect(sent).toEqual({ onboarding_token: token });
    expect(result.code).toBe(EXIT.apiError);
  });

  it('prints help on stdout and exits 0 for every command', async () => {
    for (const argv of [
      ['--help'],
      ['token', '--help'],
      ['token', 'create', '--help'],
      ['report', 'download', '-h'],
      ['users', 'query', '--help'],
    ]) {
      const result = await run(argv, noFetch, {});
      expect(result.code, argv.join(' ')).toBe(EXIT.ok);
      expect(result.stdout).toMatch(/^Usage: onboarding/);
    }
  });

  it('lists every command in the top-level help, and each group’s commands in the group’s help', async () => {
    const names = commandNames();
    expect(names).toEqual(expect.arrayContaining(['token redeem', 'token revoke', 'token resend', 'webhook create']));
    const main = (await run(['--help'], noFetch, {})).stdout;
    const listed = main
      .split('\n')
      .map((line) => /^ {2}([a-z]+(?: [a-z]+)?) {2,}\S/.exec(line)?.[1])
      .filter((name) => name !== undefined);
    expect(listed.sort()).toEqual([...names].sort());
    for (const group of new Set(names.map((name) => name.split(' ')[0]!))) {
      const groupHelp = (await run([group, '--help'], noFetch, {})).stdout;
      for (const name of names.filter((n) => n.startsWith(`${group} `)))
        expect(groupHelp, group).toContain(`  ${name}`);
    }
  });

  it('takes the URL and token from flags before the environment', async () => {
    const seen: string[] = [];
    const fetch: Fetch = async (input, init) => {
      seen.push(`${String(input)} ${(init?.headers as Record<string, string>).authorization}`);
      return json(200, completeJob);
    };
    await run(['report', 'status', JOB_ID], fetch, { API_URL: 'http://env.test', API_TOKEN: 'env-jwt' });
    await run(['report', 'status', JOB_ID, '--api-url', 'http://flag.test/', '--token', 'flag-jwt'], fetch, {
      API_URL: 'http://env.test',
      API_TOKEN: 'env-jwt',
    });
    expect(seen).toEqual([
      `http://env.test/v1/document/api/${JOB_ID} Bearer env-jwt`,
      `http://flag.test/v1/document/api/${JOB_ID} Bearer flag-jwt`,
    ]);
  });
});

describe('report create --wait', () => {
  const created = (status = 202) =>
    json(status, reportJobBodyIn('PENDING', thisJob), {
      location: `/v1/document/api/${JOB_ID}`,
      'ratelimit-limit': '10',
      'ratelimit-remaining': '9',
      'ratelimit-reset': '600',
    });

  it('exits 3 when the job ends FAILED, naming the error code', async () => {
    const fetch: Fetch = async (input) =>
      String(input).endsWith('/v1/document/api')
        ? created()
        : json(200, reportJobBodyIn('FAILED', { ...thisJob, errorCode: 'RENDER_FAILED' }));
    const result = await run(['report', 'create', '--user', 'u-1', '--wait'], fetch);
    expect(result.code).toBe(EXIT.reportFailed);
    expect(result.stderr).toContain('failed: RENDER_FAILED');
  });

  it('exits 3 when the job is not COMPLETE within 5 minutes, after polling on the seed’s schedule', async () => {
    const fetch: Fetch = async (input) =>
      String(input).endsWith('/v1/document/api') ? created() : json(200, reportJobBodyIn('IN_PROGRESS', thisJob));
    const result = await run(['report', 'create', '--user', 'u-1', '--wait'], fetch);
    expect(result.code).toBe(EXIT.reportFailed);
    expect(result.elapsedMs).toBe(5 * 60_000);
    expect(result.stderr).toContain('treated as failed');
    expect(result.stderr).toContain(`onboarding report status ${JOB_ID}`);
  });

  it('exits 4 and keeps no file when the download does not match the job', async () => {
    const fetch: Fetch = async (input) => {
      const url = String(input);
      if (url.endsWith('/v1/document/api')) return created();
      if (url.endsWith('/url'))
        return json(200, {
          url: 'https://s3.test/x',
          expiresInSeconds: 300,
          expiresAt: '',
          filename: 'report-u-1-20260101.pdf',
        });
      if (url.startsWith('https://s3.test/')) return new Response(Buffer.from('%PDF-1.7 a tampered report'));
      return json(200, completeJob);
    };
    const result = await run(['report', 'create', '--user', 'u-1', '--out', 'r.pdf'], fetch);
    expect(result.code).toBe(EXIT.downloadFailed);
    expect(await readdir(dir)).toEqual([]);
  });

  it('names the open job of a 409 and exits 1', async () => {
    const fetch: Fetch = async () =>
      json(409, {
        code: 409,
        timestamp: '',
        path: '/v1/document/api',
        method: 'POST',
        error: 'CONFLICT',
        message: 'a report job for this user is already pending',
        jobId: JOB_ID,
      });
    const result = await run(['report', 'create', '--user', 'u-1'], fetch);
    expect(result.code).toBe(EXIT.apiError);
    expect(result.stderr).toContain('409 CONFLICT: a report job for this user is already pending (request req-7)');
    expect(result.stderr).toContain(`the open job: onboarding report status ${JOB_ID}`);
  });

  it('prints {job, download} as JSON with --json --out', async () => {
    const fetch: Fetch = async (input) => {
      const url = String(input);
      if (url.endsWith('/v1/document/api')) return created();
      if (url.endsWith('/url'))
        return json(200, {
          url: 'https://s3.test/x',
          expiresInSeconds: 300,
          expiresAt: '',
          filename: 'report-u-1-20260101.pdf',
        });
      if (url.startsWith('https://s3.test/')) return new Response(PDF);
      return json(200, completeJob);
    };
    const result = await run(['report', 'create', '--user', 'u-1', '--out', 'r.pdf', '--json'], fetch);
    expect(result.code).toBe(EXIT.ok);
    expect(JSON.parse(result.stdout)).toMatchObject({
      job: { status: 'COMPLETE' },
      download: { sizeBytes: PDF.length, sha256: completeJob.sha256, attempts: 1 },
    });
    expect(await readdir(dir)).toEqual(['r.pdf']);
  });
});

describe('users erase', () => {
  it('sends DELETE /v1/users/{id} and prints what it erased', async () => {
    const seen: string[] = [];
    const fetch: Fetch = async (input, init) => {
      seen.push(`${init?.method} ${String(input)}`);
      return new Response(null, { status: 204, headers: { 'x-request-id': 'req-7' } });
    };

    const result = await run(['users', 'erase', 'u-1'], fetch);

    expect(result).toMatchObject({ code: EXIT.ok, stdout: 'erased u-1\n' });
    expect(seen).toEqual(['DELETE http://127.0.0.1:3000/v1/users/u-1']);
  });

  it('exits 1 naming the 404 of an unknown or already erased user, and 2 without an id', async () => {
    const fetch: Fetch = async () =>
      json(404, { code: 404, error: 'NOT_FOUND', message: 'user not found', path: '/v1/users/u-9', method: 'DELETE' });

    const unknown = await run(['users', 'erase', 'u-9'], fetch);
    expect(unknown.code).toBe(EXIT.apiError);
    expect(unknown.stderr).toContain('404');

    const missing = await run(['users', 'erase'], noFetch);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain('expected <id>');
    expect((await run(['users', 'erase', '--help'], noFetch, {})).stdout).toMatch(
      /^Usage: onboarding users erase <id>/,
    );
  });
});

describe('audit list', () => {
  const event = {
    eventId: 'e-1',
    occurredAt: '2026-11-25T10:00:00.000Z',
    action: 'onboarding_token.revoked',
    actor: { sub: 'staff-ada', clientId: 'dashboard' },
    target: { type: 'onboarding_token', id: 'tok-1' },
    requestId: 'req-1',
    outcome: 'success',
  };

  it('passes the filters to GET /v1/audit-events and prints one line per event, then where the next page is', async () => {
    const seen: string[] = [];
    const fetch: Fetch = async (input) => {
      seen.push(String(input));
      return json(200, { results: [event], nextCursor: 'next-1' });
    };

    const result = await run(
      [
        'audit',
        'list',
        '--action',
        'onboarding_token.revoked',
        '--target',
        'tok-1',
        '--from',
        '2026-11-01',
        '--limit',
        '5',
      ],
      fetch,
    );

    expect(result.code).toBe(EXIT.ok);
    const url = new URL(seen[0]!);
    expect(url.pathname).toBe('/v1/audit-events');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      limit: '5',
      action: 'onboarding_token.revoked',
      targetId: 'tok-1',
      from: '2026-11-01',
    });
    expect(result.stdout).toContain('onboarding_token.revoked');
    expect(result.stdout).toContain('onboarding_token tok-1');
    expect(result.stdout).toContain('staff-ada via dashboard');
    expect(result.stderr).toContain('more: onboarding audit list --cursor next-1');
  });

  it('prints the page as JSON with --json, and refuses a limit out of range before calling the API', async () => {
    const page = { results: [event], nextCursor: null };
    const json200: Fetch = async () => json(200, page);

    expect(JSON.parse((await run(['audit', 'list', '--json'], json200)).stdout)).toEqual(page);
    const refused = await run(['audit', 'list', '--limit', '0'], noFetch);
    expect(refused.code).toBe(EXIT.usage);
    expect((await run(['--help'], noFetch, {})).stdout).toContain('audit list');
  });
});

describe('users query arguments', () => {
  it('types filter values by the OpenAPI document: booleans, numeric and date ranges, strings', () => {
    expect(
      parseUserFilters([
        'is_deleted=false',
        'age.gte=18',
        'age.lt=65',
        'dob.gte=2000-01-01',
        'postcode=01234',
        'registration_status=active',
        'name=a=b',
      ]),
    ).toEqual({
      is_deleted: false,
      age: { gte: 18, lt: 65 },
      dob: { gte: '2000-01-01' },
      postcode: '01234',
      registration_status: 'active',
      name: 'a=b',
    });
  });

  it('refuses malformed filters, ranges on exact fields, exact values on ranges, bad booleans and numbers', () => {
    expect(() => parseUserFilters(['age'])).toThrow('expected name=value');
    expect(() => parseUserFilters(['email.gte=a'])).toThrow('matched exactly');
    expect(() => parseUserFilters(['age=18'])).toThrow('is a range');
    expect(() => parseUserFilters(['is_deleted=yes'])).toThrow('true or false');
    expect(() => parseUserFilters(['age.gte=old'])).toThrow('not a number');
    expect(() => parseUserFilters(['age.between=1'])).toThrow('unknown operator');
  });

  it('sends an unknown filter name as text, so the service’s 400 names it', () => {
    expect(parseUserFilters(['shoe_size=42'])).toEqual({ shoe_size: '42' });
  });

  it('checks --keys against the document’s field names', () => {
    expect(parseResultKeys('id, name,age')).toEqual(['id', 'name', 'age']);
    expect(() => parseResultKeys('id,shoe_size')).toThrow('unknown field shoe_size');
    expect(() => parseResultKeys(',')).toThrow('at least one');
  });

  it('fetches pages of up to 1000 until --limit records, and reports what is left', async () => {
    const bodies: unknown[] = [];
    const fetch: Fetch = async (_input, init) => {
      const body = JSON.parse(init?.body as string) as { pagination: { limit: number; offset: number } };
      bodies.push(body);
      const { limit, offset } = body.pagination;
      const results = Array.from({ length: Math.min(limit, 2500 - offset) }, (_, i) => ({ id: `u-${offset + i}` }));
      return json(200, { results, pagination: { limit, offset, total: 2500 } });
    };
    const result = await run(['users', 'query', '--limit', '1500', '--keys', 'id', '--json'], fetch);
    const output = JSON.parse(result.stdout) as { results: unknown[]; pagination: unknown };
    expect(output.results).toHaveLength(1500);
    expect(output.pagination).toEqual({ offset: 0, limit: 1500, total: 2500 });
    expect(bodies).toEqual([
      { result_keys: ['id'], pagination: { limit: 1000, offset: 0 } },
      { result_keys: ['id'], pagination: { limit: 1000, offset: 1000 } },
    ]);
  });
});

describe('webhook create', () => {
  const created = (events: string[]) =>
    json(201, {
      id: 'wh-1',
      url: 'https://hooks.example.org/',
      events,
      createdAt: '2026-01-01T00:00:00.000Z',
      secret: 'whsec_x',
    });

  async function eventsSent(argv: string[]) {
    let sent: { events?: string[] } | undefined;
    const fetch: Fetch = async (_url, init) => {
      sent = JSON.parse(String(init?.body));
      return created(sent?.events ?? []);
    };
    const result = await run(['webhook', 'create', '--url', 'https://hooks.example.org/', ...argv], fetch);
    return { ...result, events: sent?.events };
  }

  it('takes the event types from --events a,b as from --event (repeated or comma-separated), without duplicates', async () => {
    const both = ['report.completed', 'report.failed'];
    expect((await eventsSent(['--events', 'report.completed,report.failed'])).events).toEqual(both);
    expect((await eventsSent(['--event', 'report.completed', '--event', 'report.failed'])).events).toEqual(both);
    expect((await eventsSent(['--event', 'report.completed,report.failed'])).events).toEqual(both);
    expect(
      (await eventsSent(['--event', 'report.completed', '--events', 'report.completed,onboarding_token.used'])).events,
    ).toEqual(['report.completed', 'onboarding_token.used']);
    const all = await eventsSent([]);
    expect(all.code).toBe(EXIT.ok);
    expect(all.events).toEqual([
      'report.completed',
      'report.failed',
      'onboarding_token.used',
      'onboarding_token.revoked',
    ]);
  });

  it('refuses an unknown event type from --events before calling the API', async () => {
    const result = await run(
      ['webhook', 'create', '--url', 'https://hooks.example.org/', '--events', 'report.completed,report.done'],
      noFetch,
    );
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain('unknown event type report.done');
  });
});
