import * as v from 'valibot';
import {
  MOBILE_REGISTRATION_STATUSES,
  REGISTRATION_STATUSES,
  USER_RECORD_FIELDS,
} from '#shared/domain/users/user-record.ts';
import {
  BOOLEAN_FILTER_FIELDS,
  DATE_FILTER_FIELDS,
  DEFAULT_LIMIT,
  DEFAULT_RESULT_KEYS,
  INSTANT_FILTER_FIELDS,
  MAX_LIMIT,
  NUMBER_FILTER_FIELDS,
  RANGE_OPERATORS,
  REGISTRATION_CATEGORIES,
  REGISTRATION_CATEGORY_NAMES,
  type RegistrationCategory,
  STRING_FILTER_FIELDS,
  isIsoDateOrTimestamp,
  toCalendarDate,
  toInstant,
  type RangeOperator,
  type UserField,
  type UserFilter,
  type UserStatusQuery,
} from '#shared/domain/users/user-status-query.ts';
import { MAX_SEARCH_TERMS, searchTermsOf } from '#shared/domain/users/user-search.ts';

/**
 * A JSON object (valibot's own object schemas also accept arrays) with only the given members;
 * an unknown member is an `isIn` naming the allowed ones, so a misspelt key is never ignored.
 */
function jsonObject<TEntries extends v.ObjectEntries>(entries: TEntries) {
  const allowed = Object.keys(entries).join(', ');
  return v.pipe(
    v.custom<Record<string, unknown>>(
      (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
      'isObject: must be an object',
    ),
    v.strictObject(entries, (issue) =>
      issue.expected === 'never' ? `isIn: is not one of ${allowed}` : 'isObject: must be an object',
    ),
  );
}

/** Longer than any indexed stored value can be (Aurora DSQL index keys stop at 1 KiB; dates and timestamps are short). */
export const MAX_FILTER_STRING_LENGTH = 1024;
const MAX_DATE_STRING_LENGTH = 64;
/** Far more than the fields there are; duplicates are ignored, so a few are tolerated. */
export const MAX_RESULT_KEYS = 100;
/**
 * A deep page costs skipping the index entries before it (a few hundred milliseconds per million
 * in PostgreSQL); the bound only keeps a typo from asking for a page no organization reaches.
 */
export const MAX_OFFSET = 10_000_000;

const dateOrTimestamp = v.pipe(
  v.string(),
  v.maxLength(MAX_DATE_STRING_LENGTH),
  v.check(isIsoDateOrTimestamp, 'isDateString: must be an ISO 8601 date (YYYY-MM-DD) or timestamp'),
);

/**
 * A number closer to zero than 1e-130 (other than 0): refused since the first release, when users
 * lived in DynamoDB, which cannot store one; kept so the same request gets the same answer.
 */
export const isStorableMagnitude = (value: number): boolean => value === 0 || Math.abs(value) >= 1e-130;

/** Finite numbers within the safe-integer range, so every bound compares exactly. */
const comparableNumber = v.pipe(
  v.number(),
  v.minValue(Number.MIN_SAFE_INTEGER),
  v.maxValue(Number.MAX_SAFE_INTEGER),
  v.check(isStorableMagnitude, 'isNumber: must be 0 or at least 1e-130 in magnitude'),
);

/** A range object names at least one operator. */
export function namesABound<TRange extends Partial<Record<RangeOperator, unknown>>>(range: TRange): boolean {
  return RANGE_OPERATORS.some((op) => range[op] !== undefined);
}

function rangeOf<TValue extends v.GenericSchema>(value: TValue) {
  const bounds = Object.fromEntries(RANGE_OPERATORS.map((op) => [op, v.optional(value)])) as Record<
    RangeOperator,
    v.OptionalSchema<TValue, undefined>
  >;
  return v.pipe(
    jsonObject(bounds),
    v.check(namesABound, `isNotEmpty: must name at least one of ${RANGE_OPERATORS.join(', ')}`),
  );
}

/** A search of at most `MAX_SEARCH_TERMS` words (each is one more index range to intersect). */
export const holdsFewSearchTerms = (text: string): boolean => searchTermsOf(text).length <= MAX_SEARCH_TERMS;

/** `filters.search`: an id, an e-mail start or the starts of name words (user-search.ts). */
const searchText = v.pipe(
  v.string(),
  v.maxLength(MAX_FILTER_STRING_LENGTH),
  v.trim(),
  v.nonEmpty('isNotEmpty: must contain a character other than white space'),
  v.check(holdsFewSearchTerms, `maxLength: must hold at most ${MAX_SEARCH_TERMS} words`),
);

const filterEntries = {
  ...Object.fromEntries(
    STRING_FILTER_FIELDS.map((field) => [field, v.optional(v.pipe(v.string(), v.maxLength(MAX_FILTER_STRING_LENGTH)))]),
  ),
  search: v.optional(searchText),
  // A category or a stored value; anything else (including `constructor` & co.) is an isIn.
  registration_status: v.optional(v.picklist([...REGISTRATION_CATEGORY_NAMES, ...REGISTRATION_STATUSES])),
  mobile_registration_status: v.optional(v.pipe(v.string(), v.trim(), v.picklist(MOBILE_REGISTRATION_STATUSES))),
  ...Object.fromEntries(BOOLEAN_FILTER_FIELDS.map((field) => [field, v.optional(v.boolean())])),
  ...Object.fromEntries(NUMBER_FILTER_FIELDS.map((field) => [field, v.optional(rangeOf(comparableNumber))])),
  ...Object.fromEntries(DATE_FILTER_FIELDS.map((field) => [field, v.optional(rangeOf(dateOrTimestamp))])),
  ...Object.fromEntries(INSTANT_FILTER_FIELDS.map((field) => [field, v.optional(rangeOf(dateOrTimestamp))])),
} as Record<string, v.GenericSchema>;

const userStatusBodySchema = jsonObject({
  filters: v.optional(jsonObject(filterEntries)),
  result_keys: v.optional(
    v.pipe(v.array(v.picklist(USER_RECORD_FIELDS)), v.minLength(1), v.maxLength(MAX_RESULT_KEYS)),
  ),
  pagination: v.optional(
    jsonObject({
      limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_LIMIT))),
      offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_OFFSET))),
    }),
  ),
});

