import { DATE_RANGE_FIELDS, INSTANT_RANGE_FIELDS, type UserField } from '#client/index.ts';

/** What each user field is called on screen (the API's snake_case names stay in requests and CSV headers). */
export const FIELD_LABELS: Readonly<Record<UserField, string>> = {
  id: 'User id',
  name: 'Name',
  first_name: 'First name',
  middle_name: 'Middle name',
  last_name: 'Last name',
  phone: 'Phone',
  email: 'E-mail',
  dob: 'Date of birth',
  age: 'Age',
  full_address: 'Address',
  address1: 'Address line 1',
  address2: 'Address line 2',
  city: 'City',
  state: 'State',
  country: 'Country',
  postcode: 'Postcode',
  guardian_name: 'Guardian',
  guardian_dob: 'Guardian’s date of birth',
  guardian_age: 'Guardian’s age',
  data_sharing_agreed: 'Data sharing agreed',
  override_status: 'Override status',
  override_notes: 'Override notes',
  is_deleted: 'Deleted',
  selfie_liveness_score: 'Selfie liveness score',
  fmc_score: 'Face match score',
  provider_high_level_result: 'Provider result',
  high_level_result: 'Overall result',
  document_overall_validation: 'Document validation',
  registration_submitted: 'Registration submitted',
  registration_status: 'Registration status',
  mobile_registration_status: 'Mobile registration step',
  organization_id: 'Organization id',
  organization_name: 'Organization',
  idcheck_match_status: 'ID check match',
  idcheck_pep_sanction_status: 'PEP and sanction status',
  idcheck_pep_sanction_result: 'PEP and sanction screening',
  connection_status: 'Connection',
  connection_status_updated_at: 'Connection changed',
  created_at: 'Created',
  updated_at: 'Updated',
};

export const fieldLabel = (field: string): string => FIELD_LABELS[field as UserField] ?? field;

const isOneOf = (list: readonly string[], field: string) => list.includes(field);

/** A calendar date (`YYYY-MM-DD`) in the reader's locale, never shifted by their time zone. */
export function formatDate(date: string): string {
  const time = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(time)
    ? date
    : new Date(time).toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
}

/** An instant in the reader's locale and time zone. */
export function formatInstant(iso: string): string {
  const time = Date.parse(iso);
  return Number.isNaN(time)
    ? iso
    : new Date(time).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

const numbers = new Intl.NumberFormat();

/** One cell's text: dates and instants in the reader's locale, yes/no, numbers grouped, the rest as stored. */
export function displayValue(field: string, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') {
    if (isOneOf(DATE_RANGE_FIELDS, field)) return formatDate(value);
    if (isOneOf(INSTANT_RANGE_FIELDS, field)) return formatInstant(value);
    return value;
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') return numbers.format(value);
  if (field === 'idcheck_pep_sanction_result' && typeof value === 'object') {
    const result = value as { status?: string; pep_result?: unknown[]; sanction_result?: unknown[] };
    return `${result.status ?? 'Unknown'}: ${countOf(result.pep_result?.length ?? 0, 'PEP match', 'PEP matches')}, ${countOf(result.sanction_result?.length ?? 0, 'sanction match', 'sanction matches')}`;
  }
  return JSON.stringify(value);
}

const pluralRules = new Intl.PluralRules('en');

/** "1 user", "2 users", "1,234 users": English wording, the number in the reader's locale. */
export function countOf(count: number, one: string, other: string): string {
  return `${numbers.format(count)} ${pluralRules.select(count) === 'one' ? one : other}`;
}
