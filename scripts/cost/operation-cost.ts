import type { CloudFormationTemplate } from './idle-cost.ts';
import { assumption, costOf, type PriceTable } from './price-table.ts';
import { REPORT_SIGNING_ALGORITHM } from '#shared/adapters/signing/report-signing-algorithm.ts';

/**
 * What a batch of operations caused, counted on the local stack (bench/support/cost-accounting.ts),
 * and its price per 1,000 operations at the prices of docs/cost.md. Pure arithmetic: counts in,
 * dollars out.
 */
export interface OperationCounts {
  /** How many operations the counts are for. */
  readonly operations: number;
  /** HTTP API requests. */
  readonly apiRequests: number;
  readonly lambdaInvocations: number;
  /** Each invocation's billed duration (whole milliseconds, rounded up) times its function's configured memory. */
  readonly lambdaGbSeconds: number;
  /** Invocations of functions with active tracing: an upper bound on the traces X-Ray records. */
  readonly tracedInvocations: number;
  readonly dynamoDbReadUnits: number;
  readonly dynamoDbWriteUnits: number;
  /** Requests the functions sent to SQS. */
  readonly sqsRequests: number;
  /** Messages an SQS event source handed to a function: each costs the event source's receive and delete. */
  readonly sqsMessagesConsumed: number;
  /** S3 PUT, COPY, POST and LIST requests. */
  readonly s3WriteRequests: number;
  /** S3 GET and the other requests. */
  readonly s3ReadRequests: number;
  /** Bytes written to S3, kept until the bucket's lifecycle rule deletes them. */
  readonly s3BytesStored: number;
  /** Days S3 keeps what was stored. */
  readonly s3StoredDays: number;
  /** Bytes downloaded from S3 by clients, over the internet. */
  readonly s3BytesOut: number;
  readonly sesEmails: number;
  readonly kmsRequests: number;
  /** KMS Sign calls with the report signing key, priced by its key spec (`kmsSignPrice`). */
  readonly kmsSignRequests: number;
  /** Bytes the functions logged (EMF metric lines included), besides Lambda's own lines per invocation. */
  readonly logBytes: number;
  /** EMF metric values emitted (how many metrics, summed over the lines). */
  readonly metricValues: number;
  /** SQL statements on the users database (Aurora DSQL), transaction control not counted. */
  readonly sqlStatements: number;
}

export interface CostItem {
  readonly item: string;
  /** Per 1,000 operations, in the price's unit. */
  readonly quantity: number;
  readonly usd: number;
  /** Estimated from a published model rather than counted (DSQL's DPUs). */
  readonly estimate: boolean;
}

export interface OperationCost {
  /** Dollars per 1,000 operations, estimates included. */
  readonly usdPerThousand: number;
  /** The part of it that is estimated. */
  readonly estimatedUsdPerThousand: number;
  readonly items: readonly CostItem[];
}

const BYTES_PER_GB = 1e9;

/**
 * The price of a request with an asymmetric KMS key of `keySpec`: KMS prices RSA 2048 keys' requests
 * as symmetric ones, every other asymmetric spec at the asymmetric price.
 */
export const kmsSignPrice = (keySpec: string): string =>
  keySpec === 'RSA_2048' ? 'kms-rsa-2048-request' : 'kms-asymmetric-request';

