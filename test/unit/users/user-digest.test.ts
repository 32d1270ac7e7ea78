import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type BatchGetCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  chunkRows,
  decodeChunk,
  digestRowOf,
  encodeChunk,
  encodeRows,
  findInDigest,
  rowsOf,
  sortRows,
  type DigestRow,
} from '../../../shared/adapters/dynamodb/user-digest.ts';
import { DynamoDbUserStatusReader } from '../../../shared/adapters/dynamodb/user-status-reader.ts';
import { fieldValueMatches } from '../../../shared/domain/users/user-filter-match.ts';
import type { UserRecord } from '../../../shared/domain/users/user-record.ts';
import type { UserFilter } from '../../../shared/domain/users/user-status-query.ts';

const user = (n: number, extra: Partial<UserRecord> = {}): UserRecord =>
  ({
    id: `u-${String(n).padStart(3, '0')}`,
    created_at: `2024-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`,
    registration_status: n % 2 ? 'Complete' : 'For Review',
    country: n % 3 ? 'Germany' : 'Peru',
    age: 15 + (n % 20),
    data_sharing_agreed: n % 4 === 0,
    ...extra,
  }) as UserRecord;
const rows = (count: number) => sortRows(Array.from({ length: count }, (_, n) => digestRowOf(user(n))));
const germany: UserFilter = { kind: 'equals', field: 'country', values: ['Germany'] };

describe('fieldValueMatches', () => {
  it.each<[UserFilter, unknown, boolean]>([
    [germany, 'Germany', true],
    [germany, 'germany', false],
    [germany, undefined, false],
    [{ kind: 'equals', field: 'email', values: [' Jane@Example.COM'] }, 'jane@example.com', true],
    [{ kind: 'boolean', field: 'data_sharing_agreed', value: false }, false, true],
    [{ kind: 'boolean', field: 'data_sharing_agreed', value: false }, undefined, false],
    [{ kind: 'range', field: 'age', valueType: 'number', bounds: { gte: 18, lt: 30 } }, 29.5, true],
    [{ kind: 'range', field: 'age', valueType: 'number', bounds: { gte: 18, lt: 30 } }, 30, false],
    [{ kind: 'range', field: 'age', valueType: 'number', bounds: { eq: 18 } }, '18', false],
    [{ kind: 'range', field: 'dob', valueType: 'date', bounds: { lt: '2000-01-01' } }, '1999-12-31', true],
  ])('%j against %j is %s', (filter, value, expected) => {
    expect(fieldValueMatches(filter, value)).toBe(expected);
  });
});

describe('the user digest', () => {
  it('orders rows by the UTF-8 bytes of their sort keys, as DynamoDB does', () => {
    // U+FFFD sorts before U+1F600 in UTF-8 but after its surrogates in UTF-16.
    const sorted = sortRows([
      digestRowOf(user(1, { id: 'x😀' })),
      digestRowOf(user(1, { id: 'x\uFFFD' })),
      digestRowOf(user(0, { id: 'z' })),
    ]);

    expect(sorted.map((row) => row.sortKey.split('#')[1])).toEqual(['z', 'x\uFFFD', 'x😀']);
  });

  it('survives encoding: every row and value back, missing values missing', () => {
    const original = rows(50);
    const chunks = chunkRows(original, 20).map((chunk) => decodeChunk(encodeChunk(chunk)));

    expect(chunks.map((chunk) => chunk.sortKeys.length)).toEqual([20, 20, 10]);
    const decoded: DigestRow[] = chunks.flatMap((chunk) => [...rowsOf(chunk)]);
    const withoutMissing = original.map((row) => ({
      sortKey: row.sortKey,
      values: Object.fromEntries(Object.entries(row.values).filter(([, value]) => value !== undefined)),
    }));
    expect(decoded).toEqual(withoutMissing);
  });

  it('halves a chunk whose encoding is too large for one item, keeping every row in order', () => {
    const longIds = sortRows(
      Array.from({ length: 40 }, (_, n) => digestRowOf(user(n, { id: `${n}-${randomBytes(150).toString('hex')}` }))),
    );

    const encoded = encodeRows(longIds, 40, 4_000);

    expect(encoded.length).toBeGreaterThan(1);
    expect(encoded.every((chunk) => chunk.data.length <= 4_000)).toBe(true);
    const sortKeys = encoded.flatMap((chunk) => decodeChunk(chunk.data).sortKeys);
    expect(sortKeys).toEqual(longIds.map((row) => row.sortKey));
    expect(encoded.map((chunk) => chunk.rows).reduce((a, b) => a + b)).toBe(40);
  });

  it('counts every match across chunks and returns the ids of the window, in order', () => {
    const all = rows(100);
    const chunks = chunkRows(all, 7);
    const expected = all
      .filter((row) => row.values.country === 'Germany' && row.values.data_sharing_agreed === true)
      .map((row) => row.sortKey.split('#')[1]);

    const found = findInDigest(
      chunks,
      [germany, { kind: 'boolean', field: 'data_sharing_agreed', value: true }],
      {},
      { offset: 3, limit: 5 },
    );

    expect(found.total).toBe(expected.length);
    expect(found.ids).toEqual(expected.slice(3, 8));
  });

  it('applies a created_at range as sort-key bounds, both ends inclusive of the instant as the key condition is', () => {
    const chunks = chunkRows(rows(60), 8);

    const found = findInDigest(
      chunks,
      [],
      { lower: '2024-01-01T00:00:10.000Z', upper: '2024-01-01T00:00:12.000Z$' },
      { offset: 0, limit: 10 },
    );

    expect(found).toEqual({ ids: ['u-010', 'u-011', 'u-012'], total: 3 });
  });
});

