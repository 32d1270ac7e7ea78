import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbUserStatusReader } from '../../../shared/adapters/dynamodb/user-status-reader.ts';
import type { UserField, UserFilter } from '../../../shared/domain/users/user-status-query.ts';

const documentsMock = mockClient(DynamoDBDocumentClient);
const reader = () =>
  new DynamoDbUserStatusReader(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })), 'Users');

/** A stored user item: the record's fields plus the table's key attributes. */
const item = (n: number) => ({
  pk: 'ORG#acme',
  sk: `USER#u-${n}`,
  createdAtSk: `2024-01-01T00:00:0${n % 10}.000Z#u-${n}`,
  emailPk: `ORG#acme#EMAIL#u${n}@example.com`,
  id: `u-${n}`,
  name: `User ${n}`,
});
const items = (...numbers: number[]) => numbers.map(item);
const lastKey = (n: number) => ({ pk: 'ORG#acme', sk: `USER#u-${n}`, createdAtSk: item(n).createdAtSk });

const queries = (): QueryCommandInput[] => documentsMock.commandCalls(QueryCommand).map((call) => call.args[0].input);

/** A filter on a field `byStatus` does not carry: the query reads the byCreatedAt partition in order. */
const inOslo: UserFilter = { kind: 'equals', field: 'city', values: ['Oslo'] };
const window = (offset: number, limit: number, fields: readonly UserField[] = ['id', 'name']) => ({
  offset,
  limit,
  fields,
});

