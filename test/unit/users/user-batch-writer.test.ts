import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  BatchWriteError,
  UserBatchWriter,
  type UserBatchWriterOptions,
} from '../../../shared/adapters/dynamodb/user-batch-writer.ts';

const TABLE = 'Users';
const documentsMock = mockClient(DynamoDBDocumentClient);

const userItem = (id: string, extra: Record<string, unknown> = {}) => ({
  pk: 'ORG#acme',
  sk: `USER#${id}`,
  id,
  ...extra,
});
const put = (item: Record<string, unknown>) => ({ PutRequest: { Item: item } });
const awsError = (name: string, message = name) => Object.assign(new Error(message), { name, $metadata: {} });

/** Ids sent by each BatchWriteItem call, in call order. */
const sentIds = (): string[][] =>
  documentsMock
    .commandCalls(BatchWriteCommand)
    .map((call) =>
      (call.args[0].input.RequestItems![TABLE] ?? []).map((request) => String(request.PutRequest!.Item!.id)),
    );

interface Recorded {
  written: number[];
  refused: Array<[number, string]>;
  superseded: number[];
  delays: number[];
}

function writer(options: Partial<UserBatchWriterOptions<number>> = {}): {
  writer: UserBatchWriter<number>;
  recorded: Recorded;
} {
  const recorded: Recorded = { written: [], refused: [], superseded: [], delays: [] };
  const instance = new UserBatchWriter<number>({
    documents: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
    tableName: TABLE,
    sleep: async (ms) => {
      recorded.delays.push(ms);
    },
    random: () => 1,
    onWritten: (tags) => recorded.written.push(...tags),
    onRefused: (tag, reason) => recorded.refused.push([tag, reason]),
    onSuperseded: (tag) => recorded.superseded.push(tag),
    ...options,
  });
  return { writer: instance, recorded };
}

async function putAll(target: UserBatchWriter<number>, ids: string[]): Promise<void> {
  for (const [index, id] of ids.entries()) await target.put(userItem(id), index + 1);
}

const ids = (count: number, prefix = 'u') => Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);

