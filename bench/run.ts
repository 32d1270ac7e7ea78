import { spawn } from 'node:child_process';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { check, consoleTable, errorRow, markdownTable, type CheckedRow } from './report.ts';
import type { ChildResult } from './support/child.ts';

/**
 * `npm run bench [-- --check] [--markdown] [--only id,id] [--users n] [--explain] [--soak-minutes n] [--cpu-prof]`:
 * runs every measurement in bench/measurements/ but the opt-in soak (`--only soak`) in fresh
 * processes (the local-stack ones share one), prints
 * the table and writes bench/results/latest.json. `--check` exits 1 when a budget is missed or a
 * measurement fails; `--markdown` prints the table as markdown on stdout (progress stays on
 * stderr); `--explain` prints measurement 7's query plans on stderr as well (they are always
 * written to bench/results/user-status-plans-<n>.txt); `--cpu-prof` writes each measurement
 * process's CPU profile (its threads' too) to bench/results/profiles/, for a budget missed.
 *
 * `npm run bench -- --target <api-url> --token-a <jwt> --token-b <jwt> [--seconds n] [--out file] [--check] [--markdown]`:
 * measurements 12's and 17's requests against a deployed stage instead (./target.ts, contract §25), no local stack;
 * its rows go to bench/results/target.json (or `--out`), never to latest.json (whose rows are the local stack's).
 */

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.dirname(benchDir);
const resultsDir = path.join(benchDir, 'results');

/** In table order. Measurements on the local stack run in one process and share the stack. */
const MEASUREMENTS = [
  { id: 'bundle-size', title: '1 bundle size', timeoutMs: 120_000 },
  // 30 rounds of two process starts per function (about 30 functions): 5.5 min on a 2-core machine.
  { id: 'module-init', title: '2 module init', timeoutMs: 600_000 },
  { id: 'request-overhead', title: '3 request overhead', timeoutMs: 180_000 },
  { id: 'pdf-render', title: '4 PDF render', timeoutMs: 180_000 },
  { id: 'jwt-verify', title: '5 JWT verify', timeoutMs: 60_000 },
  { id: 'report-end-to-end', title: '6 report end to end', timeoutMs: 180_000, localStack: true },
  // Seeding 2 x --users rows and the import (with its ANALYZE) grow with --users: ~10 s at 10,000 users, ~40 s at
  // 100,000, 6-8 min at 1,000,000 on two busy cores. Timeout: 4 min + 2 ms per user (37 min at 1,000,000).
  {
    id: 'user-status-queries',
    title: '7 user-status queries',
    timeoutMs: 240_000,
    localStack: true,
    perUserMs: 2,
  },
  { id: 'local-api-load', title: '8 local API load', timeoutMs: 120_000, localStack: true },
  { id: 'dashboard', title: '9 dashboard', timeoutMs: 180_000, localStack: true },
  { id: 'webhook-emission', title: '10 webhook emission', timeoutMs: 180_000, localStack: true },
  { id: 'audit-and-erasure', title: '11 audit and erasure', timeoutMs: 180_000, localStack: true },
  // 10,000 objects seeded into one sandbox (about 10 s on two busy cores), then one wipe of them.
  { id: 'sandbox-wipe', title: '18 sandbox wipe', timeoutMs: 240_000, localStack: true },
  // 14 report.completed triggers one after another, each rendered and delivered: under a minute.
  { id: 'sandbox-events', title: '19 sandbox event', timeoutMs: 180_000, localStack: true },
  // Its own process and stack, with the contract's request budget (50/s, burst 100): the shared stack's budget is
  // far higher, since the other measurements drive one organization faster than that on purpose.
  { id: 'noisy-neighbour', title: '12 noisy neighbour', timeoutMs: 180_000, localStack: true, contractBudget: true },
  // Its own process and stack with the contract's budget too: 100,000 users of one organization seeded first.
  {
    id: 'expensive-queries',
    title: '17 expensive queries',
    timeoutMs: 360_000,
    localStack: true,
    contractBudget: true,
  },
  // Opt-in (`--only soak`): it runs for --soak-minutes (default 10). Timeout: 3 min of setup + the soak.
  { id: 'soak', title: '13 soak', timeoutMs: 180_000, localStack: true, perSoakMinuteMs: 60_000, optIn: true },
  // Its own process and stack, with DynamoDB Local behind a fault proxy that hangs one request in ten. A token
  // with its e-mail makes about 7 DynamoDB calls, so most of the 200 requests wait out one 1-second attempt: ~4 min.
  {
    id: 'one-attempt-hangs',
    title: '14 one attempt in ten hangs',
    timeoutMs: 420_000,
    localStack: true,
    dynamoDbFaults: true,
  },
  // Dollars: an idle stage from the synthesized template (scripts/cost/).
  { id: 'cost', title: '15 cost', timeoutMs: 240_000 },
  // Its own process and stack, every invocation counted (support/cost-accounting.ts).
  { id: 'operation-cost', title: '16 cost per operation', timeoutMs: 300_000, localStack: true, costAccounting: true },
] as const;

