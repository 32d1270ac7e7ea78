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

/**
 * Partitions of `byStatus` per registration status. Writes and reads of a large organization
 * spread over this many partition keys per status, and the reader queries them in parallel and
 * merges them (README "User status queries"). Changing it needs `npm run users:reindex`.
 */
export const USER_STATUS_SHARDS = 8;
/** The `byStatus` partition of users without a registration status. */
export const NO_REGISTRATION_STATUS = '-';

/**
 * What the `byStatus` index carries besides its keys and the table's: the short scalar fields the
 * common user-status filters test. Its items stay a fraction of a full user item (the PEP and
 * sanction data, names and addresses stay in the table), so reading an organization's users
 * through it costs a fraction of the read capacity. `id` and `created_at` are not repeated: they
 * are the two halves of `createdAtSk`. Filters on other fields use `byCreatedAt` (README "User
 * status queries").
 */
export const USER_STATUS_INDEX_FIELDS = [
  'mobile_registration_status',
  'connection_status',
  'age',
  'data_sharing_agreed',
  'is_deleted',
  'registration_submitted',
  'country',
] as const;

/** `byStatus` partition key: `ORG#{org}#STATUS#{registration_status or -}#{shard}`. */
export const statusPartitionKey = (orgId: string, registrationStatus: string | undefined, shard: number): string =>
  `${organizationPartition(orgId)}#STATUS#${registrationStatus ?? NO_REGISTRATION_STATUS}#${shard}`;

/** A user's shard: FNV-1a of the id's UTF-8 bytes, so the same id always lands in the same partition. */
export function statusShardOf(userId: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(userId)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % USER_STATUS_SHARDS;
}

/** `createdAtSk` back to its parts: the instant has a fixed width (`YYYY-MM-DDTHH:mm:ss.sssZ`). */
export function splitCreatedAtSortKey(sortKey: string): { createdAt: string; id: string } {
  return { createdAt: sortKey.slice(0, INSTANT_LENGTH), id: sortKey.slice(INSTANT_LENGTH + 1) };
}
const INSTANT_LENGTH = '2024-01-01T00:00:00.000Z'.length;

/** Every attribute the item carries for the table and its indexes, not part of the record. */
export const USER_INDEX_ATTRIBUTES = ['createdAtSk', 'emailPk', 'statusPk'] as const;
const KEY_ATTRIBUTES = ['pk', 'sk', ...USER_INDEX_ATTRIBUTES, 'ttl'] as const;

/** The index attributes a record needs: what import, seed and `users:reindex` write. */
export function userIndexAttributes(orgId: string, record: UserRecord): Record<string, string> {
  return {
    createdAtSk: createdAtSortKey(record.created_at, record.id),
    ...(record.email ? { emailPk: emailPartitionKey(orgId, record.email) } : {}),
    statusPk: statusPartitionKey(orgId, record.registration_status, statusShardOf(record.id)),
  };
}

export function toUserItem(orgId: string, record: UserRecord): Record<string, unknown> {
  return { ...record, ...userKey(orgId, record.id), ...userIndexAttributes(orgId, record) };
}

export function fromUserItem(item: Record<string, unknown>): UserRecord {
  const record = { ...item };
  for (const attribute of KEY_ATTRIBUTES) delete record[attribute];
  return record as unknown as UserRecord;
}
