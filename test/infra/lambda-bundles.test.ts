import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { PDFDocument } from 'pdf-lib';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFileName, esbuildOptionsFor } from '../../lib/bundling.ts';
import { reportPipelineFunctions } from '../../lib/routes.ts';
import { loadReportFonts } from '../../shared/adapters/pdf/report-fonts.ts';
import type { renderUserReport } from '../../shared/adapters/pdf/render-user-report.ts';
import {
  GENERATED_AT,
  JOB_ID,
  ORGANIZATION_NAME,
  multiScriptUser,
  typicalUser,
} from '../unit/reports/pdf/user-report-fixtures.ts';

/**
 * The Lambda bundles replace parts of dependencies with stand-ins (lib/bundling.ts `bundleAliases`)
 * that tests run from source never see: these tests build with the deployed options and run the
 * result.
 */
describe('Lambda bundles', () => {
  let outDir: string;
  const requireFromBundle = createRequire(import.meta.url);

  /** Builds `entry` as CDK does into its own folder and loads it (a CommonJS module). */
  async function bundle<T>(entry: string): Promise<{ exports: T; inputs: string[] }> {
    const file = path.join(outDir, path.basename(entry, '.ts'), bundleFileName);
    const { metafile } = await build({ ...esbuildOptionsFor(entry, file), metafile: true, logLevel: 'silent' });
    return { exports: requireFromBundle(file) as T, inputs: Object.keys(metafile.inputs) };
  }

  beforeAll(() => {
    // Outside the repository: its package.json says "module", and Lambda has no package.json above the bundle.
    outDir = mkdtempSync(path.join(tmpdir(), 'lambda-bundles-'));
  });

  afterAll(() => {
    rmSync(outDir, { recursive: true, force: true });
  });

  it('log a stack trace that names the TypeScript file and line, with the options functions run with', async () => {
    const entry = 'test/infra/fixtures/failing-entry.ts';
    const file = path.join(outDir, 'failing-entry', bundleFileName);
    await build({ ...esbuildOptionsFor(entry, file), logLevel: 'silent' });
    const script = `try { require(${JSON.stringify(file)}).handler() } catch (error) { console.log(error.stack) }`;

    const mapped = await promisify(execFile)(process.execPath, ['--enable-source-maps', '-e', script]);
    const unmapped = await promisify(execFile)(process.execPath, ['-e', script]);

    expect(mapped.stdout).toMatch(/test\/infra\/fixtures\/failing-entry\.ts:3:\d+/);
    expect(unmapped.stdout).not.toContain('failing-entry.ts');
  });

  it('build the worker with the maintained S3 client and fontkit, and without pdf-lib’s fontkit, standard fonts and PNG decoder or the WOFF2 decoder', async () => {
    const file = path.join(outDir, 'worker', bundleFileName);
    const { metafile } = await build({
      ...esbuildOptionsFor(reportPipelineFunctions.worker.entry, file),
      metafile: true,
      write: false,
    });
    const packages = new Set(
      Object.keys(metafile.inputs).map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1]),
    );

    expect(packages).toContain('pdf-lib');
    expect(packages).toContain('@aws-sdk/client-s3');
    for (const engine of ['fontkit', 'bidi-js', 'linebreak']) expect(packages).toContain(engine);
    for (const left of ['@pdf-lib/fontkit', '@pdf-lib/standard-fonts', '@pdf-lib/upng', 'brotli']) {
      expect(packages).not.toContain(left);
    }
  });

  it('render the report from a bundle, with the stand-ins in place', async () => {
    const { exports, inputs } = await bundle<{ renderUserReport: typeof renderUserReport }>(
      'shared/adapters/pdf/render-user-report.ts',
    );
    expect(inputs).toContain('shared/bundle-substitutes/pdf-lib-standard-fonts.ts');

    const pdf = await exports.renderUserReport({
      user: typicalUser(),
      organizationName: ORGANIZATION_NAME,
      jobId: JOB_ID,
      generatedAt: GENERATED_AT,
      fonts: loadReportFonts(),
    });

    const doc = await PDFDocument.load(pdf);
    expect(doc.getPageCount()).toBe(2);
    expect(doc.getTitle()).toContain('User status report');
    const missing: number[] = [];
    const multiScript = await exports.renderUserReport({
      user: multiScriptUser(),
      organizationName: ORGANIZATION_NAME,
      jobId: JOB_ID,
      generatedAt: GENERATED_AT,
      fonts: loadReportFonts(),
      onMissingGlyph: (codePoint) => missing.push(codePoint),
    });
    expect((await PDFDocument.load(multiScript)).getPageCount()).toBeGreaterThanOrEqual(2);
    expect(missing).toEqual([]);
  });

  it('fail loudly, naming what is missing, if a standard PDF font is asked for', async () => {
    const { exports } = await bundle<{ embedHelvetica: () => Promise<void> }>(
      'test/infra/fixtures/standard-font-entry.ts',
    );

    await expect(exports.embedHelvetica()).rejects.toThrow(/standard PDF fonts are not part of this bundle/);
  });
});