describe('DynamoDbUserStatusReader on the digest', () => {
  const documentsMock = mockClient(DynamoDBDocumentClient);
  const reader = () =>
    new DynamoDbUserStatusReader(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })), 'Users');
  const users = Array.from({ length: 30 }, (_, n) => user(n));
  const chunks = chunkRows(sortRows(users.map(digestRowOf)), 12);
  const digestState = (orgId: string, version: number, digestVersion: number) => ({
    Item: {
      pk: `ORG#${orgId}`,
      sk: 'USERDIGEST',
      version,
      writers: {},
      digest: { version: digestVersion, generation: 'g1', chunks: chunks.length, rows: users.length },
    },
  });

  beforeEach(() => {
    documentsMock.reset();
    documentsMock.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => {
      const keys = input.RequestItems!.Users!.Keys! as Array<{ pk: string; sk: string }>;
      return {
        Responses: {
          Users: keys.map((key) =>
            key.sk.startsWith('CHUNK#')
              ? { ...key, data: encodeChunk(chunks[Number(key.sk.slice(6))]!) }
              : { ...key, ...users.find((u) => `USER#${u.id}` === key.sk) },
          ),
        },
        ConsumedCapacity: [{ CapacityUnits: keys.length }],
      };
    });
    documentsMock.on(QueryCommand).resolves({ Items: [], Count: 0 });
  });

  it('answers from the chunks and fetches only the page, without querying an index', async () => {
    documentsMock.on(GetCommand).resolves(digestState('digest-a', 4, 4));

    const page = await reader().findPage('digest-a', [germany], { offset: 2, limit: 3, fields: ['id', 'country'] });

    const expected = users
      .filter((u) => u.country === 'Germany')
      .sort((a, b) => (`${a.created_at}#${a.id}` < `${b.created_at}#${b.id}` ? -1 : 1));
    expect(page.accessPath).toBe('digest');
    expect(page.total).toBe(expected.length);
    expect(page.records.map((record) => record.id)).toEqual(expected.slice(2, 5).map((u) => u.id));
    expect(documentsMock).not.toHaveReceivedCommand(QueryCommand);
    expect(documentsMock).toHaveReceivedCommandWith(GetCommand, {
      Key: { pk: 'ORG#digest-a', sk: 'USERDIGEST' },
      ConsistentRead: true,
    });
  });

  it('keeps a warm function from reading the chunks of the same digest again', async () => {
    documentsMock.on(GetCommand).resolves(digestState('digest-b', 2, 2));
    const chunkReads = () =>
      documentsMock
        .commandCalls(BatchGetCommand)
        .filter((call) => String(call.args[0].input.RequestItems!.Users!.Keys![0]!.sk).startsWith('CHUNK#')).length;

    await reader().findPage('digest-b', [], { offset: 0, limit: 1, fields: ['id'] });
    await reader().findPage('digest-b', [germany], { offset: 0, limit: 1, fields: ['id'] });

    expect(chunkReads()).toBe(1);
  });

  it('falls back to byStatus while the digest is stale (a writer started after it)', async () => {
    documentsMock.on(GetCommand).resolves(digestState('digest-c', 5, 4));

    const page = await reader().findPage('digest-c', [germany], { offset: 0, limit: 3, fields: ['id'] });

    expect(page.accessPath).toBe('byStatus');
    expect(documentsMock).toHaveReceivedCommandWith(QueryCommand, { IndexName: 'byStatus' });
  });

  it('reads byCreatedAt for an organization no writer of this release has touched (records may lack statusPk)', async () => {
    documentsMock.on(GetCommand).resolves({});

    const page = await reader().findPage('digest-e', [germany], { offset: 0, limit: 3, fields: ['id'] });

    expect(page.accessPath).toBe('byCreatedAt');
    expect(documentsMock).toHaveReceivedCommandWith(QueryCommand, { IndexName: 'byCreatedAt' });
  });

  it('never reads the digest for a filter it does not carry', async () => {
    documentsMock.on(GetCommand).resolves(digestState('digest-d', 1, 1));

    const page = await reader().findPage('digest-d', [{ kind: 'equals', field: 'city', values: ['Oslo'] }], {
      offset: 0,
      limit: 3,
      fields: ['id'],
    });

    expect(page.accessPath).toBe('byCreatedAt');
    expect(documentsMock).not.toHaveReceivedCommand(GetCommand);
  });
});
