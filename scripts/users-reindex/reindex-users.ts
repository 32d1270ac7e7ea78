import { ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbUserDigestStore } from '../../shared/adapters/dynamodb/user-digest-store.ts';
import { userIndexAttributes } from '../../shared/adapters/dynamodb/user-items.ts';
import type { UserRecord } from '../../shared/domain/users/user-record.ts';

export interface ReindexCounts {
  /** User items read. */
  scanned: number;
  /** Items whose index attributes were written. */
  updated: number;
  /** Items that already carried the right index attributes. */
  unchanged: number;
  /** Items rewritten by someone else between the read and the update (that writer set the attributes). */
  skipped: number;
  /** Organizations whose user digest was rebuilt once every segment was done. */
  digestsRebuilt: number;
  /** Organizations with an import at work (its end brings the digest up to date). */
  digestsLeftToWriters: number;
}

/** Where each Scan segment stands: what a later run resumes from. */
export interface ReindexState {
  tableName: string;
  segments: Array<{ done: boolean; startKey?: Record<string, unknown> }>;
  /** Organizations seen so far: their digests are rebuilt at the end. */
  organizations: string[];
  counts: ReindexCounts;
}

export interface ReindexUsersInput {
  documents: DynamoDBDocumentClient;
  tableName: string;
  /** Parallel Scan segments; ignored when resuming (the state fixes them). Default 4. */
  segments?: number;
  /** A state saved by an earlier, interrupted run of the same table. */
  resumeFrom?: ReindexState;
  /** Updates in flight per segment; default 8. */
  concurrency?: number;
  /** After each organization's digest: its outcome (progress for the operator). */
  onDigest?: (orgId: string, outcome: string) => void;
  /** After every page: the state to save (so an interrupted run can resume) and the counts so far. */
  onCheckpoint?: (state: Readonly<ReindexState>) => void | Promise<void>;
}

/** What an item's index attributes are computed from, and the attributes themselves. */
const READ_ATTRIBUTES = [
  'pk',
  'sk',
  'id',
  'created_at',
  'email',
  'registration_status',
  'age',
  'createdAtSk',
  'emailPk',
  'statusPk',
];

export const newReindexState = (tableName: string, segments: number): ReindexState => ({
  tableName,
  segments: Array.from({ length: segments }, () => ({ done: false })),
  organizations: [],
  counts: { scanned: 0, updated: 0, unchanged: 0, skipped: 0, digestsRebuilt: 0, digestsLeftToWriters: 0 },
});

/**
 * Primary course: scan the table's user items in parallel segments, compute each item's index
 * attributes (`userIndexAttributes`, what import and seed write) and update the items where
 * they are missing or stale. Idempotent: a second run finds every item unchanged. Resumable:
 * after every page the state names each segment's next start key. An update is conditioned on
 * the fields the attributes come from, so an item rewritten meanwhile (by an import, which
 * writes the attributes itself) is left alone. Then every organization's user digest is rebuilt
 * from its users (the repair after an import that stopped).
 */
export async function reindexUsers(input: ReindexUsersInput): Promise<ReindexCounts> {
  const state: ReindexState =
    structuredClone(input.resumeFrom) ?? newReindexState(input.tableName, input.segments ?? 4);
  if (state.tableName !== input.tableName)
    throw new Error(`the saved state is for table ${state.tableName}, not ${input.tableName}`);
  const concurrency = input.concurrency ?? 8;
  const organizations = new Set(state.organizations);
  const names = Object.fromEntries(READ_ATTRIBUTES.map((attribute, i) => [`#a${i}`, attribute]));

  const runSegment = async (segment: number): Promise<void> => {
    const cursor = state.segments[segment]!;
    while (!cursor.done) {
      const page = await input.documents.send(
        new ScanCommand({
          TableName: input.tableName,
          Segment: segment,
          TotalSegments: state.segments.length,
          FilterExpression: 'begins_with(#a1, :user)',
          ProjectionExpression: Object.keys(names).join(', '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':user': 'USER#' },
          ExclusiveStartKey: cursor.startKey,
        }),
      );
      const items = page.Items ?? [];
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(concurrency, items.length) }, async () => {
          while (next < items.length) await reindexItem(items[next++]!);
        }),
      );
      state.counts.scanned += items.length;
      for (const item of items) organizations.add(String(item.pk).replace(/^ORG#/, ''));
      state.organizations = [...organizations];
      cursor.startKey = page.LastEvaluatedKey;
      cursor.done = page.LastEvaluatedKey === undefined;
      await input.onCheckpoint?.(state);
    }
  };

  const reindexItem = async (item: Record<string, unknown>): Promise<void> => {
    const orgId = String(item.pk).replace(/^ORG#/, '');
    const wanted = userIndexAttributes(orgId, item as unknown as UserRecord);
    const stale = Object.entries(wanted).filter(([attribute, value]) => item[attribute] !== value);
    if (stale.length === 0) {
      state.counts.unchanged++;
      return;
    }
    const values: Record<string, unknown> = {};
    const sourceCondition = (['created_at', 'email', 'registration_status', 'age'] as const).map((field) => {
      if (item[field] === undefined) return `attribute_not_exists(#${field})`;
      values[`:was_${field}`] = item[field];
      return `#${field} = :was_${field}`;
    });
    stale.forEach(([, value], i) => (values[`:new${i}`] = value));
    try {
      await input.documents.send(
        new UpdateCommand({
          TableName: input.tableName,
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: `SET ${stale.map(([attribute], i) => `#${attribute} = :new${i}`).join(', ')}`,
          ConditionExpression: ['attribute_exists(#pk)', ...sourceCondition].join(' AND '),
          ExpressionAttributeNames: Object.fromEntries(
            ['pk', 'created_at', 'email', 'registration_status', 'age', ...stale.map(([attribute]) => attribute)].map(
              (attribute) => [`#${attribute}`, attribute],
            ),
          ),
          ExpressionAttributeValues: values,
        }),
      );
      state.counts.updated++;
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      state.counts.skipped++;
    }
  };

  await Promise.all(state.segments.map((_, segment) => runSegment(segment)));

  // The digests last, from the users as they now stand; one changed meanwhile is tried again.
  const digests = new DynamoDbUserDigestStore(input.documents, input.tableName);
  for (const orgId of state.organizations) {
    let outcome = await digests.rebuild(orgId);
    for (let attempt = 1; outcome === 'changed meanwhile' && attempt < 3; attempt++)
      outcome = await digests.rebuild(orgId);
    if (outcome === 'rebuilt') state.counts.digestsRebuilt++;
    else state.counts.digestsLeftToWriters++;
    input.onDigest?.(orgId, outcome);
  }
  await input.onCheckpoint?.(state);
  return { ...state.counts };
}