type MeasurementId = (typeof MEASUREMENTS)[number]['id'];

const { values: options } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    markdown: { type: 'boolean', default: false },
    only: { type: 'string' },
    users: { type: 'string' },
    explain: { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
    'soak-minutes': { type: 'string' },
    target: { type: 'string' },
    'token-a': { type: 'string' },
    'token-b': { type: 'string' },
    seconds: { type: 'string' },
    out: { type: 'string' },
  },
});
/** `--soak-minutes <n>`: how long measurement 13 runs (default 10). */
const soakMinutes = options['soak-minutes'] === undefined ? 10 : Number(options['soak-minutes']);
if (!Number.isInteger(soakMinutes) || soakMinutes < 1 || soakMinutes > 240)
  throw new Error('--soak-minutes must be a whole number from 1 to 240');
/** `--users <n>`: the organization size of measurement 7 (default 10,000; its budgets hold at 100,000 and 1,000,000 too). */
const users = options.users === undefined ? 10_000 : Number(options.users);
if (!Number.isInteger(users) || users < 1_000 || users > 5_000_000)
  throw new Error('--users must be a whole number from 1000 to 5000000');
const only = options.only?.split(',').map((id) => id.trim());
const unknown = only?.filter((id) => !MEASUREMENTS.some((m) => m.id === id));
if (unknown?.length)
  throw new Error(`unknown measurement(s) ${unknown.join(', ')}; known: ${MEASUREMENTS.map((m) => m.id).join(', ')}`);
const selected = MEASUREMENTS.filter((m) => (only ? only.includes(m.id) : !('optIn' in m)));

const progress = (message: string): void => void process.stderr.write(`${message}\n`);

if (options.target !== undefined) {
  await runAgainstTarget(options.target);
  process.exit();
}

/** One process per measurement, except that the local-stack ones share one (but the one that needs its own stack). */
const ownsStack = (m: (typeof selected)[number]) =>
  !('localStack' in m) || 'contractBudget' in m || 'dynamoDbFaults' in m || 'costAccounting' in m;
const groups: Array<typeof selected> = [
  ...selected.filter(ownsStack).map((m) => [m]),
  selected.filter((m) => !ownsStack(m)),
].filter((group) => group.length > 0);

