import type { UserRecord } from '../../domain/users/user-record.ts';
import { organizationPartition } from './keys.ts';

/**
 * How a user record is stored: the record's own fields plus the keys of the table and its
 * indexes (see lib/table-definitions.ts `usersTable`).
 */
export const userKey = (orgId: string, userId: string) => ({ pk: organizationPartition(orgId), sk: `USER#${userId}` });
export const createdAtSortKey = (createdAt: string, userId: string): string => `${createdAt}#${userId}`;
export const emailPartitionKey = (orgId: string, email: string): string =>
  `${organizationPartition(orgId)}#EMAIL#${email.trim().toLowerCase()}`;

const KEY_ATTRIBUTES = ['pk', 'sk', 'createdAtSk', 'emailPk', 'ttl'] as const;

export function toUserItem(orgId: string, record: UserRecord): Record<string, unknown> {
  return {
    ...record,
    ...userKey(orgId, record.id),
    createdAtSk: createdAtSortKey(record.created_at, record.id),
    ...(record.email ? { emailPk: emailPartitionKey(orgId, record.email) } : {}),
  };
}

export function fromUserItem(item: Record<string, unknown>): UserRecord {
  const record = { ...item };
  for (const attribute of KEY_ATTRIBUTES) delete record[attribute];
  return record as unknown as UserRecord;
}
