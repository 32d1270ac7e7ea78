import { single, summarize, type Row } from '#bench/report.ts';
import { sleep } from './timing.ts';

/** How often the sampler reads `pg_stat_activity`. */
const SAMPLE_EVERY_MS = 50;

/** One sample: statements running (client backends), and the processes running them (parallel workers too). */
export interface RunningStatements {
  statements: number;
  processes: number;
}

/**
 * Every SAMPLE_EVERY_MS while `more()`: how many statements whose text is `LIKE textPattern` the
 * local PostgreSQL runs at once (contract §25 samples an organization's running statements from
 * `pg_stat_activity`). A statement is a client backend's: its parallel workers run the same
 * statement, and one request runs its statements one after another on one connection. The
 * statements carry no organization (it is a bound parameter), so a measurement gives the
 * organization it samples a query whose text no other organization sends.
 */
export async function sampleRunningStatements(
  admin: { query: <T extends object>(text: string, values?: readonly unknown[]) => Promise<T[]> },
  textPattern: string,
  more: () => boolean,
): Promise<RunningStatements[]> {
  const samples: RunningStatements[] = [];
  while (more()) {
    const [row] = await admin.query<RunningStatements>(
      `SELECT count(*) FILTER (WHERE backend_type = 'client backend')::int AS statements, count(*)::int AS processes
         FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`,
      [textPattern],
    );
    samples.push(row ?? { statements: 0, processes: 0 });
    await sleep(SAMPLE_EVERY_MS);
  }
  return samples;
}

/** What names a row: its measurement and its subject, which stay as each bench words them. */
interface RowName {
  measurement: string;
  subject: string;
}

const p99 = (samples: readonly number[]) => summarize(samples, { p99: true }).p99!;

/** A's statements at once: the most of them sampled, within its database requests in flight. */
function statementsAtOnce(
  name: RowName,
  samples: readonly RunningStatements[],
  requestsInFlightPerOrganization: number,
): Row {
  const statements = samples.map((sample) => sample.statements);
  return {
    ...name,
    unit: 'count',
    value: single(Math.max(0, ...statements)),
    budget: { on: 'median', max: requestsInFlightPerOrganization },
    note:
      `contract §25: at most the organization's database requests in flight; ${statements.length} samples 50 ms ` +
      `apart, median ${summarize(statements.length > 0 ? statements : [0]).median}; client backends only`,
  };
}

/** B's median over A's flood, within `maxRatio` of B's quiet median in the same run. */
function quietMedianUnderFlood(
  name: RowName,
  times: { quietMs: readonly number[]; underFloodMs: readonly number[]; floodSeconds: number },
  maxRatio: number,
): Row {
  return {
    ...name,
    unit: 'ms',
    value: single(summarize(times.underFloodMs).median),
    baseline: { subject: 'org B quiet median, same run', value: single(summarize(times.quietMs).median) },
    budget: { on: 'ratio', max: maxRatio },
    note: `contract §25; ${times.underFloodMs.length} queries over ${times.floodSeconds} s`,
  };
}

/** B's p99 over A's flood, reported locally: contract §25 budgets it (`maxRatio`) against a deployed stage. */
function quietP99UnderFlood(
  name: RowName,
  times: { quietMs: readonly number[]; underFloodMs: readonly number[] },
  maxRatio: number,
): Row {
  return {
    ...name,
    unit: 'ms',
    value: single(p99(times.underFloodMs)),
    baseline: { subject: 'org B quiet p99, same run', value: single(p99(times.quietMs)) },
    note: `${times.underFloodMs.length} queries; budgeted (<= ${maxRatio}x) against a deployed stage: npm run bench -- --target`,
  };
}

/** B's requests answered 429 or not at all (0): contract §25 allows none. */
function quietRefused(name: RowName, statuses: readonly number[]): Row {
  return {
    ...name,
    unit: 'count',
    value: single(statuses.filter((status) => status === 429 || status === 0).length),
    budget: { on: 'median', max: 0 },
  };
}

/**
 * Contract §25's rows for one organization (A) flooding while another (B) queries, as benches 12 and 17 and `--target`
 * write them; each bench words its own subjects.
 */
export const neighbourRows = { statementsAtOnce, quietMedianUnderFlood, quietP99UnderFlood, quietRefused };
