import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../../lib/repo-root.ts';

const run = promisify(execFile);

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
}

describe('openapi.json lint (Redocly CLI, redocly.yaml: recommended rules, warnings as errors)', () => {
  it('reports no error and no warning', async () => {
    const redocly = path.join(repoRoot, 'node_modules', '.bin', 'redocly');
    const { stdout } = await run(redocly, ['lint', 'openapi.json', '--format=json'], {
      cwd: repoRoot,
      // No telemetry, no update check: the test must not need the network.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' },
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as LintReport;
    const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    // The one documented exemption (.redocly.lint-ignore.yaml), and no more.
    expect(report.totals.ignored).toBe(1);
  }, 60_000);
});
