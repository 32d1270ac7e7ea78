import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '#lib/repo-root.ts';

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
    // No exemption: every operation declares its 4XX answers.
    expect(report.totals.ignored).toBe(0);
  }, 60_000);
});

interface SpectralFinding {
  code: string;
  message: string;
  path: string[];
  severity: number; // 0 error, 1 warning, 2 info, 3 hint
}

describe('openapi.json lint (Spectral: spectral:oas and the OWASP API Security ruleset, .spectral.yaml)', () => {
  const spectral = path.join(repoRoot, 'node_modules', '.bin', 'spectral');
  const lint = async (file: string): Promise<SpectralFinding[]> => {
    const { stdout } = await run(spectral, ['lint', file, '--format=json', '--quiet'], { cwd: repoRoot }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
    );
    return JSON.parse(stdout.slice(stdout.indexOf('['))) as SpectralFinding[];
  };

  it('reports no error', async () => {
    const errors = (await lint('openapi.json'))
      .filter((finding) => finding.severity === 0)
      .map((finding) => `${finding.code} at ${finding.path.join('.')}: ${finding.message}`);
    expect(errors).toEqual([]);
  }, 60_000);

  it('does report an error for an unbounded request string, so the ruleset is really applied', async () => {
    const document = JSON.parse(await readFile(path.join(repoRoot, 'openapi.json'), 'utf8')) as {
      components: { schemas: { OnboardingTokenRequest: { properties: { email: Record<string, unknown> } } } };
    };
    delete document.components.schemas.OnboardingTokenRequest.properties.email.maxLength;
    const directory = await mkdtemp(path.join(tmpdir(), 'spectral-'));
    try {
      const file = path.join(directory, 'openapi.json');
      await writeFile(file, JSON.stringify(document));
      await copyFile(path.join(repoRoot, '.spectral.yaml'), path.join(directory, '.spectral.yaml'));
      const codes = (await lint(file)).filter((finding) => finding.severity === 0).map((finding) => finding.code);
      expect(codes).toContain('owasp:api4:2023-string-limit');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }, 60_000);
});
