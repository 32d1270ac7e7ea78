import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
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

const notDeleted: UserFilter = { kind: 'boolean', field: 'is_deleted', value: false };
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

    const page = await reader().findPage('acme', [], window(0, 50));

    expect(queries().map((input) => input.ExclusiveStartKey)).toEqual([undefined, lastKey(2), lastKey(3)]);
    expect(page.records.map((record) => record.id)).toEqual(['u-1', 'u-2', 'u-3']);
    expect(page.total).toBe(3);
  });

  it('returns records without the key attributes', async () => {
    documentsMock.on(QueryCommand).resolves({ Items: items(1) });

    const page = await reader().findPage('acme', [], window(0, 10));

    expect(page.records).toEqual([{ id: 'u-1', name: 'User 1' }]);
  });

  it('cuts the [offset, offset + limit) window across page boundaries and counts every match', async () => {
    documentsMock
      .on(QueryCommand)
      .resolvesOnce({ Items: items(1, 2, 3), LastEvaluatedKey: lastKey(3) })
      .resolvesOnce({ Items: items(4, 5, 6), LastEvaluatedKey: lastKey(6) })
      .resolvesOnce({ Count: 2 });

    const page = await reader().findPage('acme', [], window(2, 3));

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

    const page = await reader().findPage('acme', [], window(10, 5));

    expect(page).toEqual({ records: [], total: 3 });
  });

  it('once the window is full, only counts the remaining pages: Select COUNT, no projection, no unused names', async () => {
    documentsMock
      .on(QueryCommand)
      .resolvesOnce({ Items: items(1, 2), LastEvaluatedKey: lastKey(2) })
      .resolvesOnce({ Count: 40, LastEvaluatedKey: lastKey(42) })
      .resolvesOnce({ Count: 7 });

    const page = await reader().findPage('acme', [notDeleted], window(0, 2, ['id', 'idcheck_match_status', 'name']));

    const [first, second, third] = queries();
    expect(first).toMatchObject({
      ProjectionExpression: '#id, #idcheck_match_status, #name',
      FilterExpression: '#is_deleted = :v1',
    });
    expect(first!.Select).toBeUndefined();
    for (const counting of [second!, third!]) {
      expect(counting.Select).toBe('COUNT');
      expect(counting.ProjectionExpression).toBeUndefined();
      // DynamoDB refuses a request with ExpressionAttributeNames the expressions do not use.
      expect(counting.ExpressionAttributeNames).toEqual({ '#is_deleted': 'is_deleted' });
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

    await reader().findPage('acme', [], window(0, 1));

    expect(queries()[1]!.ExpressionAttributeNames).toBeUndefined();
    expect(queries()[1]!.Select).toBe('COUNT');
  });

  it('keeps fetching records, not counts, while the window is still filling', async () => {
    documentsMock
      .on(QueryCommand)
      .resolvesOnce({ Items: [], LastEvaluatedKey: lastKey(0) })
      .resolvesOnce({ Items: items(1), LastEvaluatedKey: lastKey(1) })
      .resolvesOnce({ Items: items(2, 3) });

    const page = await reader().findPage('acme', [notDeleted], window(0, 2));

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

    expect(page).toEqual({ records: [], total: 0 });
    expect(documentsMock).toHaveReceivedCommandTimes(QueryCommand, 0);
  });

  it('lets a DynamoDB failure through for the error mapper', async () => {
    documentsMock.on(QueryCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    await expect(reader().findPage('acme', [], window(0, 10))).rejects.toThrow('Rate exceeded');
  });
});
