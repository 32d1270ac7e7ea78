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