/** The validated body as the domain's query, defaults applied. */
export function toUserStatusQuery(body: v.InferOutput<typeof userStatusBodySchema>): UserStatusQuery {
  return {
    filters: toUserFilters(body.filters ?? {}),
    resultKeys: body.result_keys ? [...new Set(body.result_keys)] : DEFAULT_RESULT_KEYS,
    limit: body.pagination?.limit ?? DEFAULT_LIMIT,
    offset: body.pagination?.offset ?? 0,
  };
}

/** POST /v1/user-status body: `{filters, result_keys, pagination}`, all optional. */
export const userStatusRequestSchema = v.pipe(userStatusBodySchema, v.transform(toUserStatusQuery));

const includes = (list: readonly string[], field: string): boolean => list.includes(field);

/** Validated filter members → the domain's filters, values normalised for comparison. */
export function toUserFilters(filters: Record<string, unknown>): UserFilter[] {
  const result: UserFilter[] = [];
  for (const [name, raw] of Object.entries(filters)) {
    if (raw === undefined) continue;
    if (name === 'search') {
      result.push({ kind: 'search', text: raw as string, terms: searchTermsOf(raw as string) });
      continue;
    }
    const field = name as UserField;
    if (field === 'registration_status') {
      const category = Object.hasOwn(REGISTRATION_CATEGORIES, raw as string)
        ? REGISTRATION_CATEGORIES[raw as RegistrationCategory]
        : undefined;
      result.push({ kind: 'equals', field, values: category ?? [raw as string] });
    } else if (field === 'email') {
      result.push({ kind: 'equals', field, values: [(raw as string).trim().toLowerCase()] });
    } else if (includes(STRING_FILTER_FIELDS, field)) {
      result.push({ kind: 'equals', field, values: [raw as string] });
    } else if (includes(BOOLEAN_FILTER_FIELDS, field)) {
      result.push({ kind: 'boolean', field, value: raw as boolean });
    } else {
      const valueType = includes(NUMBER_FILTER_FIELDS, field)
        ? 'number'
        : includes(DATE_FILTER_FIELDS, field)
          ? 'date'
          : 'instant';
      const normalise = (value: number | string) =>
        valueType === 'date'
          ? toCalendarDate(value as string)
          : valueType === 'instant'
            ? toInstant(value as string)
            : value;
      const bounds = Object.fromEntries(
        Object.entries(raw as Record<string, number | string | undefined>)
          .filter((entry): entry is [string, number | string] => entry[1] !== undefined)
          .map(([op, value]) => [op, normalise(value)]),
      );
      result.push({ kind: 'range', field, valueType, bounds });
    }
  }
  return result;
}
