import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import pg from 'pg';
import { LocalSecretSealer } from '#shared/adapters/crypto/local-secret-sealer.ts';
import { LocalReportSigningKey } from '#shared/adapters/signing/local-report-signing-key.ts';
import {
  apiRoutes,
  emailEventsFunction,
  fallbackRoute,
  reportPipelineFunctions,
  webhookDeliveryFunction,
  webhookRepublishFunction,
} from '#shared/config/api-routes.ts';
import type { HandlerLoader, LambdaHandler } from '#local/handler-modules.ts';
import { memoizeByKey } from '#local/memoize-by-key.ts';

/**
 * What each function's invocations caused on the local stack, for the per-operation cost
 * (measurement 16). The handlers run in this process, so every call they make is counted where it
 * is made, in the invocation's async context (AsyncLocalStorage), with no change to the service's
 * code and nothing between the functions and the emulators:
 *
 * - the handler loader is wrapped: invocations, their duration, HTTP API events, SQS records;
 * - `send` of the AWS SDK's client base class (every service client shares it): requests by
 *   service and operation; DynamoDB calls get `ReturnConsumedCapacity: TOTAL` (DynamoDB Local
 *   computes it as DynamoDB does) and the units are read from the answer; S3 PUT bytes; SES
 *   recipients;
 * - `LocalSecretSealer` (KMS's local stand-in): each seal or open is the KMS Encrypt or Decrypt it
 *   replaces;
 * - `LocalReportSigningKey` (the signing key's local stand-in): each signature is the `kms:Sign` with
 *   the report signing key it replaces (priced by the configured key spec in operation-cost.ts);
 * - `pg.Client.prototype.query`: statements on the users database (DSQL's DPUs are estimated from them);
 * - `process.stdout.write`: the bytes the functions log, and the EMF metric values among them.
 *
 * Calls outside an invocation (the local event sources' own SQS polling, the bench's setup and
 * checks) are not counted. SDK retries are inside `send`, so a retried call counts once.
 */

export interface FunctionTally {
  invocations: number;
  durationsMs: number[];
  apiRequests: number;
  sqsRecords: number;
  dynamoDbReadUnits: number;
  dynamoDbWriteUnits: number;
  /** Requests by `Service.Operation`. */
  requests: Map<string, number>;
  /** DynamoDB capacity units (read or write) by `DynamoDB.Operation`. */
  capacityUnits: Map<string, number>;
  s3BytesStored: number;
  sesEmails: number;
  kmsRequests: number;
  kmsSignRequests: number;
  logBytes: number;
  metricValues: number;
  /** `namespace/metric[dimension names]`: each distinct one is a CloudWatch custom metric. */
  metrics: Set<string>;
  sqlStatements: number;
}

const DYNAMODB_WRITES = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;
const DYNAMODB_CAPACITY_OPERATIONS =
  /^(Get|Put|Update|Delete|Query|Scan|BatchGet|BatchWrite|TransactGet|TransactWrite|ExecuteStatement)/;
const TRANSACTION_CONTROL = /^\s*(BEGIN|START|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE|SET|RESET|SHOW|DISCARD)\b/i;

interface SdkCommand {
  input: Record<string, unknown>;
  constructor: { name: string };
}
interface SdkClient {
  config: { serviceId?: string };
}
type Send = (this: SdkClient, command: SdkCommand, ...rest: unknown[]) => Promise<unknown>;

export class CostAccounting {
  private readonly invocation = new AsyncLocalStorage<string>();
  private tallies = new Map<string, FunctionTally>();
  private installed = false;

  /** Hooks the counters in (once per process). */
  install(): void {
    if (this.installed) return;
    this.installed = true;
    this.countSdkCalls();
    this.countSealerCalls();
    this.countReportSignatures();
    this.countSqlStatements();
    this.countLogWrites();
  }

  get isInstalled(): boolean {
    return this.installed;
  }

