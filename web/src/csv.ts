/**
 * RFC 4180 CSV: every cell quoted when it holds a comma, quote or line break; objects as JSON.
 * A text cell starting with =, +, -, @, tab or carriage return is prefixed with `'` so a
 * spreadsheet never runs it as a formula (CSV injection); numbers are written as they are.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
