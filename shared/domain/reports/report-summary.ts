import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { codeField, row, screeningOf, type ReportContext, type ReportRow } from './report-content.ts';
import { MISSING, formatText } from './report-values.ts';

/**
 * The box at the top of page 1: where the user stands (registration, screening, matches) and
 * anything that needs a reader's attention, so that a flagged screening is seen without turning a
 * page.
 */
export interface ReportSummary {
  title: string;
  rows: ReportRow[];
  /** What needs attention, in words; empty when nothing does. */
  flags: string[];
}

/** Screening statuses (compared as lower-case words) that mean a possible match still stands. */
const FLAGGED_SCREENING = new Set(['flagged', 'potential match', 'match', 'confirmed match', 'true match', 'hit']);

export const NO_FLAGS = 'None';

export function reportSummary(user: UserRecord, context: ReportContext): ReportSummary {
  const { result, peps, sanctions } = screeningOf(user);
  const flags = reportFlags(user);
  return {
    title: 'Summary',
    flags,
    rows: [
      { fields: [codeField('Registration', user.registration_status)] },
      { fields: [codeField('Mobile registration', user.mobile_registration_status)] },
      { fields: [codeField('Screening', user.idcheck_pep_sanction_status)] },
      { fields: [codeField('Screening result', result?.status)] },
      row(
        'Matches',
        `${countOf(peps.length, 'PEP match', 'PEP matches')}, ${countOf(sanctions.length, 'sanction match', 'sanction matches')}`,
      ),
      {
        fields: [
          flags.length === 0
            ? { label: 'Flags', value: NO_FLAGS }
            : { label: 'Flags', value: flags.join('\n'), tone: 'alert' },
        ],
      },
      row('Requested by', formatText(context.requestedBy)),
    ],
  };
}

/**
 * What a reader must not miss: a screening that is flagged (by the user's screening status or the
 * result's), a deleted record, a rejected registration, a failed identity verification.
 */
export function reportFlags(user: UserRecord): string[] {
  const { result, peps, sanctions } = screeningOf(user);
  const flags: string[] = [];
  if ([user.idcheck_pep_sanction_status, result?.status].some(isFlaggedScreening)) {
    const matches = peps.length + sanctions.length;
    flags.push(
      matches === 0 ? 'Screening flagged' : `Screening flagged: ${countOf(matches, 'match', 'matches')} to review`,
    );
  }
  if (user.is_deleted === true) flags.push('Record deleted');
  if (words(user.registration_status) === 'rejected') flags.push('Registration rejected');
  if (verificationFailed(user)) flags.push('Identity verification failed');
  return flags;
}

function isFlaggedScreening(status: unknown): boolean {
  return FLAGGED_SCREENING.has(words(status));
}

function verificationFailed(user: UserRecord): boolean {
  const mobile = words(user.mobile_registration_status);
  return (
    mobile.endsWith(' failed') ||
    ['fail', 'failed'].includes(words(user.provider_high_level_result)) ||
    ['fail', 'failed'].includes(words(user.high_level_result))
  );
}

/** A status as lower-case words: `POTENTIAL_MATCH` and `Potential match` compare equal. */
function words(value: unknown): string {
  const text = formatText(value);
  return text === MISSING ? '' : text.toLowerCase().replace(/[_-]+/g, ' ');
}

function countOf(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
