import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { markdownTable, type CheckedRow } from './report.ts';

/**
 * `npm run bench:table`: writes the table of every measurement's latest run, from
 * bench/results/latest.json, into docs/performance.md between its `bench-table` markers, with the
 * date, machine and organization size each measurement ran with. Run `npm run bench` first.
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
const runLines = [...runs.values()].map(
  (row) =>
    `- ${row.measurement}: ${row.measuredAt.slice(0, 16).replace('T', ' ')} UTC, Node ${row.machine.node ?? '?'}, ` +
    `${row.machine.cpus ?? '?'} × ${row.machine.cpu ?? '?'}` +
    (row.measurement.startsWith('7 ') ? `, ${row.users.toLocaleString('en-US')} users` : ''),
);
const section = [START, '', markdownTable(latest.rows), '', 'Each measurement’s run:', '', ...runLines, '', END].join(
  '\n',
);

const file = path.join(repoRoot, 'docs/performance.md');
const page = await readFile(file, 'utf8');
const start = page.indexOf(START);
const end = page.indexOf(END);
if (start < 0 || end < start) throw new Error(`docs/performance.md has no ${START} ... ${END} section`);
const written = page.slice(0, start) + section + page.slice(end + END.length);
// Formatted as `npm run lint` checks it (Prettier aligns the table's columns).
await writeFile(file, await format(written, { ...(await resolveConfig(file)), filepath: file }));
process.stdout.write(`docs/performance.md: ${latest.rows.length} rows from bench/results/latest.json\n`);