  /** The loader the local stack uses, its handlers counted; `nameOf` names a function by its entry file. */
  wrapLoader(loader: HandlerLoader, nameOf: (entry: string) => string): HandlerLoader {
    return memoizeByKey(async (entry) => {
      const handler = await loader(entry);
      const name = nameOf(entry);
      const counted: LambdaHandler = async (event, context) => {
        this.tally(name).invocations += 1;
        if (isHttpApiEvent(event)) this.tally(name).apiRequests += 1;
        this.tally(name).sqsRecords += sqsRecordsIn(event);
        const startedAt = performance.now();
        try {
          return await this.invocation.run(name, () => handler(event, context));
        } finally {
          this.tally(name).durationsMs.push(performance.now() - startedAt);
        }
      };
      return counted;
    });
  }

  /** Every function's tally since the last call, and a fresh start. */
  take(): Map<string, FunctionTally> {
    const taken = this.tallies;
    this.tallies = new Map();
    return taken;
  }

  private tally(name: string): FunctionTally {
    let tally = this.tallies.get(name);
    if (!tally) {
      tally = {
        invocations: 0,
        durationsMs: [],
        apiRequests: 0,
        sqsRecords: 0,
        dynamoDbReadUnits: 0,
        dynamoDbWriteUnits: 0,
        requests: new Map(),
        capacityUnits: new Map(),
        s3BytesStored: 0,
        sesEmails: 0,
        kmsRequests: 0,
        kmsSignRequests: 0,
        logBytes: 0,
        metricValues: 0,
        metrics: new Set(),
        sqlStatements: 0,
      };
      this.tallies.set(name, tally);
    }
    return tally;
  }

  /** The function whose invocation the caller is in, if any. */
  private current(): FunctionTally | undefined {
    const name = this.invocation.getStore();
    return name === undefined ? undefined : this.tally(name);
  }

  private countSdkCalls(): void {
    // The base class every generated client extends (DynamoDBClient, SQSClient, ...; the DynamoDB
    // document client too): one prototype, so one wrapper sees every service's calls.
    const base = Object.getPrototypeOf(DynamoDBClient.prototype) as { send: Send };
    const send = base.send;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the wrapper needs the client as `this`
    const accounting = this;
    base.send = async function (this: SdkClient, command: SdkCommand, ...rest: unknown[]) {
      const tally = accounting.current();
      if (!tally || typeof rest.at(-1) === 'function') return send.call(this, command, ...rest);
      const service = this.config.serviceId ?? 'unknown';
      const operation = command.constructor.name.replace(/Command$/, '');
      const key = `${service}.${operation}`;
      tally.requests.set(key, (tally.requests.get(key) ?? 0) + 1);
      if (service === 'S3' && operation === 'PutObject') tally.s3BytesStored += byteLength(command.input.Body);
      if (service === 'SESv2' && operation === 'SendEmail') tally.sesEmails += recipientsOf(command.input);
      if (service === 'KMS') tally.kmsRequests += 1;
      const measuresCapacity = service === 'DynamoDB' && DYNAMODB_CAPACITY_OPERATIONS.test(operation);
      if (measuresCapacity) command.input.ReturnConsumedCapacity ??= 'TOTAL';
      try {
        const output = (await send.call(this, command, ...rest)) as { ConsumedCapacity?: unknown };
        if (measuresCapacity) accounting.addCapacity(tally, key, capacityUnitsIn(output.ConsumedCapacity));
        return output;
      } catch (error) {
        // A write refused by its condition still consumes write capacity (at least one unit); a
        // cancelled transaction, two units for each of its items.
        const name = (error as Error).name;
        if (measuresCapacity && name === 'ConditionalCheckFailedException') accounting.addCapacity(tally, key, 1);
        if (measuresCapacity && name === 'TransactionCanceledException')
          accounting.addCapacity(tally, key, 2 * (command.input.TransactItems as unknown[] | undefined)!.length);
        throw error;
      }
    };
  }

  /** `key` is `DynamoDB.Operation`. */
  private addCapacity(tally: FunctionTally, key: string, units: number): void {
    if (DYNAMODB_WRITES.test(key.slice('DynamoDB.'.length))) tally.dynamoDbWriteUnits += units;
    else tally.dynamoDbReadUnits += units;
    tally.capacityUnits.set(key, (tally.capacityUnits.get(key) ?? 0) + units);
  }

