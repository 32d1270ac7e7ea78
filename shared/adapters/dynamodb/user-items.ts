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

/** The `byStatus` partition of users without a registration status, or without an age. */
export const NONE = '-';
/** Ages by decade: band 0 is 0-9, ..., band 10 is 100 and over. */
export const AGE_BAND_YEARS = 10;
export const LAST_AGE_BAND = 10;
/** Every age band, and `undefined` for users without an age. */
export const AGE_BANDS: ReadonlyArray<number | undefined> = [
  ...Array.from({ length: LAST_AGE_BAND + 1 }, (_, band) => band),
  undefined,
];

export const ageBandOf = (age: number | undefined): number | undefined =>
  age === undefined ? undefined : Math.min(LAST_AGE_BAND, Math.max(0, Math.floor(age / AGE_BAND_YEARS)));

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

/**
 * `byStatus` partition key: `ORG#{org}#STATUS#{registration_status or -}#AGE#{age band or -}`.
 * A large organization's users spread over up to 7 x 12 partition keys (writes and reads alike);
 * a status filter picks its statuses' partitions and an age range its decades', and the reader
 * queries them in parallel and merges them (README "User status queries"). Changing the scheme
 * needs `npm run users:reindex`.
 */
export const statusPartitionKey = (
  orgId: string,
  registrationStatus: string | undefined,
  ageBand: number | undefined,
): string => `${organizationPartition(orgId)}#STATUS#${registrationStatus ?? NONE}#AGE#${ageBand ?? NONE}`;

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
    statusPk: statusPartitionKey(orgId, record.registration_status, ageBandOf(record.age)),
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
