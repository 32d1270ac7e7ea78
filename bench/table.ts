import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { markdownTable, type CheckedRow } from './report.ts';

/**
 * `npm run bench:table`: writes the table of every measurement's latest run, from
 * bench/results/latest.json, into docs/performance.md between its `bench-table` markers, with the
 * date, machine and organization size each measurement ran with. Run `npm run bench` first. The
 * rows and run line of a measurement latest.json does not hold (a fresh checkout ran only some)
 * stay as the page has them, in measurement order.
 */

const repoRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const START = '<!-- bench-table:start (npm run bench:table writes this part) -->';
const END = '<!-- bench-table:end -->';

interface LatestRow extends CheckedRow {
  measuredAt: string;
  users: number;
  machine: { node?: string; cpus?: number; cpu?: string };
}

const latest = JSON.parse(await readFile(path.join(repoRoot, 'bench/results/latest.json'), 'utf8')) as {
  rows: LatestRow[];
};
const runs = new Map<string, LatestRow>();
for (const row of latest.rows) if (!runs.has(row.measurement)) runs.set(row.measurement, row);

const file = path.join(repoRoot, 'docs/performance.md');
const page = await readFile(file, 'utf8');
const start = page.indexOf(START);
const end = page.indexOf(END);
if (start < 0 || end < start) throw new Error(`docs/performance.md has no ${START} ... ${END} section`);
const kept = page
  .slice(start, end)
  .split('\n')
  .map((line) => ({ line, measurement: measurementOf(line) }))
  .filter(({ measurement }) => measurement !== undefined && !runs.has(measurement));
const tableLines = markdownTable(latest.rows).split('\n');
const rowLines = [
  ...tableLines.slice(2).map((line) => ({ line, measurement: measurementOf(line)! })),
  ...kept.filter(({ line }) => line.startsWith('|')),
];
const runLines = [
  ...[...runs.values()].map((row) => ({
    measurement: row.measurement,
    line:
      `- ${row.measurement}: ${row.measuredAt.slice(0, 16).replace('T', ' ')} UTC, Node ${row.machine.node ?? '?'}, ` +
      `${row.machine.cpus ?? '?'} × ${row.machine.cpu ?? '?'}` +
      (row.measurement.startsWith('7 ') ? `, ${row.users.toLocaleString('en-US')} users` : ''),
  })),
  ...kept.filter(({ line }) => line.startsWith('- ')),
];
const inOrder = (lines: Array<{ line: string; measurement: string | undefined }>) =>
  lines
    .map((entry, index) => ({ ...entry, index }))
    .sort((a, b) => numberOf(a.measurement) - numberOf(b.measurement) || a.index - b.index)
    .map(({ line }) => line);
const section = [
  START,
  '',
  ...tableLines.slice(0, 2),
  ...inOrder(rowLines),
  '',
  'Each measurement’s run:',
  '',
  ...inOrder(runLines),
  '',
  END,
].join('\n');
const written = page.slice(0, start) + section + page.slice(end + END.length);
// Formatted as `npm run lint` checks it (Prettier aligns the table's columns).
await writeFile(file, await format(written, { ...(await resolveConfig(file)), filepath: file }));
process.stdout.write(
  `docs/performance.md: ${latest.rows.length} rows from bench/results/latest.json, ${kept.length} lines kept\n`,
);

/** The measurement a table row (`| 15 cost | ...`) or run line (`- 15 cost: ...`) is about. */
function measurementOf(line: string): string | undefined {
  return /^\| (\d+ [^|]*?) +\|/.exec(line)?.[1] ?? /^- (\d+ [^:]+):/.exec(line)?.[1];
}

/** Measurements are titled by their number (`15 cost`). */
function numberOf(measurement: string | undefined): number {
  return Number.parseInt(measurement ?? '', 10);
}
