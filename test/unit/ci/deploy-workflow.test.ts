import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '#lib/repo-root.ts';

const WORKFLOW = path.join(repoRoot, '.github', 'workflows', 'deploy.yml');
const workflow = readFileSync(WORKFLOW, 'utf8');
const directory = mkdtempSync(path.join(tmpdir(), 'workflow-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** action-validator (offline: GitHub's workflow schema, built in): exit status and what it printed. */
async function validate(file: string): Promise<{ code: number; output: string }> {
  const bin = path.join(repoRoot, 'node_modules', '.bin', 'action-validator');
  return promisify(execFile)(bin, [file], { cwd: repoRoot }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: Number(error.code ?? 1),
      output: (error.stdout ?? '') + (error.stderr ?? ''),
    }),
  );
}

/** The text of one job, from its key to the next job's. */
function job(name: string): string {
  const jobs = workflow.slice(workflow.indexOf('\njobs:\n'));
  const start = jobs.indexOf(`\n  ${name}:\n`);
  expect(start, name).toBeGreaterThan(0);
  const next = jobs.slice(start + 1).search(/\n {2}[a-z-]+:\n/);
  return next < 0 ? jobs.slice(start) : jobs.slice(start, start + 1 + next);
}

describe('.github/workflows/deploy.yml', () => {
  it('is a valid workflow for action-validator', async () => {
    expect(await validate(WORKFLOW)).toMatchObject({ code: 0 });
  });

  it('is refused by the validator when broken, so the check can fail', async () => {
    const broken = path.join(directory, 'deploy.yml');
    writeFileSync(broken, workflow.replace('runs-on: ubuntu-24.04', 'runs_on: ubuntu-24.04'));
    expect((await validate(broken)).code).not.toBe(0);
  });

  it('reaches AWS through OpenID Connect only: id-token for the deploy jobs alone, no stored key', () => {
    expect(workflow).toMatch(/^permissions:\n {2}contents: read\n/m);
    expect(job('synth')).not.toContain('id-token');
    for (const name of ['staging', 'prod']) {
      expect(job(name)).toContain('id-token: write');
      expect(job(name)).toContain('aws-actions/configure-aws-credentials@v4');
      expect(job(name)).toContain('role-to-assume: ${{ vars.AWS_DEPLOY_ROLE_ARN }}');
    }
    expect(workflow).not.toMatch(/aws-access-key-id|aws-secret-access-key|AWS_SECRET_ACCESS_KEY/);
  });

  it('synthesizes and cfn-lints staging and prod, deploys staging and smoke-tests it, then prod behind its approval', () => {
    expect(job('synth')).toMatch(/cdk synth .*-c stage=staging/);
    expect(job('synth')).toMatch(/cdk synth .*-c stage=prod/);
    expect(job('synth')).toMatch(/cfn-lint --ignore-checks W3005 -- .*staging.*prod/);
    expect(job('staging')).toContain('needs: synth');
    expect(job('staging')).toContain('environment: staging');
    expect(job('prod')).toContain('needs: staging');
    expect(job('prod')).toContain('environment: production');
    for (const [name, stage] of [
      ['staging', 'staging'],
      ['prod', 'prod'],
    ] as const) {
      const text = job(name);
      const deploy = text.indexOf(
        `cdk deploy --all --require-approval never --outputs-file outputs.json -c stage=${stage}`,
      );
      expect(deploy, name).toBeGreaterThan(0);
      expect(text.indexOf('npm run -s smoke -- --api-url'), name).toBeGreaterThan(deploy);
    }
  });
});