const startedAt = new Date();
await mkdir(path.join(resultsDir, 'logs'), { recursive: true });
const rowsById = new Map<MeasurementId, CheckedRow[]>();
for (const group of groups) {
  const ids = group.map((m) => m.id);
  progress(`> ${ids.join(', ')}`);
  const results = await runChild(
    ids,
    group.reduce(
      (sum, m) =>
        sum +
        m.timeoutMs +
        ('perUserMs' in m ? m.perUserMs * users : 0) +
        ('perSoakMinuteMs' in m ? m.perSoakMinuteMs * soakMinutes : 0),
      0,
    ),
    {
      // As the local stack runs its functions; set before the child's imports load the X-Ray SDK.
      ...(group.every((m) => 'localStack' in m) ? { AWS_XRAY_MANUAL_MODE: '1' } : {}),
      ...(group.some((m) => 'contractBudget' in m) ? { BENCH_REQUEST_BUDGET: 'contract' } : {}),
      ...(group.some((m) => 'dynamoDbFaults' in m) ? { BENCH_DYNAMODB_FAULTS: '1' } : {}),
      ...(group.some((m) => 'costAccounting' in m) ? { BENCH_COST_ACCOUNTING: '1' } : {}),
    },
  );
  for (const measurement of group) {
    const result = results.find((r) => r.id === measurement.id);
    if (!result)
      rowsById.set(measurement.id, [
        errorRow(measurement.title, 'no result (crashed or timed out; see bench/results/logs/)'),
      ]);
    else if ('error' in result) rowsById.set(measurement.id, [errorRow(measurement.title, result.error)]);
    else rowsById.set(measurement.id, result.rows.map(check));
  }
}
const rows = selected.flatMap((m) => rowsById.get(m.id) ?? []);
const finishedAt = new Date();

const failures = rows.filter((row) => row.result === 'FAIL' || row.result === 'ERROR');
const machine = {
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
};
// latest.json holds every measurement's latest run: this run's rows, and the rows of measurements it
// left out as an earlier run recorded them, each row with the time of its run (bench/table.ts
// turns it into docs/performance.md's table).
const previous = await readLatestResults();
const measuredRows = MEASUREMENTS.flatMap((m): LatestRow[] => {
  if (selected.some((chosen) => chosen.id === m.id))
    return (rowsById.get(m.id) ?? []).map((row) => ({ ...row, measuredAt: startedAt.toISOString(), users, machine }));
  return previous.filter((row) => row.measurement === m.title);
});
// A profiled run is slowed by its profiler: its figures are not recorded.
if (!options['cpu-prof'])
  await writeFile(
    path.join(resultsDir, 'latest.json'),
    `${JSON.stringify(
      {
        startedAt: startedAt.toISOString(),
        durationSeconds: Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000),
        machine,
        measurements: selected.map((m) => m.id),
        users,
        passed: failures.length === 0,
        rows: measuredRows,
      },
      null,
      2,
    )}\n`,
  );

const summary = `${rows.length - failures.length} of ${rows.length} rows pass or are informational; ${failures.length} missed or failed; ${((finishedAt.getTime() - startedAt.getTime()) / 1000).toFixed(0)} s`;
if (options.markdown) {
  process.stdout.write(`${markdownTable(rows)}\n`);
  progress(`\n${consoleTable(rows)}\n\n${summary}`);
} else {
  process.stdout.write(
    `\n${consoleTable(rows)}\n\n${summary}\n${
      options['cpu-prof']
        ? `Profiles: ${path.relative(repoRoot, path.join(resultsDir, 'profiles'))} (figures not recorded)`
        : `Results: ${path.relative(repoRoot, path.join(resultsDir, 'latest.json'))}`
    }\n`,
  );
}
if (options.check && failures.length > 0) process.exitCode = 1;

