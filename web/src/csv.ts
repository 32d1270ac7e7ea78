/**
 * CSV for spreadsheets (contract §15), RFC 4180 with CRLF line ends:
 * - every text cell is quoted (embedded quotes doubled; commas and line breaks stay inside the
 *   quotes); objects are written as JSON text. Only real numbers (finite `number`s and `bigint`s)
 *   and booleans are written bare: a string of digits is still text and still quoted;
 * - a text cell a spreadsheet could run as a formula gets a leading `'` (CSV injection): one that
 *   starts with `=`, `+`, `-`, `@`, tab or carriage return, also after leading white space
 *   (` =1+1`) and in the full-width and small forms (`＝ ＋ － ＠`, `﹦ ﹢ ﹣ ﹫`) that some
 *   spreadsheets and input methods treat as the ASCII ones. A `;` or any other start is left alone;
 * - the file begins with a UTF-8 byte-order mark (`csvFile`), so spreadsheets read non-ASCII
 *   names (Ångström, כהן) as UTF-8 rather than in the system's code page.
 */

export const CSV_BYTE_ORDER_MARK = '\uFEFF';

/** A formula start: tab or CR first, or one of the formula characters after any leading white space. */
const FORMULA_START = /^(?:[\t\r]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B])/u;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return String(value);
  return quoted(neutralised(typeof value === 'string' ? value : textOf(value)));
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** The whole file: the byte-order mark, then the lines (each from `csvLine`) as they are. */
export function csvFile(lines: readonly string[]): string {
  return CSV_BYTE_ORDER_MARK + lines.join('');
}

function neutralised(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

function quoted(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** NaN and ±Infinity by name, anything else as JSON (what JSON cannot write, such as a symbol, as `String` writes it). */
function textOf(value: unknown): string {
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value) ?? String(value);
}