/** A promise with its resolve function, to hold a call open. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('UserBatchWriter', () => {
  beforeEach(() => documentsMock.reset());

  it('writes in BatchWriteItem calls of at most 25 put requests, the rest on close', async () => {
    documentsMock.on(BatchWriteCommand).resolves({});
    const { writer: target, recorded } = writer();

    await putAll(target, ids(60));
    await target.close();

    expect(sentIds().map((batch) => batch.length)).toEqual([25, 25, 10]);
    expect(sentIds().flat()).toEqual(ids(60));
    expect(documentsMock).toHaveReceivedNthCommandWith(BatchWriteCommand, 1, {
      RequestItems: { [TABLE]: ids(25).map((id) => put(userItem(id))) },
    });
    expect(recorded.written.sort((a, b) => a - b)).toEqual(ids(60).map((_, i) => i + 1));
  });

  it('sends UnprocessedItems again, only those, with exponential backoff, until none are left', async () => {
    documentsMock
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { [TABLE]: [put(userItem('u2')), put(userItem('u3'))] } })
      .resolvesOnce({ UnprocessedItems: { [TABLE]: [put(userItem('u3'))] } })
      .resolvesOnce({});
    const { writer: target, recorded } = writer({ batchSize: 3, baseDelayMs: 50 });

    await putAll(target, ['u1', 'u2', 'u3']);
    await target.close();

    expect(sentIds()).toEqual([['u1', 'u2', 'u3'], ['u2', 'u3'], ['u3']]);
    expect(recorded.delays).toEqual([50, 100]);
    expect(recorded.written).toEqual([1, 2, 3]);
  });

  it('gives up after maxAttempts on items that stay unprocessed, with capped delays, and fails close and later puts', async () => {
    let calls = 0;
    // The first call stores u1; the table then keeps throttling the rest.
    documentsMock.on(BatchWriteCommand).callsFake((input: BatchWriteCommandInput) => {
      const requests = input.RequestItems![TABLE]!;
      return { UnprocessedItems: { [TABLE]: calls++ === 0 ? requests.slice(1) : requests } };
    });
    const { writer: target, recorded } = writer({ batchSize: 5, maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 1_000 });

    await putAll(target, ids(5));
    const closing = target.close();

    await expect(closing).rejects.toBeInstanceOf(BatchWriteError);
    await expect(closing).rejects.toThrow('4 record(s) still unprocessed after 6 attempts');
    expect(documentsMock).toHaveReceivedCommandTimes(BatchWriteCommand, 6);
    expect(recorded.delays).toEqual([100, 200, 400, 800, 1_000]);
    expect(recorded.written).toEqual([1]);
    await expect(target.put(userItem('late'), 99)).rejects.toBeInstanceOf(BatchWriteError);
  });

  it('jitters each delay between half and all of its exponential ceiling', async () => {
    documentsMock
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { [TABLE]: [put(userItem('u1'))] } })
      .resolvesOnce({ UnprocessedItems: { [TABLE]: [put(userItem('u1'))] } })
      .resolvesOnce({});
    const { writer: target, recorded } = writer({ batchSize: 1, baseDelayMs: 100, random: () => 0 });

    await putAll(target, ['u1']);
    await target.close();

    expect(recorded.delays).toEqual([50, 100]);
  });

  it('retries a throttled call (thrown ThrottlingException) like unprocessed items', async () => {
    documentsMock.on(BatchWriteCommand).rejectsOnce(awsError('ProvisionedThroughputExceededException')).resolves({});
    const { writer: target, recorded } = writer({ batchSize: 2 });

    await putAll(target, ['u1', 'u2']);
    await target.close();

    expect(sentIds()).toEqual([
      ['u1', 'u2'],
      ['u1', 'u2'],
    ]);
    expect(recorded.delays).toHaveLength(1);
    expect(recorded.written).toEqual([1, 2]);
  });

  it('stops at once on a failure retrying cannot fix (a missing table), reporting it on close', async () => {
    documentsMock.on(BatchWriteCommand).rejects(awsError('ResourceNotFoundException', 'Requested resource not found'));
    const { writer: target, recorded } = writer({ batchSize: 2 });

    await putAll(target, ['u1', 'u2', 'u3']);

    await expect(target.close()).rejects.toThrow('ResourceNotFoundException: Requested resource not found');
    expect(documentsMock).toHaveReceivedCommandTimes(BatchWriteCommand, 1);
    expect(recorded.delays).toEqual([]);
    expect(recorded.written).toEqual([]);
  });

  it('writes a refused batch (ValidationException) item by item, so only the refused item is lost', async () => {
    documentsMock.on(BatchWriteCommand).callsFake((input: BatchWriteCommandInput) => {
      const requests = input.RequestItems![TABLE]!;
      if (requests.some((request) => request.PutRequest!.Item!.id === 'bad'))
        throw awsError('ValidationException', 'Item size has exceeded the maximum allowed size');
      return {};
    });
    const { writer: target, recorded } = writer({ batchSize: 3 });

    await putAll(target, ['u1', 'bad', 'u3']);
    await target.close();

    expect(sentIds()).toEqual([['u1', 'bad', 'u3'], ['u1'], ['bad'], ['u3']]);
    expect(recorded.written).toEqual([1, 3]);
    expect(recorded.refused).toEqual([[2, 'ValidationException: Item size has exceeded the maximum allowed size']]);
  });

  it('sends one item per key: a later put of a buffered key replaces it (last one wins)', async () => {
    documentsMock.on(BatchWriteCommand).resolves({});
    const { writer: target, recorded } = writer({ batchSize: 3 });

    await target.put(userItem('u1', { name: 'first' }), 1);
    await target.put(userItem('u2'), 2);
    await target.put(userItem('u1', { name: 'second' }), 3);
    await target.put(userItem('u3'), 4);
    await target.close();

    expect(documentsMock).toHaveReceivedCommandWith(BatchWriteCommand, {
      RequestItems: { [TABLE]: [put(userItem('u1', { name: 'second' })), put(userItem('u2')), put(userItem('u3'))] },
    });
    expect(recorded.superseded).toEqual([1]);
    expect(recorded.written.sort()).toEqual([2, 3, 4]);
  });

  it('holds a later write of a key until the earlier write of that key, still in flight, has settled', async () => {
    const firstWrite = gate();
    documentsMock.on(BatchWriteCommand).callsFake(async (input: BatchWriteCommandInput) => {
      const item = input.RequestItems![TABLE]![0]!.PutRequest!.Item!;
      if (item.name === 'old') await firstWrite.opened;
      return {};
    });
    const { writer: target } = writer({ batchSize: 1, concurrency: 4 });

    await target.put(userItem('u1', { name: 'old' }), 1);
    await target.put(userItem('u1', { name: 'new' }), 2);
    await target.put(userItem('u2'), 3);
    await new Promise((resolve) => setTimeout(resolve, 10));

    // u2 is not held up; the second u1 waits for the first.
    expect(sentIds()).toEqual([['u1'], ['u2']]);
    firstWrite.open();
    await target.close();
    const names = documentsMock
      .commandCalls(BatchWriteCommand)
      .map((call) => call.args[0].input.RequestItems![TABLE]![0]!.PutRequest!.Item!.name);
    expect(names).toEqual(['old', undefined, 'new']);
  });

  it('keeps at most `concurrency` batches in flight, and more than one', async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    documentsMock.on(BatchWriteCommand).callsFake(async () => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return {};
    });
    const { writer: target, recorded } = writer({ batchSize: 2, concurrency: 3 });

    await putAll(target, ids(40));
    await target.close();

    expect(mostInFlight).toBe(3);
    expect(recorded.written).toHaveLength(40);
  });

  it('refuses a batch size BatchWriteItem would not take', () => {
    expect(() => writer({ batchSize: 26 })).toThrow(RangeError);
    expect(() => writer({ batchSize: 0 })).toThrow(RangeError);
  });

  it('sends nothing when closed with nothing buffered', async () => {
    const { writer: target } = writer();

    await target.close();

    expect(documentsMock).toHaveReceivedCommandTimes(BatchWriteCommand, 0);
  });
});