  private countSealerCalls(): void {
    const prototype = LocalSecretSealer.prototype;
    for (const method of ['seal', 'open'] as const) {
      const original = prototype[method];
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- the wrapper needs the sealer as `this`
      const accounting = this;
      prototype[method] = function (this: LocalSecretSealer, ...args: Parameters<typeof original>) {
        const tally = accounting.current();
        if (tally) tally.kmsRequests += 1;
        return original.apply(this, args);
      };
    }
  }

  private countReportSignatures(): void {
    const prototype = LocalReportSigningKey.prototype;
    const original = prototype.signSha256;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the wrapper needs the key as `this`
    const accounting = this;
    prototype.signSha256 = function (this: LocalReportSigningKey, message: Uint8Array) {
      const tally = accounting.current();
      if (tally) tally.kmsSignRequests += 1;
      return original.call(this, message);
    };
  }

  private countSqlStatements(): void {
    const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const query = prototype.query;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the wrapper needs the client as `this`
    const accounting = this;
    prototype.query = function (this: unknown, ...args: unknown[]) {
      const tally = accounting.current();
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | undefined)?.text;
      if (tally && typeof text === 'string' && !TRANSACTION_CONTROL.test(text)) tally.sqlStatements += 1;
      return query.apply(this, args);
    };
  }

  private countLogWrites(): void {
    const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
    process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
      const tally = this.current();
      if (tally && (typeof chunk === 'string' || chunk instanceof Uint8Array)) {
        tally.logBytes += byteLength(chunk);
        const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
        if (text.includes('"CloudWatchMetrics"')) countMetrics(tally, text);
      }
      return write(chunk, ...rest);
    }) as typeof process.stdout.write;
  }
}

const FUNCTIONS = [
  ...apiRoutes,
  fallbackRoute,
  ...Object.values(reportPipelineFunctions),
  webhookDeliveryFunction,
  webhookRepublishFunction,
  emailEventsFunction,
];

/** Every function the local stack runs. */
export const FUNCTION_NAMES: readonly string[] = FUNCTIONS.map((fn) => fn.name);

/** A function's name (its construct id) from its entry file, as the router and pollers load it. */
export function functionNameOf(entry: string): string {
  const match = FUNCTIONS.find((fn) => entry === fn.entry || entry.endsWith(`/${fn.entry}`));
  if (!match) throw new Error(`no function has the entry ${entry}`);
  return match.name;
}

/** The one accounting of this process: the hooks patch shared prototypes, so there can be only one. */
export const costAccounting = new CostAccounting();

function countMetrics(tally: FunctionTally, text: string): void {
  for (const line of text.split('\n')) {
    if (!line.includes('"CloudWatchMetrics"')) continue;
    const emf = JSON.parse(line) as {
      _aws: {
        CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }>;
      };
    };
    for (const directive of emf._aws.CloudWatchMetrics) {
      for (const metric of directive.Metrics) {
        tally.metricValues += 1;
        for (const dimensions of directive.Dimensions)
          tally.metrics.add(`${directive.Namespace}/${metric.Name}[${dimensions.join(',')}]`);
      }
    }
  }
}

function isHttpApiEvent(event: unknown): boolean {
  return typeof (event as { requestContext?: { http?: unknown } } | null)?.requestContext?.http === 'object';
}

function sqsRecordsIn(event: unknown): number {
  const records = (event as { Records?: Array<{ eventSource?: string }> } | null)?.Records;
  return Array.isArray(records) ? records.filter((record) => record.eventSource === 'aws:sqs').length : 0;
}

function byteLength(body: unknown): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  return 0;
}

function recipientsOf(input: Record<string, unknown>): number {
  const destination = input.Destination as Record<string, unknown[] | undefined> | undefined;
  const count = ['ToAddresses', 'CcAddresses', 'BccAddresses'].reduce(
    (sum, field) => sum + (destination?.[field]?.length ?? 0),
    0,
  );
  return Math.max(1, count);
}

/** Capacity units in a `ConsumedCapacity` answer: one object, or one per table (batches, transactions). */
function capacityUnitsIn(consumed: unknown): number {
  const entries = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return entries.reduce(
    (sum: number, entry: { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number }) =>
      sum + (entry.CapacityUnits ?? (entry.ReadCapacityUnits ?? 0) + (entry.WriteCapacityUnits ?? 0)),
    0,
  );
}
