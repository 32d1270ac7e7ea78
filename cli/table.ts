import stringWidth from 'string-width';

/**
 * Records as a text table: one column per key, a header and a rule; null and missing cells stay
 * empty. Widths are terminal columns (string-width: CJK and emoji take two, combining marks none),
 * so columns line up whatever the script of the names.
 */
export function formatTable(
  records: ReadonlyArray<Record<string, unknown>>,
  keys: readonly string[],
  maxCellWidth = Infinity,
): string {
  const cell = (value: unknown): string => {
    // Cells hold JSON values: strings as they are, everything else as JSON text.
    const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
    return truncate(text.replace(/\s+/g, ' '), maxCellWidth);
  };
  const rows = records.map((record) => keys.map((key) => cell(record[key])));
  const widths = keys.map((key, column) => Math.max(stringWidth(key), ...rows.map((row) => stringWidth(row[column]!))));
  const line = (cells: readonly string[]): string =>
    cells
      .map((text, column) => text + ' '.repeat(widths[column]! - stringWidth(text)))
      .join('  ')
      .trimEnd();
  return [line(keys), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** At most `maxWidth` columns, cut between graphemes (never inside a character or a cluster), `…` marking a cut. */
function truncate(text: string, maxWidth: number): string {
  if (stringWidth(text) <= maxWidth) return text;
  let kept = '';
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    if (stringWidth(kept + segment) > maxWidth - 1) break;
    kept += segment;
  }
  return `${kept}…`;
}
