import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { repoRoot } from '#lib/repo-root.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { seedOrganization } from '#test/support/report-support.ts';

/** The `onboarding` command (package.json bin: cli/onboarding.mjs) as a child process against the local stack. */

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let orgId: string;
let token: string;
let users: UserRecord[];
let dir: string;

function onboarding(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(repoRoot, 'cli', 'onboarding.mjs'), ...args],
      // No TTY: the CLI must print plain lines. API_URL/API_TOKEN as a user would export them.
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', API_URL: inject('baseUrl'), API_TOKEN: token, ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  orgId = uniqueOrg('cli');
  users = await seedOrganization(orgId, 300);
  token = await tokenFor(orgId);
  dir = await mkdtemp(path.join(tmpdir(), 'cli-it-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('onboarding token redeem, revoke and resend', () => {
  it('resends a token, revokes the new one, and redeems neither twice: exit codes and 409s as documented', async () => {
    const created = JSON.parse(
      (
        await onboarding([
          'token',
          'create',
          '--email',
          `ada.${orgId}@example.com`,
          '--first-name',
          'Ada',
          '--last-name',
          'Lovelace',
          '--json',
        ])
      ).stdout,
    ) as { onboarding_token: string; tokenId: string };

    const resent = await onboarding(['token', 'resend', created.tokenId, '--json']);
    expect(resent.code).toBe(0);
    const replacement = JSON.parse(resent.stdout) as { onboarding_token: string; tokenId: string };

    const oldRedeem = await onboarding(['token', 'redeem', created.onboarding_token]);
    expect(oldRedeem.code).toBe(1);
    expect(oldRedeem.stderr).toMatch(/409 CONFLICT/);

    const redeemed = await onboarding(['token', 'redeem', replacement.onboarding_token]);
    expect(redeemed).toMatchObject({ code: 0, stderr: '' });
    expect(redeemed.stdout).toContain(`Ada Lovelace <ada.${orgId}@example.com>`);

    const revokeUsed = await onboarding(['token', 'revoke', replacement.tokenId]);
    expect(revokeUsed.code).toBe(1);
    expect(revokeUsed.stderr).toMatch(/409 CONFLICT/);

    const listed = await onboarding(['token', 'list', '--status', 'Revoked', '--json']);
    expect(JSON.parse(listed.stdout).results.map((row: { tokenId: string }) => row.tokenId)).toEqual([created.tokenId]);
  });
});

describe('onboarding token create', () => {
  it('creates a token, prints it and its expiry, exit 0; the same e-mail again is exit 1 naming 409 and the request id', async () => {
    const args = [
      'token',
      'create',
      '--email',
      `grace.${orgId}@example.com`,
      '--first-name',
      'Grace',
      '--last-name',
      'Hopper',
    ];

    const first = await onboarding(args);
    const again = await onboarding(args);

    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toMatch(
      /^onboarding_token {2}[A-Za-z0-9_-]{32}\ntokenId {11}[0-9a-f-]{36}\nexpires_at {8}\d{4}-\d{2}-\d{2}T/,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/409 CONFLICT: .* \(request [0-9a-f-]{36}\)/);
  });

  it('prints the body as JSON with --json', async () => {
    const run = await onboarding([
      'token',
      'create',
      '--email',
      `json.${orgId}@example.com`,
      '--first-name',
      'J',
      '--last-name',
      'S',
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      onboarding_token: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      tokenId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      expires_at: expect.any(String),
    });
  });
});

