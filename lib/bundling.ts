import path from 'node:path';
import type { BuildOptions } from 'esbuild';
import { LogLevel, OutputFormat, SourceMapMode, type BundlingOptions, type ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { repoRoot } from './repo-root.ts';

/**
 * The one set of esbuild settings every Lambda bundle is built with. `lambdaBundling` feeds CDK's
 * NodejsFunction; `esbuildOptionsFor` gives the same build as plain esbuild options, so a
 * benchmark measures exactly what is deployed.
 */

/** ESM bundles have no `require`; some CommonJS dependencies inside the bundle still call it. */
export const createRequireBanner =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

export const esbuildTarget = 'node22';
export const mainFields = ['module', 'main'];

/**
 * Module specifier -> file (relative to the repository root, where CDK runs esbuild) that replaces
 * it in every bundle. The SDK's default credential chain becomes the environment variables Lambda
 * sets: see shared/adapters/lambda-credentials.ts.
 */
export const bundleAliases: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': './shared/adapters/lambda-credentials.ts',
};

/** Source maps are emitted as separate `.map` files; Node only applies them with this flag. */
export const sourceMapEnvironment = { NODE_OPTIONS: '--enable-source-maps' } as const;

export const lambdaBundling: BundlingOptions = {
  format: OutputFormat.ESM, // CDK then writes `index.mjs`
  target: esbuildTarget,
  minify: true,
  sourceMap: true,
  sourceMapMode: SourceMapMode.DEFAULT, // `--sourcemap`: external file plus a sourceMappingURL comment
  // Node reads and parses the whole map at cold start (--enable-source-maps); without the sources
  // embedded it is a third of the size and stack traces still name file, line and column.
  sourcesContent: false,
  keepNames: true,
  mainFields,
  banner: createRequireBanner,
  // The AWS SDK v3 is bundled, not taken from the runtime: a pinned, tree-shaken client loads faster.
  bundleAwsSDK: true,
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
 * @param outfile output file; use a `.mjs` name (CDK writes `index.mjs`)
 */
export function esbuildOptionsFor(entry: string, outfile: string): BuildOptions {
  return {
    absWorkingDir: repoRoot,
    entryPoints: [path.resolve(repoRoot, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: esbuildTarget,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    keepNames: true,
    mainFields,
    banner: { js: createRequireBanner },
    external: [],
    alias: { ...bundleAliases },
    logLevel: 'warning',
  };
}
