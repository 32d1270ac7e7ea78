import path from 'node:path';
import { reportPipelineFunctions } from '#shared/config/api-routes.ts';
import { single, type Row } from '#bench/report.ts';
import { buildLambdaBundles, largestPackages } from '#bench/support/bundles.ts';
import type { Measurement } from '#bench/support/measurement.ts';

/**
 * 1. Raw size of every Lambda's `index.js`, built with the esbuild options CDK uses. Each carries
 * the X-Ray SDK of Powertools Tracer (about 140 KB). An API function whose only AWS client is
 * DynamoDB may take 450 KB; no other function more than 650 KB; a function that also talks to the
 * users database 120 KB more (`pg` and the DSQL signer with its SigV4 parts); the worker, which
 * carries pdf-lib, the S3 client (about 100 KB), the font engine (fontkit with its OpenType shapers
 * and Unicode tables, bidi-js and linebreak, about 330 KB) and the SQS client that publishes its
 * webhook events (about 30 KB): 1300 KB. Over budget, the note names the packages that take the
 * most room (esbuild metafile).
 */
const ONE_CLIENT_API_MAX_KB = 450;
const ANY_FUNCTION_MAX_KB = 650;
const USERS_DATABASE_EXTRA_KB = 120;
const WORKER_MAX_KB = 1300;

export default {
  title: '1 bundle size',
  async run(context) {
    const bundles = await buildLambdaBundles(path.join(context.workDir, 'bundle-size'));
    return bundles.map((bundle): Row => {
      // An HTTP function with no AWS client but DynamoDB (or none at all) is held to the tighter budget.
      const oneClientApi = bundle.kind !== 'pipeline' && bundle.awsClients.every((client) => client === 'dynamodb');
      const max =
        bundle.name === reportPipelineFunctions.worker.name
          ? WORKER_MAX_KB
          : (oneClientApi ? ONE_CLIENT_API_MAX_KB : ANY_FUNCTION_MAX_KB) +
            (bundle.usersDatabase ? USERS_DATABASE_EXTRA_KB : 0);
      const kb = bundle.bytes / 1024;
      const clients = bundle.awsClients.length ? bundle.awsClients.join('+') : 'no AWS client';
      return {
        measurement: this.title,
        subject: `${bundle.name} (${bundle.kind}, ${clients})`,
        unit: 'KB',
        value: single(kb),
        budget: { on: 'median', max },
        ...(kb > max ? { note: `largest parts: ${largestPackages(bundle)}` } : {}),
      };
    });
  },
} satisfies Measurement;
