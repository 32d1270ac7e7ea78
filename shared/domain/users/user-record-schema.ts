import * as v from 'valibot';
import { isPlainText, PLAIN_TEXT_HINT } from '#shared/domain/plain-text.ts';
import { isIsoDateOrTimestamp as validDate, toCalendarDate, toInstant } from './user-status-query.ts';
import { MOBILE_REGISTRATION_STATUSES, REGISTRATION_STATUSES, type UserRecord } from './user-record.ts';

const text = v.optional(v.string());
/** Names a person reads back in reports and the dashboard (see plain-text.ts). */
const personText = v.optional(v.pipe(v.string(), v.check(isPlainText, PLAIN_TEXT_HINT)));
const count = v.optional(v.pipe(v.number(), v.minValue(0)));
const score = v.optional(v.number());
const flag = v.optional(v.boolean());
/** Stored as `YYYY-MM-DD`; a timestamp is cut to its UTC date. */
const calendarDate = v.pipe(
  v.string(),
  v.check(validDate, 'isDateString: must be an ISO date'),
  v.transform(toCalendarDate),
);
/** Stored in one canonical form, so text order (the C collation's) is time order. */
const instant = v.pipe(
  v.string(),
  v.check(validDate, 'isDateString: must be an ISO timestamp'),
  v.transform(toInstant),
);

/**
 * valibot's object schemas take arrays too (`[{...}]` would pass as an object with a member "0"),
 * so entries that must be objects are checked to be plain objects first.
 */
const entryObject = <TEntries extends v.ObjectEntries>(entries: TEntries) =>
  v.pipe(
    v.custom<Record<string, unknown>>(
      (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
      'must be an object',
    ),
    v.looseObject(entries),
  );

const screeningAddress = entryObject({
  city: text,
  line1: text,
  line2: text,
  county: text,
  postcode: text,
  addressType: text,
  countryIsoCode: text,
});
const screeningEntry = entryObject({
  notes: v.optional(v.array(v.unknown())),
  gender: text,
  qrCode: text,
  status: text,
  aliases: v.optional(v.array(v.unknown())),
  version: v.optional(v.number()),
  datasets: v.optional(v.array(v.string())),
  lastName: text,
  firstName: text,
  middleName: text,
  addresses: v.optional(v.array(screeningAddress)),
  ddEntries: v.optional(v.array(v.unknown())),
  evidences: v.optional(v.array(v.unknown())),
  griEntries: v.optional(v.array(v.unknown())),
  insEntries: v.optional(v.array(v.unknown())),
  isDeleted: flag,
  isDeceased: flag,
});
/** The seed types these as arrays but samples one object: a single object becomes a one-element array. */
const screeningEntries = v.pipe(
  v.custom<object>(
    (input) => typeof input === 'object' && input !== null,
    'must be an array of entries or one entry object',
  ),
  // Decided by shape, not by a union: a union let an array with a bad entry pass as "one object".
  v.transform((input): unknown[] => (Array.isArray(input) ? input : [input])),
  v.array(screeningEntry),
);

/** A user record as imported (JSON Lines) or seeded, normalised for storage. */
export const userRecordSchema = v.strictObject({
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(16)),
  name: personText,
  first_name: personText,
  middle_name: personText,
  last_name: personText,
  phone: text,
  email: v.optional(v.pipe(v.string(), v.trim(), v.email())),
  dob: v.optional(calendarDate),
  age: count,
  full_address: text,
  address1: text,
  address2: text,
  city: text,
  state: text,
  country: text,
  postcode: text,
  guardian_name: personText,
  guardian_dob: v.optional(calendarDate),
  guardian_age: count,
  data_sharing_agreed: flag,
  override_status: text,
  override_notes: text,
  is_deleted: flag,
  selfie_liveness_score: score,
  fmc_score: score,
  provider_high_level_result: text,
  high_level_result: text,
  document_overall_validation: text,
  registration_submitted: flag,
  registration_status: v.optional(v.picklist(REGISTRATION_STATUSES)),
  mobile_registration_status: v.optional(v.pipe(v.string(), v.trim(), v.picklist(MOBILE_REGISTRATION_STATUSES))),
  organization_id: v.optional(v.pipe(v.string(), v.minLength(1))),
  organization_name: text,
  idcheck_match_status: text,
  idcheck_pep_sanction_status: text,
  idcheck_pep_sanction_result: v.optional(
    v.object({
      status: v.picklist(['Pending', 'Cleared', 'Flagged']),
      timestamp: instant,
      pep_result: screeningEntries,
      sanction_result: screeningEntries,
    }),
  ),
  connection_status: text,
  connection_status_updated_at: v.optional(instant),
  created_at: instant,
  updated_at: v.optional(instant),
});

export type UserRecordInput = v.InferInput<typeof userRecordSchema>;

/**
 * Validates one record for an organization: the record's `organization_id`, when present, must
 * be that organization; when absent it is set.
 */
export function parseUserRecord(
  orgId: string,
  input: unknown,
): { success: true; record: UserRecord } | { success: false; problems: string[] } {
  // A member given as null is absent, so the service's own output (null for missing fields) imports again.
  const withoutNulls =
    typeof input === 'object' && input !== null && !Array.isArray(input)
      ? Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null))
      : input;
  const result = v.safeParse(userRecordSchema, withoutNulls, { abortEarly: false, abortPipeEarly: true });
  if (!result.success) {
    return {
      success: false,
      problems: result.issues.map(describeIssue),
    };
  }
  if (result.output.organization_id !== undefined && result.output.organization_id !== orgId) {
    return { success: false, problems: [`organization_id: is ${result.output.organization_id}, not ${orgId}`] };
  }
  return { success: true, record: { ...result.output, organization_id: orgId } };
}

/** One problem in plain words, naming the member: `created_at is required`, `age must be a number`. */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  const member = v.getDotPath(issue) ?? 'record';
  if (issue.input === undefined && (issue.kind === 'schema' || issue.type === 'object')) return `${member} is required`;
  switch (issue.type) {
    case 'string':
      return `${member} must be a string`;
    case 'number':
      return `${member} must be a number`;
    case 'boolean':
      return `${member} must be true or false`;
    case 'array':
      return `${member} must be a list`;
    case 'object':
    case 'loose_object':
      return `${member} must be an object`;
    case 'email':
      return `${member} must be an e-mail address`;
    case 'picklist':
      return `${member} must be one of ${(issue.expected ?? 'the allowed values').replace(/^\((.*)\)$/, '$1').replaceAll(' | ', ', ')}`;
    default: {
      // Our own checks already speak plainly (`must be an object`, `isDateString: must be an ISO date`).
      const reason = issue.message.replace(/^Invalid \w+: /, '');
      return reason.startsWith('must ') ? `${member} ${reason}` : `${member}: ${reason}`;
    }
  }
}
