import { App, Duration, Stack } from 'aws-cdk-lib';
import { Code, Function, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { describe, expect, it } from 'vitest';
import type { CloudFormationTemplate } from '#scripts/cost/idle-cost.ts';
import {
  billedGbSeconds,
  expirationDaysFrom,
  functionSettingsFrom,
  operationCost,
  type OperationCounts,
} from '#scripts/cost/operation-cost.ts';
import { parsePriceTable, readPriceTable } from '#scripts/cost/price-table.ts';

/** Round prices, so each figure below can be checked by hand. */
const table = parsePriceTable(
  [
    'Region: `us-east-1`',
    '<!-- cost:prices:start -->',
    '| price | USD | per | service |',
    '| - | - | - | - |',
    '| `http-api-request` | 1.00 | 1,000,000 requests | |',
    '| `lambda-request` | 0.20 | 1,000,000 requests | |',
    '| `lambda-gb-second` | 0.00001 | GB-second | |',
    '| `xray-trace-recorded` | 5.00 | 1,000,000 traces | |',
    '| `dynamodb-read-request-unit` | 0.125 | 1,000,000 read units | |',
    '| `dynamodb-write-request-unit` | 0.625 | 1,000,000 write units | |',
    '| `sqs-request` | 0.40 | 1,000,000 requests | |',
    '| `s3-put-request` | 0.005 | 1,000 requests | |',
    '| `s3-get-request` | 0.0004 | 1,000 requests | |',
    '| `s3-storage` | 0.02 | GB-month | |',
    '| `data-transfer-out` | 0.09 | GB | |',
    '| `ses-email` | 0.10 | 1,000 e-mails | |',
    '| `kms-request` | 0.03 | 10,000 requests | |',
    '| `kms-asymmetric-request` | 0.15 | 10,000 requests | |',
    '| `kms-rsa-2048-request` | 0.03 | 10,000 requests | |',
    '| `cloudwatch-logs-ingestion` | 0.50 | GB | |',
    '| `dsql-dpu` | 8.00 | 1,000,000 DPUs | |',
    '<!-- cost:prices:end -->',
    '<!-- cost:idle:start -->',
    '| resource type | counted | price | item |',
    '| - | - | - | - |',
    '<!-- cost:idle:end -->',
    '<!-- cost:assumptions:start -->',
    '| assumption | value | why |',
    '| - | - | - |',
    '| `hours-per-month` | 720 | |',
    '| `lambda-platform-log-bytes-per-invocation` | 1000 | |',
    '| `sqs-event-source-requests-per-message` | 2 | |',
    '| `dsql-dpu-per-statement` | 0.5 | |',
    '<!-- cost:assumptions:end -->',
  ].join('\n'),
);

const nothing: OperationCounts = {
  operations: 10,
  apiRequests: 0,
  lambdaInvocations: 0,
  lambdaGbSeconds: 0,
  tracedInvocations: 0,
  dynamoDbReadUnits: 0,
  dynamoDbWriteUnits: 0,
  sqsRequests: 0,
  sqsMessagesConsumed: 0,
  s3WriteRequests: 0,
  s3ReadRequests: 0,
  s3BytesStored: 0,
  s3StoredDays: 0,
  s3BytesOut: 0,
  sesEmails: 0,
  kmsRequests: 0,
  kmsSignRequests: 0,
  logBytes: 0,
  metricValues: 0,
  sqlStatements: 0,
};

const usdOf = (counts: Partial<OperationCounts>, item: string) =>
  operationCost({ ...nothing, ...counts }, table).items.find((entry) => entry.item === item)!.usd;

describe('the cost of 1,000 operations from what a batch of them caused', () => {
  it('scales the batch to 1,000 operations: 10 operations with 10 e-mails are $0.10 per 1,000', () => {
    const cost = operationCost({ ...nothing, sesEmails: 10 }, table);
    expect(cost.usdPerThousand).toBeCloseTo(0.1, 10);
    expect(cost.items.find((entry) => entry.item === 'SES e-mails')).toMatchObject({ quantity: 1000, usd: 0.1 });
  });

  it('prices requests by their unit counts', () => {
    expect(usdOf({ apiRequests: 30 }, 'API requests')).toBeCloseTo(0.003, 10);
    expect(usdOf({ lambdaInvocations: 20 }, 'Lambda requests')).toBeCloseTo(0.0004, 10);
    expect(usdOf({ tracedInvocations: 20 }, 'X-Ray traces')).toBeCloseTo(0.01, 10);
    expect(usdOf({ dynamoDbReadUnits: 80 }, 'DynamoDB read units')).toBeCloseTo(0.001, 10);
    expect(usdOf({ dynamoDbWriteUnits: 160 }, 'DynamoDB write units')).toBeCloseTo(0.01, 10);
    expect(usdOf({ s3WriteRequests: 10 }, 'S3 PUT requests')).toBeCloseTo(0.005, 10);
    expect(usdOf({ s3ReadRequests: 10 }, 'S3 GET requests')).toBeCloseTo(0.0004, 10);
    expect(usdOf({ kmsRequests: 10 }, 'KMS requests')).toBeCloseTo(0.003, 10);
  });

  it('prices each report signature by the signing key’s spec: RSA 2048 as a symmetric request, any other asymmetric spec at the asymmetric price', () => {
    expect(usdOf({ kmsSignRequests: 10 }, 'KMS Sign requests')).toBeCloseTo(0.003, 10);
    const signOf = (keySpec: string) =>
      operationCost({ ...nothing, kmsSignRequests: 10 }, table, keySpec).items.find(
        (entry) => entry.item === 'KMS Sign requests',
      )!.usd;
    expect(signOf('RSA_2048')).toBeCloseTo(0.003, 10);
    expect(signOf('ECC_NIST_P256')).toBeCloseTo(0.015, 10);
    expect(signOf('RSA_3072')).toBeCloseTo(0.015, 10);
  });

  it('adds the event source’s receive and delete for each message it consumed to the SQS requests sent', () => {
    expect(usdOf({ sqsRequests: 10, sqsMessagesConsumed: 10 }, 'SQS requests')).toBeCloseTo(3 * 0.0004, 10);
  });

  it('prices GB-seconds, and Lambda’s own log lines with each invocation on top of what the functions logged', () => {
    expect(usdOf({ lambdaGbSeconds: 2 }, 'Lambda GB-seconds')).toBeCloseTo(0.002, 10);
    // 10 invocations x 1,000 bytes + 90,000 bytes logged = 100 KB for 10 operations: 10 MB per 1,000.
    expect(usdOf({ lambdaInvocations: 10, logBytes: 90_000 }, 'CloudWatch Logs')).toBeCloseTo(0.005, 10);
  });

  it('keeps stored bytes for the retention’s share of a month, and prices what clients download', () => {
    // 100 KB each, kept 36 days of a 30-day month: 0.1 GB x 1.2 months per 1,000.
    expect(usdOf({ s3BytesStored: 1_000_000, s3StoredDays: 36 }, 'S3 storage')).toBeCloseTo(0.1 * 1.2 * 0.02, 10);
    expect(usdOf({ s3BytesOut: 1_000_000 }, 'S3 data out')).toBeCloseTo(0.1 * 0.09, 10);
  });

  it('estimates DSQL’s DPUs from the statements, and says which part is an estimate', () => {
    const cost = operationCost({ ...nothing, sqlStatements: 20, sesEmails: 10 }, table);
    // 2 statements x 0.5 DPU each = 1 DPU per operation: 1,000 DPUs per 1,000 at $8 a million.
    expect(cost.estimatedUsdPerThousand).toBeCloseTo(0.008, 10);
    expect(cost.usdPerThousand).toBeCloseTo(0.108, 10);
    expect(cost.items.filter((entry) => entry.estimate).map((entry) => entry.item)).toEqual(['Aurora DSQL DPUs']);
  });

  it('sums every item', () => {
    const cost = operationCost({ ...nothing, apiRequests: 10, lambdaInvocations: 10, sesEmails: 10 }, table);
    // The 10 invocations also log 10 x 1,000 bytes: 1 MB per 1,000 operations.
    expect(cost.usdPerThousand).toBeCloseTo(0.001 + 0.0002 + 0.1 + 0.0005, 10);
  });

  it('refuses a batch of no operations', () => {
    expect(() => operationCost({ ...nothing, operations: 0 }, table)).toThrow(/at least one operation/);
  });

  it('reads every price and assumption it needs from docs/cost.md', () => {
    const cost = operationCost({ ...nothing, sesEmails: 10, sqlStatements: 10 }, readPriceTable());
    expect(cost.items.find((entry) => entry.item === 'SES e-mails')!.usd).toBeCloseTo(0.1, 10);
    expect(cost.estimatedUsdPerThousand).toBeGreaterThan(0);
  });
});

describe('Lambda billing', () => {
  it('bills each invocation’s duration rounded up to the millisecond at its memory', () => {
    expect(billedGbSeconds(99.2, 1024)).toBeCloseTo(0.1, 10);
    expect(billedGbSeconds(100, 512)).toBeCloseTo(0.05, 10);
    expect(billedGbSeconds(0.2, 1024)).toBeCloseTo(0.001, 10);
  });
});

describe('the settings read from a synthesized template', () => {
  const app = new App();
  const stack = new Stack(app, 'OperationCostUnderTest');
  const fn = (id: string, memorySize: number, tracing: Tracing) =>
    new Function(stack, id, {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => {}'),
      memorySize,
      tracing,
    });
  fn('Worker', 2048, Tracing.ACTIVE);
  fn('WorkerSlowLane', 512, Tracing.PASS_THROUGH);
  new Bucket(stack, 'Reports', { lifecycleRules: [{ id: 'expire-reports', expiration: Duration.days(30) }] });
  const template = app.synth().getStackByName(stack.stackName).template as CloudFormationTemplate;

  it('gives each named function its memory and whether it traces, by the construct id its logical id ends in', () => {
    const settings = functionSettingsFrom(template, ['Worker', 'WorkerSlowLane']);
    expect(settings.get('Worker')).toEqual({ memoryMb: 2048, traced: true });
    expect(settings.get('WorkerSlowLane')).toEqual({ memoryMb: 512, traced: false });
    expect(() => functionSettingsFrom(template, ['Sweep'])).toThrow(/0 functions named Sweep/);
  });

  it('reads how long the reports bucket keeps an object', () => {
    expect(expirationDaysFrom(template, 'expire-reports')).toBe(30);
    expect(() => expirationDaysFrom(template, 'expire-logs')).toThrow(/no bucket lifecycle rule expire-logs/);
  });
});
