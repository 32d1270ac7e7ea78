import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFileName, esbuildOptionsFor } from '#lib/bundling.ts';
import { repoRoot } from '#lib/repo-root.ts';
import { decodeStackTrace } from '#scripts/stack-trace/decode-stack-trace.ts';

const FIXTURE = 'test/unit/scripts/fixtures/fails-on-load.ts';

describe('decodeStackTrace', () => {
  // Two folders below the repository root, as CDK writes cdk.out/asset.<hash>/index.js.
  let outDir: string;
  let bundle: string;
  let stderr: string;

  beforeAll(async () => {
    mkdirSync(path.join(repoRoot, 'cdk.out'), { recursive: true });
    outDir = mkdtempSync(path.join(repoRoot, 'cdk.out', 'stack-trace-test-'));
    // In Lambda the bundle has no package.json above it; here the repository's says "module".
    writeFileSync(path.join(outDir, 'package.json'), '{"type":"commonjs"}');
    bundle = path.join(outDir, bundleFileName);
    await build({ ...esbuildOptionsFor(FIXTURE, bundle), logLevel: 'silent' });
    stderr = spawnSync(process.execPath, [bundle], { encoding: 'utf8', env: { PATH: process.env.PATH } }).stderr;
  });

  afterAll(() => {
    rmSync(outDir, { recursive: true, force: true });
  });

  const sourceMap = () => new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')));

  it('maps the minified bundle positions of a thrown error back to the TypeScript line that threw', () => {
    expect(stderr).toContain('configuration missing');
    expect(stderr).toMatch(/index\.js:\d+:\d+/);

    const decoded = decodeStackTrace(stderr, sourceMap());

    expect(decoded).toMatch(new RegExp(`at .*${FIXTURE.replaceAll('.', '\\.')}:4:\\d+`));
    expect(decoded).not.toMatch(/index\.js:\d+:\d+/);
  });

  it('decodes positions inside a JSON log line and leaves other text alone', () => {
    const frame = /index\.js:\d+:\d+/.exec(stderr)![0];
    const logLine = JSON.stringify({
      level: 'ERROR',
      message: 'failed',
      error: { stack: `Error: x\n    at f (/var/task/${frame})` },
    });

    const decoded = decodeStackTrace(logLine, sourceMap());

    expect(decoded).toContain(`${FIXTURE}:4:`);
    expect(decoded.replace(/test\/unit\/scripts\/fixtures\/fails-on-load\.ts:\d+:\d+/, 'X')).toBe(
      logLine.replace(`/var/task/${frame}`, 'X'),
    );
  });

  it('is what `npm run stack-trace` prints for a trace on standard input', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/stack-trace.ts', `${bundle}.map`], {
      cwd: repoRoot,
      input: stderr,
      encoding: 'utf8',
    });

    expect(result.status).toBe(0);
    expect(result.stdout).toBe(decodeStackTrace(stderr, sourceMap()));
  });
});
