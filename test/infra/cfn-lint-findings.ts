import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Template } from 'aws-cdk-lib/assertions';

/**
 * Rules turned off, each with its reason. Nothing else may be found: no error, no warning.
 * - W3005: CDK gives every function an explicit DependsOn on its role and the role's default
 *   policy (so the policy exists before the function first runs) besides the GetAtt of the role;
 *   the redundancy is CDK's construction and harmless.
 */
export const SUPPRESSED_CFN_LINT_RULES = ['W3005'];

/**
 * What the image's cfn-lint finds in the templates, named as given, in one run (it takes seconds to
 * start): a line per finding, each naming its file, and what it wrote to standard error.
 */
export async function cfnLintFindings(
  templates: Record<string, Template>,
): Promise<{ findings: string[]; stderr: string }> {
  const directory = await mkdtemp(path.join(tmpdir(), 'cfn-lint-'));
  try {
    const files = await Promise.all(
      Object.entries(templates).map(async ([name, template]) => {
        const file = path.join(directory, `${name}.json`);
        await writeFile(file, JSON.stringify(template.toJSON()));
        return file;
      }),
    );
    const { stdout, stderr } = await promisify(execFile)(
      'cfn-lint',
      ['--format', 'parseable', '--ignore-checks', ...SUPPRESSED_CFN_LINT_RULES, '--', ...files],
      { maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout?: string; stderr?: string; code?: unknown }) => {
      if (error.code === 'ENOENT') throw new Error('cfn-lint is not installed (the machine image provides it)');
      return { stdout: error.stdout ?? '', stderr: error.stderr ?? '' };
    });
    return { findings: stdout.split('\n').filter((line) => line.trim() !== ''), stderr };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
