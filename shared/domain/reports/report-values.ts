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
