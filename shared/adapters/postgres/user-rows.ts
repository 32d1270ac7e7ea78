import { USER_RECORD_FIELDS, type UserRecord } from '#shared/domain/users/user-record.ts';
import type { UserField } from '#shared/domain/users/user-status-query.ts';

/**
 * How a user record is stored: one column per field (the field's own name), plus `org_id` (the
 * organization that owns it, the first half of every key) and `email_key` (the e-mail trimmed
 * and lower-cased by JavaScript, as the filter compares it: PostgreSQL's `lower()` in the C
 * collation only folds ASCII).
 */

/** The columns an insert writes, in order. */
export const USER_ROW_COLUMNS = ['org_id', 'email_key', ...USER_RECORD_FIELDS] as const;

/** Stored as JSON text (DSQL has no JSON column type); every other field maps to its column as is. */
const JSON_FIELDS: ReadonlySet<UserField> = new Set(['idcheck_pep_sanction_result']);

export const emailKeyOf = (email: string): string => email.trim().toLowerCase();

/** The values of `USER_ROW_COLUMNS` for one record; a field the record lacks is NULL. */
export function toUserRowValues(orgId: string, record: UserRecord): unknown[] {
  const values: unknown[] = [orgId, record.email === undefined ? null : emailKeyOf(record.email)];
  for (const field of USER_RECORD_FIELDS) {
    const value = record[field];
    values.push(value === undefined ? null : JSON_FIELDS.has(field) ? JSON.stringify(value) : value);
  }
  return values;
}

/** A row (any subset of the field columns) back to the record's shape: NULL columns are absent fields. */
export function fromUserRow(row: Record<string, unknown>): Partial<UserRecord> {
  const record: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (value === null || value === undefined) continue;
    record[column] = JSON_FIELDS.has(column as UserField) ? JSON.parse(value as string) : value;
  }
  return record;
}

/** PostgreSQL text cannot hold U+0000: a string with it can be neither stored nor matched. */
export const hasNulCharacter = (value: unknown): boolean => typeof value === 'string' && value.includes('\u0000');

/** Aurora DSQL stores rows of at most 2 MiB; a record this large is refused before it is sent. */
export const MAX_ROW_BYTES = 1024 * 1024;

/**
 * Aurora DSQL refuses an index key over 1 KiB (all its columns together, SQLSTATE 54000); the
 * organization id (at most 64 bytes) and a second column share it, so an indexed text field is
 * held to 768 bytes. The indexed fields are those of USERS_MIGRATIONS' indexes.
 */
export const MAX_INDEXED_TEXT_BYTES = 768;
const INDEXED_TEXT_FIELDS = [
  'id',
  'email',
  'registration_status',
  'last_name',
  'city',
  'dob',
  'country',
  'high_level_result',
  'created_at',
] as const satisfies readonly UserField[];

/** Why the database could not store this record as it is (empty: it can). */
export function storageProblems(orgId: string, record: UserRecord): string[] {
  const problems = Object.entries(record)
    .filter(([, value]) => hasNulCharacter(value))
    .map(([field]) => `${field}: text cannot contain the character U+0000`);
  for (const field of INDEXED_TEXT_FIELDS) {
    const value = record[field];
    const length = typeof value === 'string' ? Buffer.byteLength(value) : 0;
    if (length > MAX_INDEXED_TEXT_BYTES) {
      problems.push(`${field}: ${length} bytes; an indexed field holds at most ${MAX_INDEXED_TEXT_BYTES}`);
    }
  }
  const bytes = storedBytesOf(orgId, record);
  if (bytes > MAX_ROW_BYTES) problems.push(`record is ${bytes} bytes stored; at most ${MAX_ROW_BYTES} are allowed`);
  return problems;
}

/** About what a record weighs in an INSERT (its values as JSON): what batches are sized by. */
export const storedBytesOf = (orgId: string, record: UserRecord): number =>
  Buffer.byteLength(JSON.stringify(toUserRowValues(orgId, record)));
