import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { bundleFileName, esbuildOptionsFor } from '#lib/bundling.ts';
import {
  apiRoutes,
  fallbackRoute,
  reportPipelineFunctions,
  webhookDeliveryFunction,
} from '#shared/config/api-routes.ts';
import { functionNeeds, type Need } from '#shared/config/function-needs.ts';
import { allReportFontFiles, installedPath, REPORT_FONTS_DIR_ENV } from '#shared/adapters/pdf/report-fonts.ts';

/** Every Lambda of the service, built the way CDK builds it (lib/bundling.ts), into a temporary folder. */

export type LambdaKind = 'api' | 'fallback' | 'pipeline';

export interface LambdaBundle {
  name: string;
  entry: string;
  kind: LambdaKind;
  /** The bundle CDK would deploy (`index.js`). */
  file: string;
  /** Raw size of the bundle (the source map is a separate file). */
  bytes: number;
  /** AWS SDK clients in the bundle, e.g. `dynamodb`, `s3`. */
  awsClients: string[];
  /**
   * The function declares a users-database need (shared/config/function-needs.ts): it may carry `pg`
   * and the DSQL signer. Read from the declaration, not the bundle, so a function that bundles `pg`
   * by mistake is held to the tighter budget and its row shows the mistake.
   */
  usersDatabase: boolean;
  /** What CDK adds to the function's environment for this bundle (the worker's font folder). */
  environment: Record<string, string>;
  metafile: Metafile;
}

export const lambdaEntries: ReadonlyArray<{ name: string; entry: string; kind: LambdaKind }> = [
  ...apiRoutes.map((route) => ({ name: route.name, entry: route.entry, kind: 'api' as const })),
  { name: fallbackRoute.name, entry: fallbackRoute.entry, kind: 'fallback' },
  ...Object.values(reportPipelineFunctions).map((fn) => ({
    name: fn.name,
    entry: fn.entry,
    kind: 'pipeline' as const,
  })),
  { name: webhookDeliveryFunction.name, entry: webhookDeliveryFunction.entry, kind: 'pipeline' },
];

const declaresUsersDatabase = (name: string): boolean =>
  ((functionNeeds as Readonly<Record<string, readonly Need[]>>)[name] ?? []).some((need) =>
    need.startsWith('usersDatabase:'),
  );

export async function buildLambdaBundles(outDir: string): Promise<LambdaBundle[]> {
  const bundles: LambdaBundle[] = [];
  for (const { name, entry, kind } of lambdaEntries) {
    const dir = path.join(outDir, name);
    const file = path.join(dir, bundleFileName);
    const { metafile } = await build({ ...esbuildOptionsFor(entry, file), metafile: true });
    const output = Object.entries(metafile.outputs).find(([out]) => out.endsWith(bundleFileName));
    if (!output) throw new Error(`esbuild wrote no ${bundleFileName} for ${entry}`);
    const inputs = Object.keys(output[1].inputs);
    const awsClients = [
      ...new Set(
        inputs
          .map((input) => /node_modules\/@aws-sdk\/client-([^/]+)\//.exec(input)?.[1])
          .filter((c) => c !== undefined),
      ),
    ];
    const environment = inputs.some((input) => input.includes('shared/adapters/pdf/'))
      ? await copyReportFonts(dir)
      : {};
    bundles.push({
      name,
      entry,
      kind,
      file,
      bytes: output[1].bytes,
      awsClients: awsClients.sort(),
      usersDatabase: declaresUsersDatabase(name),
      environment,
      metafile,
    });
  }
  return bundles;
}

/** As lib/report-pipeline-construct.ts `copyReportFonts`: every report font file in `fonts/` beside the bundle. */
export async function copyReportFonts(bundleDir: string): Promise<Record<string, string>> {
  const fontsDir = path.join(bundleDir, 'fonts');
  await mkdir(fontsDir, { recursive: true });
  for (const { file, packagePath } of allReportFontFiles()) {
    await copyFile(installedPath(packagePath), path.join(fontsDir, file));
  }
  return { [REPORT_FONTS_DIR_ENV]: fontsDir };
}

/** The packages contributing most to a bundle, e.g. `pdf-lib 224 KB, @smithy/core 112 KB`. */
export function largestPackages(bundle: LambdaBundle, count = 5): string {
  const output = Object.entries(bundle.metafile.outputs).find(([out]) => out.endsWith(bundleFileName))![1];
  const byPackage = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1] ?? `(own code) ${input.split('/')[0]}`;
    byPackage.set(inPackage, (byPackage.get(inPackage) ?? 0) + bytesInOutput);
  }
  return [...byPackage]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)} KB`)
    .join(', ');
}
