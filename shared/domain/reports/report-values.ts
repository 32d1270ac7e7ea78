/**
 * How record values read on paper. Records come from storage, so each formatter accepts any value
 * and falls back to plain text (or the missing mark) instead of throwing on a surprising type.
 */

/** Shown for a field that has no value. */
export const MISSING = '—';

export function formatText(value: unknown): string {
  if (value === undefined || value === null) return MISSING;
  if (typeof value === 'string') return value.trim() === '' ? MISSING : value.trim();
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'boolean') return formatYesNo(value);
  if (Array.isArray(value)) return value.length === 0 ? MISSING : value.map(formatText).join(', ');
  return JSON.stringify(value);
}

export function formatYesNo(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return formatText(value);
}

/** Whole numbers as they are, others with two decimals. */
export function formatNumber(value: unknown): string {
  if (typeof value !== 'number') return formatText(value);
  if (!Number.isFinite(value)) return MISSING;
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

/** Verification scores always with two decimals, so a column of them lines up. */
export function formatScore(value: unknown): string {
  if (typeof value !== 'number') return formatText(value);
  return Number.isFinite(value) ? value.toFixed(2) : MISSING;
}

/** An ISO 8601 instant as `2026-11-03 14:05:09 UTC`; anything unparsable is shown as given. */
export function formatInstant(value: unknown): string {
  if (value instanceof Date) return formatUtc(value);
  if (typeof value !== 'string' || value.trim() === '') return formatText(value);
  const instant = new Date(value);
  return Number.isNaN(instant.getTime()) ? value.trim() : formatUtc(instant);
}

export function formatUtc(instant: Date): string {
  if (Number.isNaN(instant.getTime())) return MISSING;
  return `${instant.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** The number of entries of a list, `0` for an empty or missing one. */
export function formatCount(value: unknown): string {
  return String(Array.isArray(value) ? value.length : 0);
}

/** Parts that are present, joined by `separator`; the missing mark when none is. */
export function joinPresent(parts: unknown[], separator: string): string {
  const present = parts
    .filter((part): part is string | number => typeof part === 'string' || typeof part === 'number')
    .map((part) => String(part).trim())
    .filter((part) => part !== '');
  return present.length === 0 ? MISSING : present.join(separator);
}

/** A coded value as a reader sees it: words, and the stored code when it reads differently. */
export interface HumanizedCode {
  text: string;
  /** The value as stored; absent when it reads the same as `text` or is missing. */
  code?: string;
}

/** A stored code: `UPPER_CASE` or `lower_case` words, joined by `_` or `-` (or one upper-case word). */
const CODE = /^(?:[A-Z0-9]+(?:[_-][A-Z0-9]+)*|[a-z0-9]+(?:[_-][a-z0-9]+)+)$/;
/** Words of codes written as readers write them. */
const CODE_WORDS: Record<string, string> = {
  id: 'ID',
  idcheck: 'ID check',
  pep: 'PEP',
  qr: 'QR',
  mlro: 'MLRO',
  facematch: 'face match',
  sms: 'SMS',
};

/**
 * `PENDING_REVIEW` / `pending_review` as `Pending review`, keeping the code beside it. A value that
 * is already words (`For Review`, `Activated`) is shown as stored, without a code.
 */
export function humanizeCode(value: unknown): HumanizedCode {
  const stored = formatText(value);
  if (typeof value !== 'string' || stored === MISSING || !CODE.test(stored)) return { text: stored };
  const words = stored
    .toLowerCase()
    .split(/[_-]/)
    .map((word) => CODE_WORDS[word] ?? word)
    .join(' ');
  const text = words.charAt(0).toUpperCase() + words.slice(1);
  return text === stored ? { text } : { text, code: stored };
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Whole years from the date of birth `dob` (`YYYY-MM-DD`) to `at` (in UTC); undefined when `dob` is
 * not a real calendar date or lies after `at`. Someone born on 29 February turns a year older on
 * 1 March in a common year.
 */
export function ageOn(dob: unknown, at: Date): number | undefined {
  if (typeof dob !== 'string') return undefined;
  const match = ISO_DATE.exec(dob.trim());
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const birth = new Date(Date.UTC(year, month - 1, day));
  if (birth.getUTCFullYear() !== year || birth.getUTCMonth() !== month - 1 || birth.getUTCDate() !== day) {
    return undefined;
  }
  if (Number.isNaN(at.getTime()) || birth.getTime() > at.getTime()) return undefined;
  const [nowMonth, nowDay] = [at.getUTCMonth() + 1, at.getUTCDate()];
  const hadBirthday = nowMonth > month || (nowMonth === month && nowDay >= day);
  return at.getUTCFullYear() - year - (hadBirthday ? 0 : 1);
}
