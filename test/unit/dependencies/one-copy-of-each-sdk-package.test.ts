import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

interface NpmTreeNode {
  version?: string;
  dependencies?: Record<string, NpmTreeNode>;
}

/** Every version of every `@aws-sdk/*` and `@smithy/*` package npm installed, by package name. */
function sdkPackageVersions(tree: NpmTreeNode): Map<string, Set<string>> {
  const versions = new Map<string, Set<string>>();
  const visit = (dependencies: Record<string, NpmTreeNode> = {}) => {
    for (const [name, node] of Object.entries(dependencies)) {
      if (/^@(aws-sdk|smithy)\//.test(name) && node.version) {
        versions.set(name, (versions.get(name) ?? new Set()).add(node.version));
      }
      visit(node.dependencies);
    }
  };
  visit(tree.dependencies);
  return versions;
}

describe('the installed dependency tree', () => {
  // Two copies of an SDK package mean two class identities (instanceof fails across them) and a
  // bigger bundle; package.json pins what we import and overrides what a library drags in.
  it('holds one version of each @aws-sdk/* and @smithy/* package', async () => {
    const { stdout } = await promisify(execFile)('npm', ['ls', '--all', '--json'], {
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '{}' }));
    const versions = sdkPackageVersions(JSON.parse(stdout) as NpmTreeNode);

    expect(versions.size).toBeGreaterThan(10);
    const duplicated = [...versions]
      .filter(([, found]) => found.size > 1)
      .map(([name, found]) => `${name}: ${[...found].join(', ')}`);
    expect(duplicated).toEqual([]);
  }, 30_000);
});
