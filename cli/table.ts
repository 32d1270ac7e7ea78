/** Records as a text table: one column per key, a header and a rule; null and missing cells stay empty. */
export function formatTable(
  records: ReadonlyArray<Record<string, unknown>>,
  keys: readonly string[],
  maxCellWidth = Infinity,
): string {
  const cell = (value: unknown): string => {
    // Cells hold JSON values: strings as they are, everything else as JSON text.
    const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
    const flat = text.replace(/\s+/g, ' ');
    return flat.length > maxCellWidth ? `${flat.slice(0, maxCellWidth - 1)}…` : flat;
  };
  const rows = records.map((record) => keys.map((key) => cell(record[key])));
  const widths = keys.map((key, column) => Math.max(key.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((text, column) => text.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(keys), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
