import {
  MOBILE_REGISTRATION_STATUSES,
  REGISTRATION_STATUSES,
  USER_RECORD_FIELDS,
} from '#shared/domain/users/user-record.ts';
import {
  BOOLEAN_FILTER_FIELDS,
  DATE_FILTER_FIELDS,
  DEFAULT_RESULT_KEYS,
  INSTANT_FILTER_FIELDS,
  NUMBER_FILTER_FIELDS,
  RANGE_OPERATORS,
  REGISTRATION_CATEGORY_NAMES,
  STRING_FILTER_FIELDS as EQUALITY_FILTER_FIELDS,
} from '#shared/domain/users/user-status-query.ts';

/**
 * The user-status query's vocabulary as values, for clients that build queries from form
 * controls (the dashboard): every field, how each can be filtered, and the allowed status values.
 * They are the service's own lists (pure constants of its domain), so the two cannot drift.
 */

export const USER_FIELDS = USER_RECORD_FIELDS;

/** The records' members when `result_keys` is omitted. */
export { DEFAULT_RESULT_KEYS };

type StatusField = 'registration_status' | 'mobile_registration_status';
const isStatusField = (field: string): field is StatusField =>
  field === 'registration_status' || field === 'mobile_registration_status';

/** Exact match (`email` case-insensitively); `registration_status` and `mobile_registration_status` are listed below. */
export const STRING_FILTER_FIELDS = EQUALITY_FILTER_FIELDS.filter(
  (field): field is Exclude<(typeof EQUALITY_FILTER_FIELDS)[number], StatusField> => !isStatusField(field),
);

export { BOOLEAN_FILTER_FIELDS };

/** Range filters (`gt`, `gte`, `lt`, `lte`, `eq`) by the kind of value they compare. */
export const NUMBER_RANGE_FIELDS = NUMBER_FILTER_FIELDS;
/** Calendar dates, `YYYY-MM-DD`. */
export const DATE_RANGE_FIELDS = DATE_FILTER_FIELDS;
/** Instants, ISO 8601. */
export const INSTANT_RANGE_FIELDS = INSTANT_FILTER_FIELDS;

export { RANGE_OPERATORS };

/** `registration_status` also takes one of these categories, each a set of statuses. */
export const REGISTRATION_CATEGORIES = REGISTRATION_CATEGORY_NAMES;

export { MOBILE_REGISTRATION_STATUSES, REGISTRATION_STATUSES };