describe('DynamoDbUserStatusReader.findPage', () => {
  beforeEach(() => documentsMock.reset());

  it('follows LastEvaluatedKey from page to page until there is none', async () => {
    documentsMock
      .on(QueryCommand)
      .resolvesOnce({ Items: items(1, 2), LastEvaluatedKey: lastKey(2) })
      .resolvesOnce({ Items: items(3), LastEvaluatedKey: lastKey(3) })
      .resolvesOnce({ Items: [] });

    const page = await reader().findPage('acme', [inOslo], window(0, 50));

    expect(queries().map((input) => input.ExclusiveStartKey)).toEqual([undefined, lastKey(2), lastKey(3)]);
    expect(page.records.map((record) => record.id)).toEqual(['u-1', 'u-2', 'u-3']);
    expect(page.total).toBe(3);
  });

  it('returns records without the key attributes', async () => {
    documentsMock.on(QueryCommand).resolves({ Items: items(1) });

    const page = await reader().findPage('acme', [inOslo], window(0, 10));

    expect(page.records).toEqual([{ id: 'u-1', name: 'User 1' }]);
  });

  it('cuts the [offset, offset + limit) window across page boundaries and counts every match', async () => {
    documentsMock
      .on(QueryCommand)
      .resolvesOnce({ Items: items(1, 2, 3), LastEvaluatedKey: lastKey(3) })
      .resolvesOnce({ Items: items(4, 5, 6), LastEvaluatedKey: lastKey(6) })
      .resolvesOnce({ Count: 2 });

    const page = await reader().findPage('acme', [inOslo], window(2, 3));

    expect(page.records.map((record) => record.id)).toEqual(['u-3', 'u-4', 'u-5']);
    // u-6 arrived with the page that filled the window; the last page is only counted.
    expect(queries().map((input) => input.Select)).toEqual([undefined, undefined, 'COUNT']);
    expect(page.total).toBe(8);
  });

  it('returns no records but the full total for an offset past the last match', async () => {
    documentsMock
      .on(QueryCommand)
      .resolvesOnce({ Items: items(1, 2), LastEvaluatedKey: lastKey(2) })
      .resolvesOnce({ Items: items(3) });

    const page = await reader().findPage('acme', [inOslo], window(10, 5));

    expect(page).toEqual({ records: [], total: 3, consumedReadUnits: 0, accessPath: 'byCreatedAt' });
  });

  it('once the window is full, only counts the remaining pages: Select COUNT, no projection, no unused names', async () => {
    documentsMock
      .on(QueryCommand)
      .resolvesOnce({ Items: items(1, 2), LastEvaluatedKey: lastKey(2) })
      .resolvesOnce({ Count: 40, LastEvaluatedKey: lastKey(42) })
      .resolvesOnce({ Count: 7 });

    const page = await reader().findPage('acme', [inOslo], window(0, 2, ['id', 'idcheck_match_status', 'name']));

    const [first, second, third] = queries();
    expect(first).toMatchObject({
      ProjectionExpression: '#id, #idcheck_match_status, #name',
      FilterExpression: '#city = :v1',
    });
    expect(first!.Select).toBeUndefined();
    for (const counting of [second!, third!]) {
      expect(counting.Select).toBe('COUNT');
      expect(counting.ProjectionExpression).toBeUndefined();
      // DynamoDB refuses a request with ExpressionAttributeNames the expressions do not use.
      expect(counting.ExpressionAttributeNames).toEqual({ '#city': 'city' });
      expect(counting).toMatchObject({
        KeyConditionExpression: first!.KeyConditionExpression,
        FilterExpression: first!.FilterExpression,
      });
      expect(counting.ExpressionAttributeValues).toEqual(first!.ExpressionAttributeValues);
    }
    expect(third!.ExclusiveStartKey).toEqual(lastKey(42));
    expect(page.records.map((record) => record.id)).toEqual(['u-1', 'u-2']);
    expect(page.total).toBe(2 + 40 + 7);
  });

  it('sends no ExpressionAttributeNames at all when counting a query whose expressions use none', async () => {
    documentsMock
      .on(QueryCommand)
      .resolvesOnce({ Items: items(1), LastEvaluatedKey: lastKey(1) })
      .resolvesOnce({ Count: 5 });

    await reader().findPage('acme', [{ kind: 'equals', field: 'email', values: ['u1@example.com'] }], window(0, 1));

    expect(queries()[1]!.ExpressionAttributeNames).toBeUndefined();
    expect(queries()[1]!.Select).toBe('COUNT');
  });

  it('keeps fetching records, not counts, while the window is still filling', async () => {
    documentsMock
      .on(QueryCommand)
      .resolvesOnce({ Items: [], LastEvaluatedKey: lastKey(0) })
      .resolvesOnce({ Items: items(1), LastEvaluatedKey: lastKey(1) })
      .resolvesOnce({ Items: items(2, 3) });

    const page = await reader().findPage('acme', [inOslo], window(0, 2));

    expect(queries().map((input) => input.Select)).toEqual([undefined, undefined, undefined]);
    expect(page.records.map((record) => record.id)).toEqual(['u-1', 'u-2']);
    expect(page.total).toBe(3);
  });

  it('answers an empty plan (a contradictory created_at range) without calling DynamoDB', async () => {
    const range: UserFilter = {
      kind: 'range',
      field: 'created_at',
      valueType: 'instant',
      bounds: { gt: '2025-01-01T00:00:00.000Z', lt: '2024-01-01T00:00:00.000Z' },
    };

    const page = await reader().findPage('acme', [range], window(0, 10));

    expect(page).toEqual({ records: [], total: 0, consumedReadUnits: 0, accessPath: 'none' });
    expect(documentsMock).toHaveReceivedCommandTimes(QueryCommand, 0);
  });

  it('lets a DynamoDB failure through for the error mapper', async () => {
    documentsMock.on(QueryCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    await expect(reader().findPage('acme', [inOslo], window(0, 10))).rejects.toThrow('Rate exceeded');
  });
});

describe('DynamoDbUserStatusReader.findPage on byStatus', () => {
  beforeEach(() => {
    documentsMock.reset();
    // The organization's user digest is stale (an import at work): byStatus answers.
    documentsMock.on(GetCommand).resolves({ Item: { version: 2, writers: { 'import-1': Date.now() + 60_000 } } });
  });

  const pending: UserFilter = { kind: 'equals', field: 'registration_status', values: ['For Review', 'Referred'] };
  const sortKey = (second: number, id: string) => `2024-01-01T00:00:${String(second).padStart(2, '0')}.000Z#${id}`;
  const partitionOf = (input: QueryCommandInput) => input.ExpressionAttributeValues![':pk'] as string;

  it('merges the partitions in created_at, id order, fetches only the page from the table and counts every match', async () => {
    // Partition k (of 2 statuses x 12 age bands) holds users at seconds k, k + 24, k + 48, so the merged order interleaves them.
    documentsMock.on(QueryCommand).callsFake((input: QueryCommandInput) => {
      const partition = partitionOf(input);
      const band = partition.split('#').at(-1)!;
      const shard = (band === '-' ? 11 : Number(band)) + (partition.includes('Referred') ? 0 : 12);
      const all = [shard, shard + 24, shard + 48].map((second) => ({ createdAtSk: sortKey(second, `u-${second}`) }));
      if (input.Select === 'COUNT') return { Count: 0 };
      return { Items: all, Count: all.length, ConsumedCapacity: { CapacityUnits: 0.5 } };
    });
    documentsMock.on(BatchGetCommand).callsFake((input) => ({
      Responses: {
        Users: [...(input.RequestItems.Users.Keys as Array<{ sk: string }>)]
          .reverse()
          .map((key) => ({ pk: 'ORG#acme', sk: key.sk, id: key.sk.slice(5), name: `Name ${key.sk}` })),
      },
      ConsumedCapacity: [{ CapacityUnits: 1 }],
    }));

    const page = await reader().findPage('acme', [pending], window(14, 4));

    expect(queries()).toHaveLength(24);
    expect(
      queries().every((input) => input.IndexName === 'byStatus' && input.ProjectionExpression === 'createdAtSk'),
    ).toBe(true);
    expect(page.records.map((record) => record.id)).toEqual(['u-14', 'u-15', 'u-16', 'u-17']);
    expect(page.records[0]).toEqual({ id: 'u-14', name: 'Name USER#u-14' });
    expect(page.total).toBe(72);
    expect(page.consumedReadUnits).toBe(24 * 0.5 + 1);
    const batchGet = documentsMock.commandCalls(BatchGetCommand)[0]!.args[0].input;
    expect(batchGet.RequestItems!.Users!.Keys).toEqual(
      ['u-14', 'u-15', 'u-16', 'u-17'].map((id) => ({ pk: 'ORG#acme', sk: `USER#${id}` })),
    );
    expect(batchGet.RequestItems!.Users!.ExpressionAttributeNames).toEqual({ '#f0': 'id', '#f1': 'name' });
  });

  it('only counts a partition once it has offset + limit matches', async () => {
    documentsMock.on(QueryCommand).callsFake((input: QueryCommandInput) => {
      if (input.Select === 'COUNT') return { Count: 10 };
      if (partitionOf(input).endsWith('Referred#AGE#0') && !input.ExclusiveStartKey)
        return {
          Items: [{ createdAtSk: sortKey(1, 'a') }, { createdAtSk: sortKey(2, 'b') }],
          Count: 2,
          LastEvaluatedKey: { x: 1 },
        };
      return { Items: [], Count: 0 };
    });
    documentsMock.on(BatchGetCommand).resolves({ Responses: { Users: [{ id: 'a' }, { id: 'b' }] } });

    const page = await reader().findPage('acme', [pending], window(0, 2));

    const referred0 = queries().filter((input) => partitionOf(input).endsWith('Referred#AGE#0'));
    expect(referred0.map((input) => input.Select)).toEqual([undefined, 'COUNT']);
    expect(page.total).toBe(12);
    expect(page.records.map((record) => record.id)).toEqual(['a', 'b']);
  });

  it('retries the keys BatchGetItem leaves unprocessed', async () => {
    documentsMock
      .on(QueryCommand)
      .callsFake((input: QueryCommandInput) =>
        partitionOf(input).endsWith('Referred#AGE#0')
          ? { Items: [{ createdAtSk: sortKey(1, 'a') }, { createdAtSk: sortKey(2, 'b') }], Count: 2 }
          : { Items: [], Count: 0 },
      );
    documentsMock
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { Users: [{ id: 'b' }] },
        UnprocessedKeys: { Users: { Keys: [{ pk: 'ORG#acme', sk: 'USER#a' }] } },
      })
      .resolvesOnce({ Responses: { Users: [{ id: 'a' }] } });

    const page = await reader().findPage('acme', [pending], window(0, 5));

    expect(page.records.map((record) => record.id)).toEqual(['a', 'b']);
    expect(documentsMock.commandCalls(BatchGetCommand)[1]!.args[0].input.RequestItems!.Users!.Keys).toEqual([
      { pk: 'ORG#acme', sk: 'USER#a' },
    ]);
  });
});
