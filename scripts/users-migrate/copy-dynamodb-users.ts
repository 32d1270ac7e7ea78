import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SqlRunner } from '#shared/adapters/postgres/users-database.ts';
import { PostgresUserWriter } from '#shared/adapters/postgres/user-writer.ts';
import { storageProblems } from '#shared/adapters/postgres/user-rows.ts';
import { parseUserRecord } from '#shared/domain/users/user-record-schema.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';

/** The keys and index attributes the DynamoDB Users table kept on each user item, besides the record. */
const ITEM_ONLY_ATTRIBUTES = ['pk', 'sk', 'createdAtSk', 'emailPk', 'statusPk', 'ttl'] as const;
const USER_ITEM = /^ORG#(.+)$/;

export interface CopyCounts {
  /** Items read from the table (user items and any others). */
  scanned: number;
  copied: number;
  refused: number;
}

export interface CopyProgress {
  counts: Readonly<CopyCounts>;
  /** Where the next run starts; undefined once the table is read to its end. */
  resumeKey: Record<string, unknown> | undefined;
}

export interface CopyDynamoDbUsersInput {
  documents: DynamoDBDocumentClient;
  tableName: string;
  database: Pick<SqlRunner, 'query' | 'transaction'>;
  /** Where an earlier, stopped run got to (its last saved progress). */
  resumeFrom?: CopyProgress;
  /** Items per Scan page; default DynamoDB's (up to 1 MB). */
  pageSize?: number;
  onRefused?: (refusal: { orgId: string; userId: string; problems: string[] }) => void;
  /** After each page is stored: save it to resume from there. */
  onPage?: (progress: CopyProgress) => Promise<void> | void;
}

/**
 * Primary course: scan the table a page at a time; turn each user item (`ORG#{org}` / `USER#{id}`)
 * back into its record (keys and index attributes dropped, validated and normalised as
 * `users:import` does); upsert the page's records organization by organization; then report the
 * page, so a stopped copy resumes after the last page stored. Copying again is harmless: a user
 * is keyed by organization and id.
 */
export async function copyDynamoDbUsers(input: CopyDynamoDbUsersInput): Promise<CopyCounts> {
  const counts: CopyCounts = { ...(input.resumeFrom?.counts ?? { scanned: 0, copied: 0, refused: 0 }) };
  let startKey = input.resumeFrom?.resumeKey;
  if (input.resumeFrom && startKey === undefined) return counts;
  do {
    const page = await input.documents.send(
      new ScanCommand({
        TableName: input.tableName,
        ExclusiveStartKey: startKey,
        ...(input.pageSize ? { Limit: input.pageSize } : {}),
      }),
    );
    const byOrganization = new Map<string, UserRecord[]>();
    for (const item of page.Items ?? []) {
      counts.scanned++;
      const orgId = USER_ITEM.exec(String(item.pk))?.[1];
      if (orgId === undefined || !String(item.sk).startsWith('USER#')) continue;
      const record = recordOf(orgId, item);
      if ('problems' in record) {
        counts.refused++;
        input.onRefused?.({ orgId, userId: String(item.sk).slice('USER#'.length), problems: record.problems });
        continue;
      }
      byOrganization.set(orgId, [...(byOrganization.get(orgId) ?? []), record.record]);
    }
    for (const [orgId, records] of byOrganization) {
      const writer = new PostgresUserWriter<string>({
        database: input.database,
        orgId,
        onWritten: (ids) => {
          counts.copied += ids.length;
        },
        onRefused: (userId, reason) => {
          counts.refused++;
          input.onRefused?.({ orgId, userId, problems: [`refused by the database: ${reason}`] });
        },
      });
      for (const record of records) await writer.put(record, record.id);
      await writer.close();
    }
    startKey = page.LastEvaluatedKey;
    await input.onPage?.({ counts: { ...counts }, resumeKey: startKey });
  } while (startKey);
  return counts;
}

function recordOf(orgId: string, item: Record<string, unknown>): { record: UserRecord } | { problems: string[] } {
  const fields = { ...item };
  for (const attribute of ITEM_ONLY_ATTRIBUTES) delete fields[attribute];
  const parsed = parseUserRecord(orgId, fields);
  if (!parsed.success) return { problems: parsed.problems };
  const problems = storageProblems(orgId, parsed.record);
  return problems.length > 0 ? { problems } : { record: parsed.record };
}
