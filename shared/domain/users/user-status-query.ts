import { USER_RECORD_FIELDS, type UserRecord } from './user-record.ts';

export type UserField = (typeof USER_RECORD_FIELDS)[number];
export const RANGE_OPERATORS = ['gt', 'gte', 'lt', 'lte', 'eq'] as const;
export type RangeOperator = (typeof RANGE_OPERATORS)[number];

/** Fields matched by exact string equality (`email` case-insensitively). */
export const STRING_FILTER_FIELDS = [
  'id', 'email', 'name', 'first_name', 'last_name', 'middle_name', 'phone', 'organization_name', 'organization_id',
  'city', 'state', 'country', 'full_address', 'address1', 'address2', 'postcode', 'guardian_name', 'override_status',
  'override_notes', 'provider_high_level_result', 'high_level_result', 'document_overall_validation',
  'idcheck_match_status', 'connection_status', 'registration_status', 'mobile_registration_status',
] as const satisfies readonly UserField[];
export const BOOLEAN_FILTER_FIELDS = ['data_sharing_agreed', 'is_deleted', 'registration_submitted'] as const satisfies readonly UserField[];
/** Compared as calendar dates (`YYYY-MM-DD`). */
export const DATE_FILTER_FIELDS = ['dob', 'guardian_dob'] as const satisfies readonly UserField[];
export const NUMBER_FILTER_FIELDS = ['age', 'guardian_age', 'selfie_liveness_score', 'fmc_score'] as const satisfies readonly UserField[];
/** Compared as instants (normalised ISO 8601, UTC, milliseconds). */
export const INSTANT_FILTER_FIELDS = ['connection_status_updated_at', 'created_at', 'updated_at'] as const satisfies readonly UserField[];

export const DEFAULT_RESULT_KEYS: readonly UserField[] = [
  'id', 'name', 'email', 'registration_status', 'mobile_registration_status', 'connection_status', 'created_at', 'updated_at',
];
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

/** The seed's four registration categories, each standing for the stored values it covers. */
export const REGISTRATION_CATEGORIES: Readonly<Record<string, readonly string[]>> = {
  active: ['Activated', 'Complete'],
  pending: ['For Review', 'Referred'],
  suspended: ['Rejected'],
  inactive: ['Deleted'],
};

export type UserFilter =
  /** Matches when the field equals any of `values`. */
  | { kind: 'equals'; field: UserField; values: readonly string[] }
  | { kind: 'boolean'; field: UserField; value: boolean }
  | { kind: 'range'; field: UserField; valueType: 'number' | 'date' | 'instant'; bounds: Partial<Record<RangeOperator, number | string>> };

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

/** Calendar date of an ISO date or timestamp (the UTC date of a timestamp). */
export function toCalendarDate(value: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : new Date(value).toISOString().slice(0, 10);
}

/** One canonical text form per instant, so string order is time order. */
export function toInstant(value: string): string {
  return new Date(value).toISOString();
}