/** `signingKeySpec`: the report signing key's spec the signatures are priced by; the configured one unless told. */
export function operationCost(
  counts: OperationCounts,
  table: PriceTable,
  signingKeySpec: string = REPORT_SIGNING_ALGORITHM.kmsKeySpec,
): OperationCost {
  if (counts.operations <= 0) throw new Error('operation counts need at least one operation');
  const perThousand = (quantity: number): number => (quantity * 1000) / counts.operations;
  const daysPerMonth = assumption(table, 'hours-per-month') / 24;
  const logBytes =
    counts.logBytes + counts.lambdaInvocations * assumption(table, 'lambda-platform-log-bytes-per-invocation');
  const lines: Array<[item: string, price: string, quantity: number, estimate?: boolean]> = [
    ['API requests', 'http-api-request', counts.apiRequests],
    ['Lambda requests', 'lambda-request', counts.lambdaInvocations],
    ['Lambda GB-seconds', 'lambda-gb-second', counts.lambdaGbSeconds],
    ['X-Ray traces', 'xray-trace-recorded', counts.tracedInvocations],
    ['DynamoDB read units', 'dynamodb-read-request-unit', counts.dynamoDbReadUnits],
    ['DynamoDB write units', 'dynamodb-write-request-unit', counts.dynamoDbWriteUnits],
    [
      'SQS requests',
      'sqs-request',
      counts.sqsRequests + counts.sqsMessagesConsumed * assumption(table, 'sqs-event-source-requests-per-message'),
    ],
    ['S3 PUT requests', 's3-put-request', counts.s3WriteRequests],
    ['S3 GET requests', 's3-get-request', counts.s3ReadRequests],
    ['S3 storage', 's3-storage', ((counts.s3BytesStored / BYTES_PER_GB) * counts.s3StoredDays) / daysPerMonth],
    ['S3 data out', 'data-transfer-out', counts.s3BytesOut / BYTES_PER_GB],
    ['SES e-mails', 'ses-email', counts.sesEmails],
    ['KMS requests', 'kms-request', counts.kmsRequests],
    ['KMS Sign requests', kmsSignPrice(signingKeySpec), counts.kmsSignRequests],
    ['CloudWatch Logs', 'cloudwatch-logs-ingestion', logBytes / BYTES_PER_GB],
    ['Aurora DSQL DPUs', 'dsql-dpu', counts.sqlStatements * assumption(table, 'dsql-dpu-per-statement'), true],
  ];
  const items = lines.map(([item, price, quantity, estimate = false]) => ({
    item,
    quantity: perThousand(quantity),
    usd: costOf(table, price, perThousand(quantity)),
    estimate,
  }));
  const sum = (chosen: readonly CostItem[]) => chosen.reduce((total, item) => total + item.usd, 0);
  return { usdPerThousand: sum(items), estimatedUsdPerThousand: sum(items.filter((i) => i.estimate)), items };
}

/** A function's settings that price its invocations, as deployed. */
export interface FunctionSettings {
  readonly memoryMb: number;
  readonly traced: boolean;
}

/**
 * Each named function's memory and tracing, read from the synthesized template: the resource
 * `AWS::Lambda::Function` whose logical id is the construct path ending in the name (CDK appends an
 * 8-character hash). Throws when a name matches no function or several.
 */
export function functionSettingsFrom(
  template: CloudFormationTemplate,
  names: readonly string[],
): Map<string, FunctionSettings> {
  const functions = Object.entries(template.Resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
  return new Map(
    names.map((name) => {
      const matches = functions.filter(([id]) => new RegExp(`${name}[0-9A-F]{8}$`).test(id));
      if (matches.length !== 1)
        throw new Error(`the template has ${matches.length} functions named ${name}, expected one`);
      const properties = matches[0]![1].Properties ?? {};
      const tracing = properties.TracingConfig as { Mode?: string } | undefined;
      return [
        name,
        {
          memoryMb: typeof properties.MemorySize === 'number' ? properties.MemorySize : 128,
          traced: tracing?.Mode === 'Active',
        },
      ] as const;
    }),
  );
}

/** Lambda's billed GB-seconds of one invocation: its duration rounded up to the millisecond, times its memory. */
export function billedGbSeconds(durationMs: number, memoryMb: number): number {
  return (Math.max(1, Math.ceil(durationMs)) / 1000) * (memoryMb / 1024);
}

/** The days the template's bucket lifecycle rule with this id keeps an object (`ExpirationInDays`). */
export function expirationDaysFrom(template: CloudFormationTemplate, ruleId: string): number {
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::S3::Bucket') continue;
    const rules = (resource.Properties?.LifecycleConfiguration as { Rules?: Array<Record<string, unknown>> })?.Rules;
    const rule = rules?.find((candidate) => candidate.Id === ruleId);
    if (typeof rule?.ExpirationInDays === 'number') return rule.ExpirationInDays;
  }
  throw new Error(`the template has no bucket lifecycle rule ${ruleId} with ExpirationInDays`);
}
