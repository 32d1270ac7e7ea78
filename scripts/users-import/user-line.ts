import { usersTable } from '../../lib/table-definitions.ts';
import { itemLimitProblems, type KeyAttributes } from '../../shared/adapters/dynamodb/item-limits.ts';
import { toUserItem } from '../../shared/adapters/dynamodb/user-items.ts';
import { parseUserRecord } from '../../shared/domain/users/user-record-schema.ts';
import type { UserRecord } from '../../shared/domain/users/user-record.ts';

/** What one line of a JSON Lines user file holds. */
export type UserLine =
  | { kind: 'blank' }
  | { kind: 'valid'; record: UserRecord; item: Record<string, unknown> }
  | { kind: 'rejected'; problems: string[] };

/** Every attribute the Users table or one of its indexes uses as a key. */
const USER_KEY_ATTRIBUTES: KeyAttributes = {
  partition: [
    ...new Set([usersTable.partitionKey, ...usersTable.globalSecondaryIndexes.map((index) => index.partitionKey)]),
  ],
  sort: [...new Set([usersTable.sortKey, ...usersTable.globalSecondaryIndexes.map((index) => index.sortKey)])],
};

/**
 * One line, checked all the way to "DynamoDB will store it": JSON, then the user record schema
 * for the organization, then DynamoDB's item limits on the stored form. A line that passes can
 * only fail to be written for reasons outside the line (throttling, permissions, a missing table).
 */
export function parseUserLine(orgId: string, line: string): UserLine {
  const text = line.replace(/^\uFEFF/, '').trim();
  if (text === '') return { kind: 'blank' };
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    return { kind: 'rejected', problems: [`not valid JSON (${(error as Error).message})`] };
  }
  const parsed = parseUserRecord(orgId, input);
  if (!parsed.success) return { kind: 'rejected', problems: parsed.problems };
  const item = toUserItem(orgId, parsed.record);
  const problems = itemLimitProblems(item, USER_KEY_ATTRIBUTES);
  return problems.length > 0 ? { kind: 'rejected', problems } : { kind: 'valid', record: parsed.record, item };
}
