import type {
  PepSanctionResult,
  ScreeningAddress,
  ScreeningEntry,
  UserRecord,
} from '#shared/domain/users/user-record.ts';
import {
  MISSING,
  ageOn,
  formatCount,
  formatInstant,
  formatNumber,
  formatScore,
  formatText,
  formatYesNo,
  humanizeCode,
  joinPresent,
} from './report-values.ts';

/**
 * What a user report says, before any layout: a summary for page 1, then sections of label/value
 * rows, and for screening one block per match. Values are display text; a newline separates lines
 * that must stay apart (one address per line).
 */

/** What a report knows besides the user record: when it is generated (ages count to then) and for whom. */
export interface ReportContext {
  generatedAt: Date;
  /** The `sub` of the token that requested the report; absent for jobs created before it was recorded. */
  requestedBy?: string | undefined;
}

export const REPORT_SECTION_IDS = [
  'identity',
  'contact',
  'guardian',
  'registration',
  'verification',
  'screening',
  'overrides',
  'timestamps',
] as const;

export type ReportSectionId = (typeof REPORT_SECTION_IDS)[number];

export interface ReportField {
  label: string;
  value: string;
  /** Small text after the value: the stored code of a humanised value, or where a value comes from. */
  detail?: string;
  /** `alert`: something a reader must not miss (the summary's flags). */
  tone?: 'alert';
}

/** A table row: one field, or two short ones side by side (used inside screening matches). */
export interface ReportRow {
  fields: [ReportField] | [ReportField, ReportField];
}

export interface ReportBlock {
  title: string;
  rows: ReportRow[];
}

export interface ReportSection {
  id: ReportSectionId;
  title: string;
  rows: ReportRow[];
  blocks: ReportBlock[];
}

export function userReportSections(user: UserRecord, context: ReportContext): ReportSection[] {
  return [
    section('identity', 'Identity', [
      row('User ID', formatText(user.id)),
      row('Name', formatText(user.name)),
      row('First name', formatText(user.first_name)),
      row('Middle name', formatText(user.middle_name)),
      row('Last name', formatText(user.last_name)),
      row('Date of birth', formatText(user.dob)),
      ageRow('Age', user.dob, user.age, context.generatedAt),
    ]),
    section('contact', 'Contact and address', [
      row('Email', formatText(user.email)),
      row('Phone', formatText(user.phone)),
      row('Full address', formatText(user.full_address)),
      row('Address line 1', formatText(user.address1)),
      row('Address line 2', formatText(user.address2)),
      row('City', formatText(user.city)),
      row('State', formatText(user.state)),
      row('Postcode', formatText(user.postcode)),
      row('Country', formatText(user.country)),
    ]),
    section('guardian', 'Guardian', [
      row('Guardian name', formatText(user.guardian_name)),
      row('Guardian date of birth', formatText(user.guardian_dob)),
      ageRow('Guardian age', user.guardian_dob, user.guardian_age, context.generatedAt),
    ]),
    section('registration', 'Registration and connection', [
      codeRow('Registration status', user.registration_status),
      codeRow('Mobile registration status', user.mobile_registration_status),
      row('Registration submitted', formatYesNo(user.registration_submitted)),
      row('Data sharing agreed', formatYesNo(user.data_sharing_agreed)),
      codeRow('Connection status', user.connection_status),
      row('Connection status updated', formatInstant(user.connection_status_updated_at)),
      row('Record deleted', formatYesNo(user.is_deleted)),
    ]),
    section('verification', 'Verification scores and document checks', [
      row('Selfie liveness score', formatScore(user.selfie_liveness_score)),
      row('Face match score', formatScore(user.fmc_score)),
      codeRow('Provider high-level result', user.provider_high_level_result),
      codeRow('High-level result', user.high_level_result),
      codeRow('Document overall validation', user.document_overall_validation),
      codeRow('ID check match status', user.idcheck_match_status),
    ]),
    screeningSection(user),
    section('overrides', 'Overrides', [
      codeRow('Override status', user.override_status),
      row('Override notes', formatText(user.override_notes)),
    ]),
    section('timestamps', 'Record timestamps', [
      row('Created', formatInstant(user.created_at)),
      row('Last updated', formatInstant(user.updated_at)),
    ]),
  ];
}

/** The stored screening result (if it is an object) and its PEP and sanction matches. */
export function screeningOf(user: UserRecord): {
  result: Partial<PepSanctionResult> | undefined;
  peps: ScreeningEntry[];
  sanctions: ScreeningEntry[];
} {
  const result = isPlainObject(user.idcheck_pep_sanction_result) ? user.idcheck_pep_sanction_result : undefined;
  return {
    result,
    peps: objectsIn<ScreeningEntry>(result?.pep_result),
    sanctions: objectsIn<ScreeningEntry>(result?.sanction_result),
  };
}

function screeningSection(user: UserRecord): ReportSection {
  const { result, peps, sanctions } = screeningOf(user);
  return {
    ...section('screening', 'PEP and sanction screening', [
      codeRow('Screening status', user.idcheck_pep_sanction_status),
      codeRow('Result status', result?.status),
      row('Result time', formatInstant(result?.timestamp)),
      row('PEP matches', formatCount(peps)),
      row('Sanction matches', formatCount(sanctions)),
    ]),
    blocks: [
      ...peps.map((entry, index) => screeningBlock('PEP match', index, peps.length, entry)),
      ...sanctions.map((entry, index) => screeningBlock('Sanction match', index, sanctions.length, entry)),
    ],
  };
}

