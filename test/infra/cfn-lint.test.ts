import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildServiceStack } from './service-stack-fixture.ts';

/**
 * Rules turned off, each with its reason. Nothing else may be found: no error, no warning.
 * - W3005: CDK gives every function an explicit DependsOn on its role and the role's default
 *   policy (so the policy exists before the function first runs) besides the GetAtt of the role;
 *   the redundancy is CDK's construction and harmless.
 */
const SUPPRESSED_RULES = ['W3005'];

describe('the synthesized template in cfn-lint (the image’s cfn-lint)', () => {
  it('has no error and no warning', async () => {
    const { stack } = buildServiceStack({ bundle: false, context: { alarmEmail: 'ops@example.org' } });
    const directory = await mkdtemp(path.join(tmpdir(), 'cfn-lint-'));
    try {
      const file = path.join(directory, 'template.json');
      await writeFile(file, JSON.stringify(Template.fromStack(stack).toJSON()));
      const { stdout, stderr } = await promisify(execFile)(
        'cfn-lint',
        ['--format', 'parseable', '--ignore-checks', ...SUPPRESSED_RULES, '--', file],
        { maxBuffer: 16 * 1024 * 1024 },
      ).catch((error: { stdout?: string; stderr?: string; code?: unknown }) => {
        if (error.code === 'ENOENT') throw new Error('cfn-lint is not installed (the machine image provides it)');
        return { stdout: error.stdout ?? '', stderr: error.stderr ?? '' };
      });
      expect(stderr).toBe('');
      expect(stdout.split('\n').filter((line) => line.trim() !== '')).toEqual([]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);
});
