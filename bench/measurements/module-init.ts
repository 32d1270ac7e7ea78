import path from 'node:path';
import { summarize, type Row } from '#bench/report.ts';
import { buildLambdaBundles } from '#bench/support/bundles.ts';
import { cleanEnvironment, lambdaEnvironment } from '#bench/support/lambda-environment.ts';
import type { Measurement } from '#bench/support/measurement.ts';
import { timeProcess } from '#bench/support/timing.ts';

/**
 * 2. Module init: `node index.js` (the load of a bundle, with the environment CDK gives the
 * function) against `node -e 0`. Interleaved: every run of a
 * bundle follows a run of bare node, in rotating order, so load on the machine hits both alike;
 * the baseline pools all bare runs (a steadier denominator than each bundle's own 30). The ratio
 * is what the init phase of a cold start costs over the runtime's own start.
 */
const RUNS = 30;
/**
 * API handlers answer a waiting client. The worker, the dead-letter handler and the sweep run
 * asynchronously: their ratio is reported without a budget.
 */
// 3.5x until the functions carried the X-Ray SDK (Powertools Tracer): it adds about
// 140 KB and 40-50 ms of init to every bundle, measured on the 2-core bench machine.
const API_MAX_RATIO = 5;

export default {
  title: '2 module init',
  async run(context) {
    const bundles = await buildLambdaBundles(path.join(context.workDir, 'module-init'));
    const { env } = await lambdaEnvironment();
    const bare: number[] = [];
    const init: number[][] = bundles.map(() => []);
    for (let round = 0; round < RUNS; round++) {
      // Rotate the order, so no bundle always runs right after the same neighbour.
      for (let k = 0; k < bundles.length; k++) {
        const index = (k + round) % bundles.length;
        const bundle = bundles[index]!;
        const bundleEnv = cleanEnvironment({ ...env, ...bundle.environment });
        bare.push(timeProcess(process.execPath, ['-e', '0'], bundleEnv));
        init[index]!.push(timeProcess(process.execPath, [bundle.file], bundleEnv));
      }
      if ((round + 1) % 10 === 0) context.log(`module init: ${round + 1}/${RUNS} rounds`);
    }
    const baseline = { subject: 'node -e 0', value: summarize(bare) };
    return bundles.map((bundle, index): Row => ({
      measurement: this.title,
      subject: bundle.name,
      unit: 'ms',
      value: summarize(init[index]!),
      baseline,
      ...(bundle.kind === 'pipeline' ? {} : { budget: { on: 'ratio', max: API_MAX_RATIO } }),
    }));
  },
} satisfies Measurement;
