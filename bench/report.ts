/**
 * The one reporter every measurement goes through: medians (and p99 where asked) from raw
 * samples, the ratio to a baseline measured in the same run, the budget and whether it is met;
 * then the console table, the markdown table and `bench/results/latest.json`.
 */

export type Unit = 'ms' | 's' | 'KB' | 'req/s' | 'users/s' | 'count' | 'RCU' | 'USD';

/** A summary of samples. `n` is how many samples it summarises. */
export interface Stat {
  median: number;
  p99?: number;
  n: number;
}

/**
 * A limit on the median, the p99 or the ratio (median / baseline median); always "at most". A
 * ratio budget may allow `plus` units on top: the median at most `max` x the baseline's + `plus`.
 */
export interface Budget {
  on: 'median' | 'p99' | 'ratio';
  max: number;
  plus?: number;
}

/** One line of the table, as a measurement reports it. */
export interface Row {
  measurement: string;
  subject: string;
  unit: Unit;
  value: Stat;
  baseline?: { subject: string; value: Stat };
  /** Several budgets: the row passes when it meets every one. */
  budget?: Budget | readonly Budget[];
  note?: string;
}

/** A row with its ratio and verdict; `error` rows come from a measurement that could not finish. */
export interface CheckedRow extends Row {
  ratio?: number;
  result: 'pass' | 'FAIL' | 'info' | 'ERROR';
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** Nearest-rank percentile of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error('no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function summarize(samples: readonly number[], options: { p99?: boolean } = {}): Stat {
  return { median: median(samples), ...(options.p99 ? { p99: percentile(samples, 99) } : {}), n: samples.length };
}

/** A single figure (a size, a count) as a Stat. */
export const single = (value: number): Stat => ({ median: value, n: 1 });

const budgetsOf = (row: Row): readonly Budget[] =>
  row.budget === undefined ? [] : Array.isArray(row.budget) ? row.budget : [row.budget as Budget];

function meets(row: Row, budget: Budget, ratio: number | undefined): boolean {
  if (budget.on === 'ratio' && budget.plus !== undefined) {
    const baseline = row.baseline?.value.median;
    return baseline !== undefined && row.value.median <= budget.max * baseline + budget.plus;
  }
  const measured = budget.on === 'ratio' ? ratio : budget.on === 'p99' ? row.value.p99 : row.value.median;
  return measured !== undefined && measured <= budget.max;
}

export function check(row: Row): CheckedRow {
  const ratio =
    row.baseline && row.baseline.value.median > 0 ? row.value.median / row.baseline.value.median : undefined;
  const budgets = budgetsOf(row);
  if (budgets.length === 0) return { ...row, ...(ratio === undefined ? {} : { ratio }), result: 'info' };
  const pass = budgets.every((budget) => meets(row, budget, ratio));
  return { ...row, ...(ratio === undefined ? {} : { ratio }), result: pass ? 'pass' : 'FAIL' };
}

export function errorRow(measurement: string, message: string): CheckedRow {
  return {
    measurement,
    subject: '(did not finish)',
    unit: 'count',
    value: { median: Number.NaN, n: 0 },
    note: message,
    result: 'ERROR',
  };
}

// ---------------------------------------------------------------------------------------------
// Formatting

function formatNumber(value: number | undefined, unit: Unit): string {
  if (value === undefined || Number.isNaN(value)) return '–';
  if (unit === 'ms' && value < 0.01) return `${value.toPrecision(2)} ms`;
  // Dollars per 1,000 operations are fractions of a cent apart.
  if (unit === 'USD') return `${value.toFixed(value < 1 ? 4 : 2)} USD`;
  const digits =
    unit === 'ms'
      ? value < 1
        ? 3
        : value < 10
          ? 2
          : value < 100
            ? 1
            : 0
      : unit === 'KB' || unit === 'RCU' || unit === 's'
        ? 1
        : 0;
  return `${value.toFixed(digits)} ${unit}`;
}

function formatRatio(ratio: number | undefined): string {
  if (ratio === undefined) return '–';
  return `${ratio < 10 ? ratio.toFixed(2) : ratio.toFixed(0)}x`;
}

function formatBudget(row: Row): string {
  const budgets = budgetsOf(row);
  if (budgets.length === 0) return '–';
  return budgets
    .map(({ on, max, plus }) => {
      if (on === 'ratio') return `<= ${max}x${plus === undefined ? '' : ` + ${plus} ${row.unit}`}`;
      if (row.unit === 'count' && max === 0) return '= 0';
      return `${on === 'p99' ? 'p99 ' : ''}<= ${max} ${row.unit}`;
    })
    .join(', ');
}

const COLUMNS = ['measurement', 'subject', 'median', 'p99', 'baseline (median)', 'ratio', 'budget', 'result'] as const;

function cells(row: CheckedRow): string[] {
  return [
    row.measurement,
    row.subject,
    formatNumber(row.value.median, row.unit),
    formatNumber(row.value.p99, row.unit),
    row.baseline ? `${row.baseline.subject}: ${formatNumber(row.baseline.value.median, row.unit)}` : '–',
    formatRatio(row.ratio),
    formatBudget(row),
    row.result,
  ];
}

/** A plain-text table for the terminal, with notes (what dominates a failing bundle, say) under it. */
export function consoleTable(rows: readonly CheckedRow[]): string {
  const table = [COLUMNS.map(String), ...rows.map(cells)];
  const widths = COLUMNS.map((_, column) => Math.max(...table.map((line) => (line[column] as string).length)));
  const line = (values: string[]) =>
    values
      .map((value, column) => value.padEnd(widths[column] as number))
      .join('  ')
      .trimEnd();
  const out = [
    line(table[0] as string[]),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...table.slice(1).map(line),
  ];
  const notes = rows
    .filter((row) => row.note)
    .map(
      (row) => `  ${row.result === 'info' ? '' : `[${row.result}] `}${row.measurement} / ${row.subject}: ${row.note}`,
    );
  return [...out, ...(notes.length ? ['', 'Notes:', ...notes] : [])].join('\n');
}

/** The same table in GitHub markdown, for the README. */
export function markdownTable(rows: readonly CheckedRow[]): string {
  const escape = (value: string) => value.replaceAll('|', '\\|');
  return [
    `| ${COLUMNS.join(' | ')} |`,
    `|${COLUMNS.map((column) => (column === 'measurement' || column === 'subject' ? '---' : '---:')).join('|')}|`,
    ...rows.map((row) => `| ${cells(row).map(escape).join(' | ')} |`),
  ].join('\n');
}
