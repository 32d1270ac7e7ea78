import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { PDFDocument } from 'pdf-lib';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFileName, esbuildOptionsFor } from '#lib/bundling.ts';
import { repoRoot } from '#lib/repo-root.ts';
import { copyUsersMigrations } from '#lib/users-database-construct.ts';
import { USERS_MIGRATIONS_FOLDER, usersMigrations } from '#shared/adapters/postgres/users-migrations.ts';
import {
  reportPipelineFunctions,
  userStatusRoutes,
  userRoutes,
  reportRoutes,
  usersDatabaseMigrationFunction,
} from '#shared/config/api-routes.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import { ensureLocalReportSigningKey } from '#local/report-signing-key.ts';
import { pdfsig } from '#test/support/pdf-signature.ts';
import { pdfinfo } from '#test/unit/reports/pdf/pdf-text.ts';
import { renderUserReport, type RenderUserReportInput } from '#shared/adapters/pdf/render-user-report.ts';
import {
  GENERATED_AT,
  JOB_ID,
  ORGANIZATION_NAME,
  hebrewDemoUser,
  multiScriptUser,
  typicalUser,
} from '#test/unit/reports/pdf/user-report-fixtures.ts';

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
    // Signing: the KMS client and @signpdf, no ASN.1 library (certificates are issued at deploy) and
    // no CommonJS copy of pdf-lib's API (the signature is placed with its ES modules); pako's deflate alone, no semver.
    expect(packages).toContain('@aws-sdk/client-kms');
    expect(packages).toContain('@signpdf/signpdf');
    for (const left of ['pkijs', 'asn1js', '@signpdf/placeholder-pdf-lib', 'semver'])
      expect(packages).not.toContain(left);
    // What the bundle holds: esbuild lists the files it read even when it kept nothing of them.
    const kept = Object.values(metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([file]) => file),
    );
    expect(kept.filter((file) => file.includes('pako/lib/inflate'))).toEqual([]);
    expect(kept).toContain('node_modules/pako/lib/deflate.js');
  });

  it('render the report from a bundle, with the stand-ins in place, byte for byte as the sources do', async () => {
    const { exports, inputs } = await bundle<{ renderUserReport: typeof renderUserReport }>(
      'shared/adapters/pdf/render-user-report.ts',
    );
    for (const standIn of ['pdf-lib-standard-fonts', 'pdf-lib-upng', 'brotli-decompress', 'pako'])
      expect(inputs).toContain(`shared/bundle-substitutes/${standIn}.ts`);

    const fonts = loadReportFonts();
    /** Renders from the bundle and from the sources; any glyph no shipped font has is a failure. */
    const renderBoth = async (input: Omit<RenderUserReportInput, 'fonts' | 'onMissingGlyph'>) => {
      const missing: number[] = [];
      const onMissingGlyph = (codePoint: number) => missing.push(codePoint);
      const bundled = await exports.renderUserReport({ ...input, fonts, onMissingGlyph });
      const fromSource = await renderUserReport({ ...input, fonts, onMissingGlyph });
      expect(missing, input.user.id).toEqual([]);
      // A stand-in reached would throw; one that changed a measurement would move text: neither may happen.
      expect(Buffer.from(bundled).equals(Buffer.from(fromSource)), input.user.id).toBe(true);
      return PDFDocument.load(bundled);
    };
    const common = { organizationName: ORGANIZATION_NAME, jobId: JOB_ID, generatedAt: GENERATED_AT };

    const typical = await renderBoth({ ...common, user: typicalUser(), requestedBy: 'auth0|64f1c2a3' });
    // Summary, identity and screening (test/unit/reports/pdf/render-user-report.test.ts).
    expect(typical.getPageCount()).toBe(3);
    expect(typical.getTitle()).toContain('User status report');
    // Every script the fonts cover, and a right-to-left paragraph (bidi-js in the bundle).
    expect((await renderBoth({ ...common, user: multiScriptUser() })).getPageCount()).toBeGreaterThanOrEqual(2);
    expect((await renderBoth({ ...common, user: hebrewDemoUser() })).getPageCount()).toBeGreaterThanOrEqual(1);
  });

  /** The functions that connect to the users database (lib/service-stack.ts grantReadUsers, grantEraseUsers) and its migration. */
  const usersDatabaseEntries = [
    userStatusRoutes.find((route) => route.name === 'QueryUserStatus')!.entry,
    userRoutes.find((route) => route.name === 'EraseUser')!.entry,
    reportRoutes.find((route) => route.name === 'CreateReportJob')!.entry,
    reportPipelineFunctions.worker.entry,
    usersDatabaseMigrationFunction.entry,
  ];

  it.each(usersDatabaseEntries)(
    'build %s with pg and the DSQL signer bundled, leaving only pg’s optional pg-native out',
    async (entry) => {
      const file = path.join(outDir, 'users-database', path.basename(entry, '.ts'), bundleFileName);
      const { metafile, warnings } = await build({
        ...esbuildOptionsFor(entry, file),
        metafile: true,
        write: false,
        logLevel: 'silent',
      });
      const packages = new Set(
        Object.keys(metafile.inputs).map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1]),
      );

      expect(warnings).toEqual([]);
      for (const bundled of ['pg', 'pg-pool', 'pg-protocol', '@aws-sdk/dsql-signer'])
        expect(packages).toContain(bundled);
      expect(packages).not.toContain('pg-native');
      // The signer's default credentials come from the environment, through the stand-in (lib/bundling.ts).
      expect(Object.keys(metafile.inputs)).toContain('shared/bundle-substitutes/aws-credential-provider-node.ts');
      expect(packages).not.toContain('@aws-sdk/credential-provider-node');
    },
  );

  it('read the migration files the build copies next to index.js', async () => {
    const { exports } = await bundle<{
      defaultMigrationsFolder: () => string;
      usersMigrations: () => ReadonlyArray<{ file: string; sha256: string }>;
    }>('test/infra/fixtures/users-migrations-entry.ts');
    const bundleDir = path.join(outDir, 'users-migrations-entry');
    for (const command of copyUsersMigrations.afterBundling(repoRoot, bundleDir)) execFileSync('sh', ['-c', command]);

    expect(exports.defaultMigrationsFolder()).toBe(`${path.join(bundleDir, USERS_MIGRATIONS_FOLDER)}/`);
    expect(exports.usersMigrations().map(({ file, sha256 }) => [file, sha256])).toEqual(
      usersMigrations().map(({ file, sha256 }) => [file, sha256]),
    );
  });

  it('sign a report from a bundle as the worker does, with a signature pdfsig finds valid', async () => {
    const { exports } = await bundle<typeof import('./fixtures/signed-report-entry.ts')>(
      'test/infra/fixtures/signed-report-entry.ts',
    );
    const keysDir = mkdtempSync(path.join(tmpdir(), 'bundle-signing-'));
    try {
      const key = new exports.LocalReportSigningKey(await ensureLocalReportSigningKey(keysDir));
      const rendered = await exports.renderUserReport({
        user: typicalUser(),
        organizationName: ORGANIZATION_NAME,
        jobId: JOB_ID,
        generatedAt: GENERATED_AT,
        fonts: loadReportFonts(),
        signaturePlaceholder: exports.padesSignaturePlaceholder('Onboarding reports service', 'test'),
      });
      const signed = await exports.padesReportSigner(key)(rendered, new Date());
      const report = pdfsig(signed);
      expect(report).toContain('Signature Type: ETSI.CAdES.detached');
      expect(report).toContain('Signature Validation: Signature is Valid.');
      // Tagged and archival from the bundle too (its deflate is the pako stand-in).
      expect(pdfinfo(signed)).toMatch(/^Tagged: +yes$/mu);
      expect(pdfinfo(signed, '-meta')).toContain('<pdfaid:part>2</pdfaid:part>');
      expect(pdfinfo(signed, '-struct-text')).toContain('H1 (block)\n    "User status report"');
    } finally {
      rmSync(keysDir, { recursive: true, force: true });
    }
  });

  it('sign DSQL connection tokens from a bundle with the environment’s credentials, and load pg without pg-native', async () => {
    const { exports, inputs } = await bundle<{
      nativeBinding: () => unknown;
      connectionPassword: (user: string, host: string, region: string) => Promise<string>;
    }>('test/infra/fixtures/users-database-entry.ts');
    expect(inputs).toContain('shared/bundle-substitutes/aws-credential-provider-node.ts');
    const host = 'abcdefghijklmnopqrstuvwxyz.dsql.eu-west-1.on.aws';
    const credentials = {
      AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      AWS_SESSION_TOKEN: 'session-token',
    };
    const saved = Object.fromEntries(Object.keys(credentials).map((name) => [name, process.env[name]]));
    Object.assign(process.env, credentials);
    try {
      expect(exports.nativeBinding()).toBeNull();
      const reader = new URL(`https://${await exports.connectionPassword('users_reader', host, 'eu-west-1')}`);
      const admin = new URL(`https://${await exports.connectionPassword('admin', host, 'eu-west-1')}`);

      expect(reader.host).toBe(host);
      expect(reader.searchParams.get('Action')).toBe('DbConnect');
      expect(admin.searchParams.get('Action')).toBe('DbConnectAdmin');
      for (const token of [reader, admin]) {
        expect(token.searchParams.get('X-Amz-Credential')).toMatch(
          /^AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-west-1\/dsql\/aws4_request$/,
        );
        expect(token.searchParams.get('X-Amz-Security-Token')).toBe('session-token');
        expect(token.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
      }
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('fail loudly, naming what is missing, if a standard PDF font is asked for', async () => {
    const { exports } = await bundle<{ embedHelvetica: () => Promise<void> }>(
      'test/infra/fixtures/standard-font-entry.ts',
    );

    await expect(exports.embedHelvetica()).rejects.toThrow(/standard PDF fonts are not part of this bundle/);
  });
});
