import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoDbReportRateLimiter } from '#shared/adapters/dynamodb/limits/report-rate-limiter.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { REPORT_REQUEST_RATE_LIMIT } from '#shared/domain/limits/report-rate-limit.ts';
import { ORG_ID, T0 } from '#test/support/fixtures/defaults.ts';

const TABLE = 'ReportJobs';
const KEY = { pk: `ORG#${ORG_ID}`, sk: 'RATE_LIMIT#report-create' };
const NOW = T0.getTime();
const documentsMock = mockClient(DynamoDBDocumentClient);

const limiter = () =>
  new DynamoDbReportRateLimiter(
    DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
    TABLE,
    REPORT_REQUEST_RATE_LIMIT,
  );

const conditionFailed = () =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
const spends = (count: number, start = NOW - 60_000) => Array.from({ length: count }, (_, i) => start + i * 1000);
const puts = () => documentsMock.commandCalls(PutCommand).map((call) => call.args[0].input);

beforeEach(() => {
  documentsMock.reset();
  documentsMock.on(PutCommand).resolves({});
  // No waiting between retries.
  vi.spyOn(Math, 'random').mockReturnValue(0);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('DynamoDbReportRateLimiter', () => {
  it("reads the organization's bucket strongly consistently", async () => {
    documentsMock.on(GetCommand).resolves({});

    await limiter().spend(ORG_ID, T0);

    expect(documentsMock).toHaveReceivedCommandWith(GetCommand, { TableName: TABLE, Key: KEY, ConsistentRead: true });
  });

  it('creates the bucket on the first spend with attribute_not_exists, version 1 and a TTL past the window', async () => {
    documentsMock.on(GetCommand).resolves({});

    const decision = await limiter().spend(ORG_ID, T0);

    expect(decision).toMatchObject({ allowed: true, remaining: 9, spentAt: [NOW] });
    expect(puts()).toEqual([
      {
        TableName: TABLE,
        Item: { ...KEY, spentAt: [NOW], version: 1, ttl: NOW / 1000 + 600 + 60, writeId: expect.any(String) },
        ConditionExpression: 'attribute_not_exists(pk)',
        ExpressionAttributeValues: undefined,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    ]);
  });

  it('conditions a later spend on the version it read, and bumps it', async () => {
    documentsMock.on(GetCommand).resolves({ Item: { ...KEY, spentAt: spends(3), version: 7 } });

    const decision = await limiter().spend(ORG_ID, T0);

    expect(decision).toMatchObject({ allowed: true, remaining: 6 });
    expect(puts()).toEqual([
      expect.objectContaining({
        Item: expect.objectContaining({ spentAt: [...spends(3), NOW], version: 8 }),
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': 7 },
      }),
    ]);
  });

  it('re-reads and decides again on fresh state when a concurrent writer got there first', async () => {
    documentsMock
      .on(GetCommand)
      .resolvesOnce({ Item: { ...KEY, spentAt: spends(3), version: 7 } })
      .resolves({ Item: { ...KEY, spentAt: spends(4), version: 8 } });
    documentsMock.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});

    const decision = await limiter().spend(ORG_ID, T0);

    expect(decision).toMatchObject({ allowed: true, remaining: 5 });
    expect(documentsMock).toHaveReceivedCommandTimes(GetCommand, 2);
    expect(puts().map((put) => put.ExpressionAttributeValues)).toEqual([{ ':version': 7 }, { ':version': 8 }]);
    expect(puts()[1]!.Item).toMatchObject({ spentAt: [...spends(4), NOW], version: 9 });
  });

  it('refuses when a retry finds the bucket emptied by concurrent writers, and writes nothing more', async () => {
    documentsMock
      .on(GetCommand)
      .resolvesOnce({ Item: { ...KEY, spentAt: spends(9), version: 9 } })
      .resolves({ Item: { ...KEY, spentAt: spends(10), version: 10 } });
    documentsMock.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});

    const decision = await limiter().spend(ORG_ID, T0);

    expect(decision).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 540 });
    expect(documentsMock).toHaveReceivedCommandTimes(PutCommand, 1);
  });

  it('writes nothing when it refuses the request', async () => {
    documentsMock.on(GetCommand).resolves({ Item: { ...KEY, spentAt: spends(10), version: 10 } });

    const decision = await limiter().spend(ORG_ID, T0);

    expect(decision.allowed).toBe(false);
    expect(documentsMock).not.toHaveReceivedCommand(PutCommand);
  });

  it('gives up with DependencyUnavailableError when the write keeps losing to concurrent writers', async () => {
    documentsMock.on(GetCommand).resolves({ Item: { ...KEY, spentAt: [], version: 1 } });
    documentsMock.on(PutCommand).rejects(conditionFailed());

    await expect(limiter().spend(ORG_ID, T0)).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(documentsMock.commandCalls(PutCommand).length).toBeGreaterThan(1);
  });

  it('passes on an error other than a failed condition without retrying', async () => {
    const throttled = Object.assign(new Error('throughput exceeded'), {
      name: 'ProvisionedThroughputExceededException',
    });
    documentsMock.on(GetCommand).resolves({});
    documentsMock.on(PutCommand).rejects(throttled);

    await expect(limiter().spend(ORG_ID, T0)).rejects.toBe(throttled);
    expect(documentsMock).toHaveReceivedCommandTimes(PutCommand, 1);
  });
});
