import path from 'node:path';
import type { BuildOptions } from 'esbuild';
import {
  LogLevel,
  OutputFormat,
  SourceMapMode,
  type BundlingOptions,
  type ICommandHooks,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { repoRoot } from './repo-root.ts';

/**
 * The one set of esbuild settings every Lambda bundle is built with. `lambdaBundling` feeds CDK's
 * NodejsFunction; `esbuildOptionsFor` gives the same build as plain esbuild options, so a
 * benchmark measures exactly what is deployed.
 */

/**
 * CommonJS, which CDK writes as `index.js`: Node loads a CommonJS file without setting up its ES
 * module loader, about 5 ms of every cold start (bench: module init). The sources stay ES modules;
 * the one `import.meta.url` among them (a fallback used outside bundles) is given the bundle's own
 * file URL.
 */
export const bundleFileName = 'index.js';
// "use strict" first: the sources are ES modules, which are strict; a directive after the banner would not count.
const importMetaUrlBanner = `"use strict";const importMetaUrl = require('node:url').pathToFileURL(__filename).href;`;
const importMetaUrlDefine = { 'import.meta.url': 'importMetaUrl' };

export const esbuildTarget = 'node24';
export const mainFields = ['module', 'main'];

/**
 * Module specifier -> file (relative to the repository root, where CDK runs esbuild) that replaces
 * it in every bundle: parts of dependencies a function never reaches at run time but would pay for
 * at every cold start. Each file says what it replaces and why.
 */
export const bundleAliases: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': './shared/bundle-substitutes/aws-credential-provider-node.ts',
  '@pdf-lib/standard-fonts': './shared/bundle-substitutes/pdf-lib-standard-fonts.ts',
  '@pdf-lib/upng': './shared/bundle-substitutes/pdf-lib-upng.ts',
  'brotli/decompress.js': './shared/bundle-substitutes/brotli-decompress.ts',
  pako: './shared/bundle-substitutes/pako.ts',
  semver: './shared/bundle-substitutes/semver.ts',
};

export const lambdaBundling: BundlingOptions = {
  format: OutputFormat.CJS,
  target: esbuildTarget,
  minify: true,
  // The map is written beside the bundle and deployed with it; the functions run with
  // --enable-source-maps (lib/service-function.ts), so a logged stack trace names TypeScript
  // file:line. It costs a few milliseconds of cold start (README, "Performance").
  sourceMap: true,
  sourceMapMode: SourceMapMode.DEFAULT, // `--sourcemap`: external file plus a sourceMappingURL comment
  sourcesContent: false,
  // Function names are not kept (esbuild's keepNames wraps every function, 2-3 ms per cold start);
  // every error class of ours and the SDK's sets its `name` explicitly.
  keepNames: false,
  mainFields,
  banner: importMetaUrlBanner,
  define: importMetaUrlDefine,
  // The AWS SDK v3 is bundled, not taken from the runtime: a pinned, tree-shaken client loads faster.
  bundleAwsSDK: true,
  // Nothing is external. pg's optional native binding needs no entry: pg requires `pg-native` inside
  // a try/catch, which esbuild leaves as a plain require, and only when `pg.native` is read (never
  // by the service), which then answers null (test/infra/lambda-bundles.test.ts).
  externalModules: [],
  logLevel: LogLevel.WARNING,
  esbuildArgs: { '--alias': Object.entries(bundleAliases).map(([from, to]) => `${from}=${to}`) },
};

/**
 * `lambdaBundling` with shell commands run around the esbuild step (e.g. copying data files next
 * to the bundle). The esbuild options stay exactly those of every other function.
 */
export function lambdaBundlingWith(commandHooks: ICommandHooks | undefined): BundlingOptions {
  return commandHooks === undefined ? lambdaBundling : { ...lambdaBundling, commandHooks };
}

/**
 * Plain esbuild options equivalent to `lambdaBundling` for one entry file.
 * @param entry entry file, absolute or relative to the repository root
 * @param outfile output file; CDK names it `bundleFileName`
 */
export function esbuildOptionsFor(entry: string, outfile: string): BuildOptions {
  return {
    absWorkingDir: repoRoot,
    entryPoints: [path.resolve(repoRoot, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: esbuildTarget,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    keepNames: false,
    mainFields,
    banner: { js: importMetaUrlBanner },
    define: importMetaUrlDefine,
    external: [],
    alias: { ...bundleAliases },
    logLevel: 'warning',
  };
}
