import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { HandlerLoader } from '#local/handler-modules.ts';
import type { LocalStack } from '#local/local-stack.ts';
import type { Row } from '#bench/report.ts';
import { FaultProxy } from '#test/support/fault-proxy.ts';
import { warmDynamoDbLocal } from '#bench/support/warm-dynamodb-local.ts';

/** One file under bench/measurements/ default-exports one of these. */
export interface Measurement {
  /** Title in the table, e.g. `2 module init`. */
  title: string;
  run(context: MeasurementContext): Promise<Row[]>;
}

export interface MeasurementContext {
  /** A temporary directory of this process, removed by nobody in particular (the OS's tmp). */
  workDir: string;
  /** The local stack on free loopback ports, started on first call and shared by the process's measurements. */
  localStack(): Promise<LocalStack>;
  /** A DynamoDB document client on the local stack's DynamoDB Local. */
  localDocuments(): Promise<DynamoDBDocumentClient>;
  /**
   * The fault proxy between the functions and DynamoDB Local (test/support/fault-proxy.ts), in a
   * process started with BENCH_DYNAMODB_FAULTS=1; the local stack starts with it in `pass` mode.
   */
  dynamoDbFaults(): Promise<FaultProxy>;
  /** A progress line on stderr. */
  log(message: string): void;
  /** A run-unique suffix for organization ids, so runs never share data. */
  runId: string;
  /** Runs `cleanup` when the process's measurements are done, before the local stack stops (e.g. closes a pool). */
  onClose(cleanup: () => Promise<void>): void;
}

/**
 * A process started with BENCH_COST_ACCOUNTING=1 (measurement 16, its own stack) counts what every
 * invocation causes (support/cost-accounting.ts): the stack loads its handlers through the counting loader.
 */
async function countedHandlers(): Promise<{ quiet: false; loadHandler: HandlerLoader }> {
  const { costAccounting, functionNameOf } = await import('./cost-accounting.ts');
  const { createHandlerLoader } = await import('#local/handler-modules.ts');
  costAccounting.install();
  return { quiet: false, loadHandler: costAccounting.wrapLoader(createHandlerLoader(), functionNameOf) };
}

/** Far above any measurement's rate, so no measurement but the noisy neighbour meets the budget. */
const MEASUREMENT_REQUEST_BUDGET = { ratePerSecond: 10_000, burst: 20_000 };

export async function createContext(
  log: (message: string) => void,
): Promise<MeasurementContext & { close(): Promise<void> }> {
  const workDir = await mkdtemp(join(tmpdir(), 'bench-'));
  let stack: Promise<LocalStack> | undefined;
  let documents: DynamoDBDocumentClient | undefined;
  let dynamoDbProxy: FaultProxy | undefined;
  const cleanups: Array<() => Promise<void>> = [];
  const localStack = (): Promise<LocalStack> => {
    stack ??= (async () => {
      log('starting the local stack (DynamoDB Local, PostgreSQL, SQS, S3, SES emulators)');
      // Imported here: it owns process.env, and measurements without it must not load it.
      const { startLocalStack } = await import('#local/local-stack.ts');
      // With the dashboard at / (measurement 9 builds it first; the files are read per request).
      const started = await startLocalStack({
        // Counted for the per-operation cost: logged as deployed (INFO), so the log bytes are the deployed ones.
        ...(process.env.BENCH_COST_ACCOUNTING === '1' ? await countedHandlers() : { quiet: true }),
        keysDir: join(workDir, 'keys'),
        dashboard: true,
        // The measurements drive one organization far beyond 50 requests a second on purpose; only the
        // noisy neighbour (its own process, BENCH_REQUEST_BUDGET=contract) runs with the contract's budget.
        ...(process.env.BENCH_REQUEST_BUDGET === 'contract' ? {} : { requestBudget: MEASUREMENT_REQUEST_BUDGET }),
        ...(process.env.BENCH_DYNAMODB_FAULTS === '1'
          ? {
              routeFunctions: async ({ endpoints }) => {
                const target = new URL(endpoints.dynamodb);
                dynamoDbProxy = await FaultProxy.start('dynamodb', {
                  host: target.hostname,
                  port: Number(target.port),
                });
                return { endpoints: { dynamodb: dynamoDbProxy.endpoint } };
              },
            }
          : {}),
      });
      log(`local stack up in ${started.startupMs} ms at ${started.baseUrl}`);
      const warmingSince = Date.now();
      await warmDynamoDbLocal(started.endpoints.dynamodb, started.env);
      log(`DynamoDB Local warmed in ${Date.now() - warmingSince} ms`);
      return started;
    })();
    return stack;
  };
  return {
    workDir,
    runId: Date.now().toString(36),
    log,
    localStack,
    onClose: (cleanup) => void cleanups.push(cleanup),
    async localDocuments() {
      const { endpoints, env } = await localStack();
      documents ??= DynamoDBDocumentClient.from(
        new DynamoDBClient({
          endpoint: endpoints.dynamodb,
          region: env.AWS_REGION,
          credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
        }),
        { marshallOptions: { removeUndefinedValues: true } },
      );
      return documents;
    },
    async dynamoDbFaults() {
      await localStack();
      if (!dynamoDbProxy) throw new Error('this process was not started with BENCH_DYNAMODB_FAULTS=1');
      return dynamoDbProxy;
    },
    async close() {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error: unknown) => log(String(error)));
      documents?.destroy();
      if (stack) await (await stack).stop();
      await dynamoDbProxy?.stop();
    },
  };
}
