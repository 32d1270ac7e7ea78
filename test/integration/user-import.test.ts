import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { generateDemoUsers } from '#local/demo-users.ts';
import { importUserLines } from '#scripts/users-import/import-user-lines.ts';
import { uniqueOrg, userStatusTotal } from '#test/support/api-client.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';

const run = promisify(execFile);

async function* linesOf(lines: string[]): AsyncIterable<string> {
  yield* lines;
}

describe('user import', () => {
  it('imports an organization of 10,000 users that the API then counts exactly', async () => {
    const orgId = uniqueOrg('bulk');
    const users = generateDemoUsers({ orgId, count: 10_000, seed: 99 });

    const database = usersDatabaseAsAdmin();
    const counts = await importUserLines({
      lines: linesOf(users.map((user) => JSON.stringify(user))),
      orgId,
      database,
    }).finally(() => database.close());

    expect(counts).toMatchObject({ imported: 10_000, rejected: 0 });
    expect(await userStatusTotal(orgId)).toBe(10_000);
    const adults = users.filter((user) => (user.age ?? 0) >= 18).length;
    expect(await userStatusTotal(orgId, { age: { gte: 18 } })).toBe(adults);
  });

  it('through the command: rejects bad lines with their line numbers, imports the rest and exits 1', async () => {
    const orgId = uniqueOrg('cli');
    const [first, second] = generateDemoUsers({ orgId, count: 2, seed: 5 });
    const file = join(await mkdtemp(join(tmpdir(), 'users-import-')), 'users.jsonl');
    const lines = [
      JSON.stringify(first),
      '{"id": "x", "created_at": "not a date"}',
      '',
      'this is not json',
      JSON.stringify({ ...second, middle_name: null }),
    ];
    await writeFile(file, `${lines.join('\n')}\n`);

    const result = await run('npx', ['tsx', 'scripts/users-import.ts', '--org', orgId, file], {
      // The tier's key folder, where its stack left the users database's address.
      env: { ...process.env, LOCAL_KEYS_DIR: inject('localEnv').LOCAL_KEYS_DIR, CI: 'true' },
    }).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

    expect(result.code).toBe(1);
    expect(result.stdout).toContain('imported 2, rejected 2');
    expect(result.stderr).toMatch(/line 2\b/);
    expect(result.stderr).toMatch(/line 4\b/);
    expect(await userStatusTotal(orgId)).toBe(2);
  });
});
