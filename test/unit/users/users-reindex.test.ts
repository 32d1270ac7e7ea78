import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { reindexUsers, type ReindexState } from '../../../scripts/users-reindex/reindex-users.ts';

const documentsMock = mockClient(DynamoDBDocumentClient);
const documents = () => DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));

const stored = (id: string, extra: Record<string, unknown> = {}) => ({
  pk: 'ORG#acme',
  sk: `USER#${id}`,
  id,
  created_at: '2024-01-01T00:00:00.000Z',
  registration_status: 'Complete',
  createdAtSk: `2024-01-01T00:00:00.000Z#${id}`,
  ...extra,
});
const statusPkOf = (_id: string) => 'ORG#acme#STATUS#Complete#AGE#-';
/** Updates of user items (the digest's state item is updated too, at the end). */
const updates = () =>
  documentsMock
    .commandCalls(UpdateCommand)
    .map((call) => call.args[0].input)
    .filter((input) => String(input.Key!.sk).startsWith('USER#'));
const digestCounts = { digestsRebuilt: 1, digestsLeftToWriters: 0 };

describe('reindexUsers', () => {
  beforeEach(() => {
    documentsMock.reset();
    mockDigestState();
  });

  /** The digest rebuild at the end finds no writer at work and, in these tests, reads no users. */
  function mockDigestState() {
    documentsMock.on(GetCommand).resolves({});
    documentsMock.on(QueryCommand).resolves({ Items: [] });
  }

  it('writes statusPk to the items that lack it, leaves correct ones alone, and conditions on the source fields', async () => {
    documentsMock.on(ScanCommand).resolves({ Items: [stored('a'), stored('b', { statusPk: statusPkOf('b') })] });
    documentsMock.on(UpdateCommand).resolves({});

    const counts = await reindexUsers({ documents: documents(), tableName: 'Users', segments: 1 });

    expect(counts).toEqual({ scanned: 2, updated: 1, unchanged: 1, skipped: 0, ...digestCounts });
    expect(updates()).toHaveLength(1);
    expect(updates()[0]).toMatchObject({
      Key: { pk: 'ORG#acme', sk: 'USER#a' },
      UpdateExpression: 'SET #statusPk = :new0',
      ExpressionAttributeValues: { ':new0': statusPkOf('a'), ':was_registration_status': 'Complete' },
    });
    expect(updates()[0]!.ConditionExpression).toBe(
      'attribute_exists(#pk) AND #created_at = :was_created_at AND attribute_not_exists(#email) AND #registration_status = :was_registration_status AND attribute_not_exists(#age)',
    );
  });

  it('reads the age and puts the user in its decade’s partition', async () => {
    documentsMock.on(ScanCommand).resolves({ Items: [stored('a', { age: 34 })] });
    documentsMock.on(UpdateCommand).resolves({});

    await reindexUsers({ documents: documents(), tableName: 'Users', segments: 1 });

    const scan = documentsMock.commandCalls(ScanCommand)[0]!.args[0].input;
    expect(Object.values(scan.ExpressionAttributeNames!)).toContain('age');
    expect(updates()[0]).toMatchObject({
      ExpressionAttributeValues: { ':new0': 'ORG#acme#STATUS#Complete#AGE#3', ':was_age': 34 },
    });
  });

  it('counts an item rewritten meanwhile (condition failed) as skipped, not as an error', async () => {
    documentsMock.on(ScanCommand).resolves({ Items: [stored('a')] });
    documentsMock.on(UpdateCommand).resolves({});
    documentsMock
      .on(UpdateCommand, { Key: { pk: 'ORG#acme', sk: 'USER#a' } })
      .rejects(Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' }));

    const counts = await reindexUsers({ documents: documents(), tableName: 'Users', segments: 1 });

    expect(counts).toEqual({ scanned: 1, updated: 0, unchanged: 0, skipped: 1, ...digestCounts });
  });

  it('scans in parallel segments, saves each segment’s position after every page, and resumes from a saved state', async () => {
    documentsMock
      .on(ScanCommand, { Segment: 0 })
      .resolvesOnce({ Items: [stored('a')], LastEvaluatedKey: { pk: 'ORG#acme', sk: 'USER#a' } })
      .rejectsOnce(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    documentsMock.on(ScanCommand, { Segment: 1 }).resolves({ Items: [stored('b')] });
    documentsMock.on(UpdateCommand).resolves({});
    const checkpoints: ReindexState[] = [];

    await expect(
      reindexUsers({
        documents: documents(),
        tableName: 'Users',
        segments: 2,
        onCheckpoint: (state) => void checkpoints.push(structuredClone(state)),
      }),
    ).rejects.toThrow('Rate exceeded');
    const saved = checkpoints.at(-1)!;
    expect(saved.segments).toEqual([
      { done: false, startKey: { pk: 'ORG#acme', sk: 'USER#a' } },
      { done: true, startKey: undefined },
    ]);

    documentsMock.reset();
    mockDigestState();
    documentsMock.on(ScanCommand).resolves({ Items: [stored('c')] });
    documentsMock.on(UpdateCommand).resolves({});
    const counts = await reindexUsers({ documents: documents(), tableName: 'Users', resumeFrom: saved });

    const scans = documentsMock.commandCalls(ScanCommand).map((call) => call.args[0].input);
    expect(scans).toEqual([
      expect.objectContaining({ Segment: 0, TotalSegments: 2, ExclusiveStartKey: { pk: 'ORG#acme', sk: 'USER#a' } }),
    ]);
    expect(counts).toEqual({ scanned: 3, updated: 3, unchanged: 0, skipped: 0, ...digestCounts });
  });

  it('then rebuilds the digest of every organization it saw, from its users read consistently', async () => {
    documentsMock.on(ScanCommand).resolves({ Items: [stored('a'), { ...stored('b'), pk: 'ORG#zeta' }] });
    documentsMock.on(UpdateCommand).resolves({});

    const outcomes: Array<[string, string]> = [];

    const counts = await reindexUsers({
      documents: documents(),
      tableName: 'Users',
      segments: 1,
      onDigest: (orgId, outcome) => outcomes.push([orgId, outcome]),
    });

    expect(counts).toMatchObject({ digestsRebuilt: 2, digestsLeftToWriters: 0 });
    expect(outcomes).toEqual([
      ['acme', 'rebuilt'],
      ['zeta', 'rebuilt'],
    ]);
    expect(documentsMock).toHaveReceivedCommandWith(QueryCommand, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :user)',
      ExpressionAttributeValues: { ':pk': 'ORG#zeta', ':user': 'USER#' },
      ConsistentRead: true,
    });
    expect(documentsMock).toHaveReceivedCommandWith(UpdateCommand, {
      Key: { pk: 'ORG#acme', sk: 'USERDIGEST' },
      UpdateExpression: 'SET digest = :digest, version = if_not_exists(version, :zero)',
    });
  });

  it('leaves the digest of an organization with an import at work to that import', async () => {
    documentsMock.on(ScanCommand).resolves({ Items: [stored('a')] });
    documentsMock.on(UpdateCommand).resolves({});
    documentsMock.on(GetCommand).resolves({ Item: { version: 3, writers: { 'import-1': Date.now() + 60_000 } } });

    const counts = await reindexUsers({ documents: documents(), tableName: 'Users', segments: 1 });

    expect(counts).toMatchObject({ digestsRebuilt: 0, digestsLeftToWriters: 1 });
    expect(documentsMock).not.toHaveReceivedCommand(QueryCommand);
  });

  it('refuses a state saved for another table', async () => {
    const state: ReindexState = {
      tableName: 'Other',
      segments: [{ done: false }],
      organizations: [],
      counts: { scanned: 0, updated: 0, unchanged: 0, skipped: 0, digestsRebuilt: 0, digestsLeftToWriters: 0 },
    };

    await expect(reindexUsers({ documents: documents(), tableName: 'Users', resumeFrom: state })).rejects.toThrow(
      'the saved state is for table Other',
    );
  });
});