describe('onboarding report create --wait --out', () => {
  it('requests a report, shows its states as plain lines, downloads and verifies it, exit 0', async () => {
    const user = users[0]!;

    const run = await onboarding(['report', 'create', '--user', user.id, '--wait', '--out', 'report.pdf']);

    expect(run.code, run.stderr).toBe(0);
    const jobId = /^job ([0-9a-f-]{36}) PENDING/m.exec(run.stdout)?.[1];
    expect(jobId).toBeDefined();
    expect(run.stderr).toContain('PENDING after 0 s');
    expect(run.stderr).toMatch(/COMPLETE \(was (PENDING|IN_PROGRESS)\) after \d+ s/);
    expect(run.stderr).not.toContain('\u001b'); // no terminal control characters in a pipe
    const job = (await callApi('GET', `/v1/document/api/${jobId}`, { token })).body as {
      sha256: string;
      sizeBytes: number;
    };
    const bytes = await readFile(path.join(dir, 'report.pdf'));
    expect(bytes.length).toBe(job.sizeBytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(job.sha256);
    expect(run.stdout).toContain(`saved report.pdf (${job.sizeBytes} bytes, sha256 ${job.sha256} verified)`);

    const status = await onboarding(['report', 'status', jobId!]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^status {10}COMPLETE$/m);
  });

  it('answers exit 1 for an unknown user and for a job id that does not exist, 2 for a missing --user', async () => {
    const unknownUser = await onboarding(['report', 'create', '--user', 'no-such-user']);
    expect(unknownUser.code).toBe(1);
    expect(unknownUser.stderr).toContain('404 NOT_FOUND');

    const unknownJob = await onboarding(['report', 'status', '00000000-0000-4000-8000-000000000000']);
    expect(unknownJob.code).toBe(1);

    const missing = await onboarding(['report', 'create']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--user is required');
  });
});

describe('onboarding users query', () => {
  it('prints every record of the demo data set as JSON with --all --json', async () => {
    const run = await onboarding(['users', 'query', '--all', '--json', '--keys', 'id,created_at']);

    expect(run.code, run.stderr).toBe(0);
    const output = JSON.parse(run.stdout) as { results: Array<{ id: string }>; pagination: { total: number } };
    expect(output.pagination.total).toBe(300);
    expect(output.results.map((record) => record.id).sort()).toEqual(users.map((user) => user.id).sort());
  });

  it('filters with typed values and prints a table of the chosen keys', async () => {
    const run = await onboarding([
      'users',
      'query',
      '--filter',
      'age.gte=18',
      '--filter',
      'is_deleted=false',
      '--keys',
      'id,age',
      '--limit',
      '5',
    ]);

    expect(run.code, run.stderr).toBe(0);
    const [header, rule, ...rows] = run.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^id\s+age$/);
    expect(rule).toMatch(/^-+ {2}-+$/);
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(Number(row.trim().split(/\s+/)[1])).toBeGreaterThanOrEqual(18);
    const total = users.filter((user) => (user.age ?? 0) >= 18 && user.is_deleted !== true).length;
    expect(run.stderr).toContain(`records 1-5 of ${total} (more: --offset 5, or --all)`);
  });

  it('passes the service’s 400 on (exit 1, each problem on a line) and refuses unknown keys itself (exit 2)', async () => {
    const invalid = await onboarding(['users', 'query', '--filter', 'shoe_size=42']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/answered 400 .*\n {2}filters\.shoeSize isIn: /);

    const unknownKey = await onboarding(['users', 'query', '--keys', 'id,shoe_size']);
    expect(unknownKey.code).toBe(2);
  });
});

describe('onboarding, the command itself', () => {
  it('--help everywhere (exit 0), no token (exit 2), a bad token (exit 1), an unreachable API (exit 1)', async () => {
    for (const args of [
      ['--help'],
      ['report', '--help'],
      ['report', 'create', '--help'],
      ['users', 'query', '-h'],
      ['token', 'list', '--help'],
    ]) {
      const run = await onboarding(args);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.stdout).toMatch(/^Usage: onboarding/);
    }
    expect((await onboarding(['users', 'query'], { API_TOKEN: '' })).code).toBe(2);
    const badToken = await onboarding(['token', 'list'], { API_TOKEN: 'not-a-jwt' });
    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toContain('401 UNAUTHORIZED');
    const unreachable = await onboarding(['token', 'list', '--api-url', 'http://127.0.0.1:9']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('cannot reach the API');
  });

  it('is what package.json names as the onboarding bin', async () => {
    const manifest = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(manifest.bin).toEqual({ onboarding: 'cli/onboarding.mjs' });
  });
});
