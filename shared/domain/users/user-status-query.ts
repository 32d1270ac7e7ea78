import { USER_RECORD_FIELDS, type RegistrationStatus, type UserRecord } from './user-record.ts';

export type UserField = (typeof USER_RECORD_FIELDS)[number];
export const RANGE_OPERATORS = ['gt', 'gte', 'lt', 'lte', 'eq'] as const;
export type RangeOperator = (typeof RANGE_OPERATORS)[number];

/** Fields matched by exact string equality (`email` case-insensitively). */
export const STRING_FILTER_FIELDS = [
  'id',
  'email',
  'name',
  'first_name',
  'last_name',
  'middle_name',
  'phone',
  'organization_name',
  'organization_id',
  'city',
  'state',
  'country',
  'full_address',
  'address1',
  'address2',
  'postcode',
  'guardian_name',
  'override_status',
  'override_notes',
  'provider_high_level_result',
  'high_level_result',
  'document_overall_validation',
  'idcheck_match_status',
  'connection_status',
  'registration_status',
  'mobile_registration_status',
] as const satisfies readonly UserField[];
export const BOOLEAN_FILTER_FIELDS = [
  'data_sharing_agreed',
  'is_deleted',
  'registration_submitted',
] as const satisfies readonly UserField[];
/** Compared as calendar dates (`YYYY-MM-DD`). */
export const DATE_FILTER_FIELDS = ['dob', 'guardian_dob'] as const satisfies readonly UserField[];
export const NUMBER_FILTER_FIELDS = [
  'age',
  'guardian_age',
  'selfie_liveness_score',
  'fmc_score',
] as const satisfies readonly UserField[];
/** Compared as instants (normalised ISO 8601, UTC, milliseconds). */
export const INSTANT_FILTER_FIELDS = [
  'connection_status_updated_at',
  'created_at',
  'updated_at',
] as const satisfies readonly UserField[];

export const DEFAULT_RESULT_KEYS = [
  'id',
  'name',
  'email',
  'registration_status',
  'mobile_registration_status',
  'connection_status',
  'created_at',
  'updated_at',
] as const satisfies readonly UserField[];
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

/** The seed's four registration categories, each standing for the stored values it covers. */
export const REGISTRATION_CATEGORIES: Readonly<Record<RegistrationCategory, readonly RegistrationStatus[]>> = {
  active: ['Activated', 'Complete'],
  pending: ['For Review', 'Referred'],
  suspended: ['Rejected'],
  inactive: ['Deleted'],
};
export type RegistrationCategory = 'active' | 'pending' | 'suspended' | 'inactive';
/** The categories `registration_status` accepts besides the statuses themselves. */
export const REGISTRATION_CATEGORY_NAMES = Object.keys(REGISTRATION_CATEGORIES) as RegistrationCategory[];

export type UserFilter =
  /** Matches when the field equals any of `values`. */
  | { kind: 'equals'; field: UserField; values: readonly string[] }
  | { kind: 'boolean'; field: UserField; value: boolean }
  | {
      kind: 'range';
      field: UserField;
      valueType: 'number' | 'date' | 'instant';
      bounds: Partial<Record<RangeOperator, number | string>>;
    }
  /**
   * `filters.search` (user-search.ts): `text` equals `id`, or `terms.join(' ')` starts the
   * e-mail, or every term starts a word of `name`. `terms` are folded.
   */
  | { kind: 'search'; text: string; terms: readonly string[] };

export interface UserStatusQuery {
  filters: readonly UserFilter[];
  resultKeys: readonly UserField[];
  limit: number;
  offset: number;
}

export interface UserStatusPage {
  results: Array<Record<string, unknown>>;
  pagination: { limit: number; offset: number; total: number };
}

/** Exactly the requested keys, in request order; a field the record lacks is `null`. */
export function selectFields(record: Partial<UserRecord>, keys: readonly UserField[]): Record<string, unknown> {
  const selected: Record<string, unknown> = {};
  for (const key of keys) selected[key] = record[key] ?? null;
  return selected;
}

/** The text form of `isIsoDateOrTimestamp` (the OpenAPI document uses it as a pattern). */
export const ISO_DATE_OR_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2})))?$/;

/**
 * An ISO 8601 date (`YYYY-MM-DD`) or timestamp with a zone that names a real day and time.
 * `Date.parse` alone is not enough: it rolls `2024-02-30` over to March 1st.
 */
export function isIsoDateOrTimestamp(value: string): boolean {
  const match = ISO_DATE_OR_TIMESTAMP.exec(value);
  if (!match) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0, zoneHour = 0, zoneMinute = 0] = match
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part)));
  const leapYear = year! % 4 === 0 && (year! % 100 !== 0 || year! % 400 === 0);
  const daysInMonth = month === 2 ? (leapYear ? 29 : 28) : [4, 6, 9, 11].includes(month!) ? 30 : 31;
  const time = Date.parse(value);
  return (
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    zoneHour <= 23 &&
    zoneMinute <= 59 &&
    // A zone offset may push an instant out of years 0000-9999, where ISO text loses its fixed width and order.
    time >= FIRST_INSTANT &&
    time <= LAST_INSTANT
  );
}

const FIRST_INSTANT = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** Calendar date of an ISO date or timestamp (the UTC date of a timestamp). */
export function toCalendarDate(value: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : new Date(value).toISOString().slice(0, 10);
}

/** One canonical text form per instant, so string order is time order. */
export function toInstant(value: string): string {
  return new Date(value).toISOString();
}