/** Runs bench/support/child.ts for `ids` in its own process group, killed (with anything it started) on timeout. */
async function runChild(
  ids: readonly string[],
  timeoutMs: number,
  extraEnv: Record<string, string> = {},
): Promise<ChildResult[]> {
  const resultFile = path.join(resultsDir, `.${ids[0]}.json`);
  const logFile = path.join(resultsDir, 'logs', `${ids.join('+')}.log`);
  await rm(resultFile, { force: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    BENCH_USERS: String(users),
    BENCH_SOAK_MINUTES: String(soakMinutes),
    ...(options.explain ? { BENCH_EXPLAIN: '1' } : {}),
    ...extraEnv,
  };
  // It adds tens of milliseconds to every Node.js start here, and Lambda does not set it.
  delete env.NODE_EXTRA_CA_CERTS;
  const log = await open(logFile, 'w');
  const child = spawn(
    process.execPath,
    // --expose-gc: the soak samples memory after a full collection; nothing else calls gc().
    [
      '--expose-gc',
      ...(options['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.join(resultsDir, 'profiles')}`] : []),
      '--import',
      'tsx',
      path.join(benchDir, 'support', 'child.ts'),
      resultFile,
      ...ids,
    ],
    {
      cwd: repoRoot,
      env,
      detached: true, // its own process group, so a timeout also stops DynamoDB Local's Java process
      stdio: ['ignore', log.fd, 'inherit'],
    },
  );
  const timer = setTimeout(() => {
    progress(`  timed out after ${timeoutMs / 1000} s; stopping ${ids.join(', ')}`);
    killGroup(child.pid, 'SIGTERM');
    setTimeout(() => killGroup(child.pid, 'SIGKILL'), 5_000).unref();
  }, timeoutMs);
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  clearTimeout(timer);
  killGroup(child.pid, 'SIGKILL'); // whatever the child left behind
  await log.close();
  try {
    return JSON.parse(await readFile(resultFile, 'utf8')) as ChildResult[];
  } catch {
    return [];
  } finally {
    await rm(resultFile, { force: true });
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** A row of latest.json: a checked row with the run it came from. */
type LatestRow = CheckedRow & { measuredAt: string; users: number; machine: object };

async function readLatestResults(): Promise<LatestRow[]> {
  try {
    const latest = JSON.parse(await readFile(path.join(resultsDir, 'latest.json'), 'utf8')) as {
      startedAt: string;
      users: number;
      machine: object;
      rows: Array<CheckedRow & Partial<LatestRow>>;
    };
    // Files written before rows carried their run take the file's.
    return latest.rows.map((row) => ({
      ...row,
      measuredAt: row.measuredAt ?? latest.startedAt,
      users: row.users ?? latest.users,
      machine: row.machine ?? latest.machine,
    }));
  } catch {
    return [];
  }
}

/** `--target`: ./target.ts against a deployed stage, its table on stdout, bench/results/target.json. */
async function runAgainstTarget(target: string): Promise<void> {
  const seconds = options.seconds === undefined ? 10 : Number(options.seconds);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 300)
    throw new Error('--seconds must be a whole number from 1 to 300');
  const tokenA = options['token-a'];
  const tokenB = options['token-b'];
  if (!tokenA || !tokenB) throw new Error('--target needs --token-a and --token-b: tokens of two organizations');
  if (!/^https?:\/\//.test(target)) throw new Error('--target must be the API address, http(s)://...');
  // Loaded only here: the local runs never need it.
  const { measureTarget, requestsSent } = await import('./target.ts');
  const sent = requestsSent(seconds);
  progress(`target ${target}: about ${sent.a + sent.b} requests (A ${sent.a}, B ${sent.b}), ${seconds} s per flood`);
  const startedAt = new Date();
  let rows: CheckedRow[];
  try {
    rows = (await measureTarget({ baseUrl: target, tokenA, tokenB, seconds, log: progress })).map(check);
  } catch (error) {
    process.stdout.write(`bench --target: stopped: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const failures = rows.filter((row) => row.result === 'FAIL');
  const out = options.out ?? path.join(resultsDir, 'target.json');
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(
    out,
    `${JSON.stringify({ startedAt: startedAt.toISOString(), target, seconds, requestsSent: sent, rows }, null, 2)}\n`,
  );
  const summary = `${rows.length - failures.length} of ${rows.length} rows pass or are informational; ${failures.length} missed`;
  process.stdout.write(
    options.markdown
      ? `${markdownTable(rows)}\n`
      : `\n${consoleTable(rows)}\n\n${summary}\nResults: ${path.relative(process.cwd(), out)}\n`,
  );
  if (options.markdown) progress(summary);
  if (options.check && failures.length > 0) process.exitCode = 1;
}
