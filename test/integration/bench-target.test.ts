import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { repoRoot } from '#lib/repo-root.ts';
import type { CheckedRow } from '#bench/report.ts';
import { tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { seedOrganization } from '#test/support/report-support.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run bench -- ...` as an operator runs it: tsx on bench/run.ts, its exit status and output. */
function bench(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'bench', 'run.ts'), ...args],
      { cwd: repoRoot, env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let tokenA: string;
let tokenB: string;
let outDir: string;

beforeAll(async () => {
  const a = uniqueOrg('bench-target-a');
  const b = uniqueOrg('bench-target-b');
  await seedOrganization(a, 20);
  await seedOrganization(b, 20);
  tokenA = await tokenFor(a);
  tokenB = await tokenFor(b);
  outDir = await mkdtemp(path.join(tmpdir(), 'bench-target-'));
});

afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
});

describe('npm run bench -- --target (contract §25) against the local stack as a deployed stage', () => {
  it('measures B quiet and under both of A’s floods and writes their rows, budgets and A’s refusals', async () => {
    const out = path.join(outDir, 'target.json');
    const run = await bench([
      '--target',
      inject('baseUrl'),
      '--token-a',
      tokenA,
      '--token-b',
      tokenB,
      '--seconds',
      '1',
      '--out',
      out,
    ]);

    // Without --check a missed budget does not fail the run: the local stack's two cores are no deployed stage.
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/starting the local stack/);
    const result = JSON.parse(await readFile(out, 'utf8')) as {
      requestsSent: { a: number; b: number };
      rows: CheckedRow[];
    };
    expect(result.requestsSent).toEqual({ a: 1 + 200 + 50, b: 1 + 5 + 20 * 3 });
    const subjects = result.rows.map((row) => `${row.measurement} / ${row.subject}`);
    expect(subjects).toEqual([
      '12 noisy neighbour (target) / org B API median under A’s cheap queries at 200/s',
      '12 noisy neighbour (target) / org B API p99 under A’s cheap queries (median column: p99)',
      '12 noisy neighbour (target) / org B requests answered 429 or not at all, under A’s cheap queries',
      '12 noisy neighbour (target) / org A requests refused for its requests in flight (429, contract §25; informational)',
      '17 expensive queries (target) / org B API median under A’s deep-offset unindexed queries at 50/s',
      '17 expensive queries (target) / org B API p99 under A’s deep-offset unindexed queries (median column: p99)',
      '17 expensive queries (target) / org B requests answered 429 or not at all, under A’s deep-offset unindexed queries',
      '17 expensive queries (target) / org A requests refused for its requests in flight (429, contract §25; informational)',
    ]);
    for (const row of result.rows) expect(Number.isFinite(row.value.median), subjects.join('\n')).toBe(true);
    const [medianRow, p99Row, refusedRow, inFlightRow] = result.rows;
    // B's figures under the flood against its quiet ones: the p99 row is budgeted here, unlike the local bench's.
    expect(medianRow).toMatchObject({
      budget: { on: 'ratio', max: 1.5 },
      result: expect.stringMatching(/^(pass|FAIL)$/),
    });
    expect(medianRow!.baseline!.value.median).toBeGreaterThan(0);
    expect(p99Row).toMatchObject({ budget: { on: 'ratio', max: 1.5 }, result: expect.stringMatching(/^(pass|FAIL)$/) });
    expect(refusedRow).toMatchObject({ value: { median: 0 }, result: 'pass' });
    expect(inFlightRow!.note).toMatch(/^of 200: \d+ x 200, \d+ x 429 by another limit/);
    expect(run.stdout).toMatch(/org B API p99 under A’s cheap queries/);
  });

  it('stops with one line naming the organization whose token the stage refuses', async () => {
    const run = await bench([
      '--target',
      inject('baseUrl'),
      '--token-a',
      tokenA,
      '--token-b',
      await tokenFor(uniqueOrg('bench-target-b'), { expiresInSeconds: -60 }),
      '--seconds',
      '1',
      '--out',
      path.join(outDir, 'refused.json'),
    ]);

    expect(run.code).toBe(1);
    expect(run.stdout.trim()).toBe(
      "bench --target: stopped: organization B's token was refused: POST /v1/user-status answered 401",
    );
  });
});