function screeningBlock(kind: string, index: number, total: number, entry: ScreeningEntry): ReportBlock {
  const name = matchName(entry);
  const title = `${kind} ${index + 1} of ${total}`;
  return {
    title: name === MISSING ? title : `${title}: ${name}`,
    rows: [
      pair(field('First name', formatText(entry.firstName)), field('Middle name', formatText(entry.middleName))),
      pair(field('Last name', formatText(entry.lastName)), field('Gender', formatText(entry.gender))),
      pair(codeField('Status', entry.status), field('QR code', formatText(entry.qrCode))),
      pair(field('Deleted', formatYesNo(entry.isDeleted)), field('Deceased', formatYesNo(entry.isDeceased))),
      row('Aliases', formatLines(entry.aliases, formatAlias)),
      row('Datasets', formatText(entry.datasets)),
      row('Addresses', formatLines(objectsIn<ScreeningAddress>(entry.addresses), formatAddress)),
      row('Notes', formatLines(entry.notes, formatText)),
      row('Evidences', formatLines(entry.evidences, formatEvidence)),
    ],
  };
}

/** Chinese, Japanese and Korean names are written family name first, without spaces. */
const EAST_ASIAN_NAME = /^[\p{Script=Han}\p{Script=Hangul}\p{Script=Hiragana}\p{Script=Katakana}]+$/u;

/** A match's name as its script writes it: `first middle last`, or `lastmiddlefirst` in CJK. */
function matchName(entry: ScreeningEntry): string {
  const parts = [entry.firstName, entry.middleName, entry.lastName];
  const present = parts.filter((part): part is string => typeof part === 'string' && part.trim() !== '');
  if (present.length > 1 && present.every((part) => EAST_ASIAN_NAME.test(part.trim()))) {
    return joinPresent([entry.lastName, entry.middleName, entry.firstName], '');
  }
  return joinPresent(parts, ' ');
}

/** One line per element of a stored list; the missing mark for an empty or missing one. */
function formatLines(values: unknown, format: (value: never) => string): string {
  const lines = (Array.isArray(values) ? values : [])
    .map((value) => format(value as never))
    .filter((line) => line !== MISSING);
  return lines.length === 0 ? MISSING : lines.join('\n');
}

/** An alias as stored: a name, or an object naming one (`name`, or its parts). */
function formatAlias(alias: unknown): string {
  if (!isPlainObject(alias)) return formatText(alias);
  const record = alias as Record<string, unknown>;
  const name = record.name ?? record.fullName;
  if (typeof name === 'string' && name.trim() !== '') return name.trim();
  const parts = joinPresent([record.firstName, record.middleName, record.lastName], ' ');
  return parts === MISSING ? formatText(alias) : parts;
}

/** `id: title (published date), url`, from whichever of these the evidence holds. */
function formatEvidence(evidence: unknown): string {
  if (!isPlainObject(evidence)) return formatText(evidence);
  const record = evidence as Record<string, unknown>;
  const id = joinPresent([record.evidenceId], '');
  const title = joinPresent([record.title, record.summary], ' — ');
  const published = joinPresent([record.datePublished], '');
  const url = joinPresent([record.url, record.originalUrl], ' ');
  const known = [id, title, published, url].every((part) => part === MISSING);
  if (known) return formatText(evidence);
  let text = id === MISSING ? '' : id;
  if (title !== MISSING) text = text === '' ? title : `${text}: ${title}`;
  if (published !== MISSING) text = text === '' ? published : `${text} (${published})`;
  if (url !== MISSING) text = text === '' ? url : `${text}, ${url}`;
  return text;
}

/** `line1, line2, city, county, postcode, country (type)`. */
function formatAddress(address: ScreeningAddress): string {
  const text = joinPresent(
    [address.line1, address.line2, address.city, address.county, address.postcode, address.countryIsoCode],
    ', ',
  );
  const type = typeof address.addressType === 'string' && address.addressType.trim() !== '' ? address.addressType : '';
  return type === '' ? text : `${text} (${type.trim()})`;
}

/**
 * The object elements of a stored list. Their fields keep their declared types only nominally: the
 * formatters read each one defensively.
 */
function objectsIn<T extends object>(value: unknown): T[] {
  return Array.isArray(value) ? value.filter((element): element is T => isPlainObject(element)) : [];
}

function isPlainObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function row(label: string, value: string): ReportRow {
  return { fields: [field(label, value)] };
}

function section(id: ReportSectionId, title: string, rows: ReportRow[]): ReportSection {
  return { id, title, rows, blocks: [] };
}

function field(label: string, value: string): ReportField {
  return { label, value };
}

/** A coded value in words, its code beside it: `Pending review (PENDING_REVIEW)`. */
export function codeField(label: string, value: unknown): ReportField {
  const { text, code } = humanizeCode(value);
  return code === undefined ? field(label, text) : { label, value: text, detail: code };
}

function codeRow(label: string, value: unknown): ReportRow {
  return { fields: [codeField(label, value)] };
}

/**
 * Age as of the report's generation, from the date of birth; the stored age (as old as the record)
 * only when there is no usable date of birth, and then marked as stored.
 */
function ageRow(label: string, dob: unknown, storedAge: unknown, generatedAt: Date): ReportRow {
  const age = ageOn(dob, generatedAt);
  if (age !== undefined) return row(label, String(age));
  const stored = formatNumber(storedAge);
  return stored === MISSING ? row(label, stored) : { fields: [{ label, value: stored, detail: 'as stored' }] };
}

function pair(first: ReportField, second: ReportField): ReportRow {
  return { fields: [first, second] };
}
