import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqlRunner } from './users-database.ts';
import { backfillNameWords } from './user-name-words.ts';

/**
 * The users database's schema, as numbered SQL files in `migrations/` (0001_users.sql, ...), each
 * applied once, in order, and recorded with its SHA-256 in `schema_migration_files`. An applied
 * file is frozen: a run that finds one changed (or gone) stops before it applies anything, naming
 * the file. A new column or index is a new file. Written in the subset of PostgreSQL that Aurora
 * DSQL accepts (docs/user-status.md "Schema"): one statement per transaction, `CREATE INDEX ASYNC`,
 * a replaced index dropped only in a statement after its replacement's.
 *
 * Every statement is idempotent (IF NOT EXISTS, IF EXISTS), so a run that stopped half-way leaves
 * the previous schema usable (nothing is dropped before what replaces it is built) and the next
 * run finishes the file. The runner's database retries a conflict (40001) statement by statement
 * (users-database.ts).
 *
 * A run may have until a deadline (the migration custom resource's invocation): on DSQL an index
 * can take longer to build than one invocation lasts, so the run then stops, its file unrecorded,
 * and the next run waits for the same build instead of starting anything else.
 */

export type SqlDialect = 'dsql' | 'postgres';

export interface Migration {
  version: number;
  /** The file's name, e.g. `0001_users.sql`: what the record and every error name. */
  file: string;
  /** SHA-256 (hex) of the file's bytes. */
  sha256: string;
  /** The file's statements, comments removed, each run on its own. */
  statements: readonly string[];
  /** Data the new schema needs from rows written before it, after the statements; safe to run again. */
  backfill?: (database: Pick<SqlRunner, 'query'>) => Promise<unknown>;
}

/**
 * Next to this module in the sources; in the migration function's bundle next to `index.js` (the
 * bundle's import.meta.url, lib/bundling.ts), where its build copies the folder
 * (lib/users-database-construct.ts).
 */
export const USERS_MIGRATIONS_FOLDER = 'migrations';
export const defaultMigrationsFolder = (): string =>
  fileURLToPath(new URL(`./${USERS_MIGRATIONS_FOLDER}/`, import.meta.url));

const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

/** Code a file's data step needs (a file itself is only SQL). */
const BACKFILLS: Readonly<Record<string, Migration['backfill']>> = {
  '0004_user_name_words.sql': backfillNameWords,
};

/** Reads the migration files of `folder`, in version order; versions must run 1, 2, 3, ... without a gap. */
export function readMigrations(folder: string = defaultMigrationsFolder()): Migration[] {
  const files = readdirSync(folder)
    .filter((name) => name.endsWith('.sql'))
    .sort();
  return files.map((file, index) => {
    const match = MIGRATION_FILE.exec(file);
    if (!match) throw new Error(`migration file ${file} is not named NNNN_words.sql`);
    const version = Number(match[1]);
    if (version !== index + 1) throw new Error(`migration file ${file} should be number ${index + 1}`);
    const bytes = readFileSync(path.join(folder, file));
    const backfill = BACKFILLS[file];
    return {
      version,
      file,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      statements: splitStatements(bytes.toString('utf8')),
      ...(backfill ? { backfill } : {}),
    };
  });
}

let cached: Migration[] | undefined;
/** The service's migrations, read once per process. */
export function usersMigrations(): readonly Migration[] {
  cached ??= readMigrations();
  return cached;
}

/**
 * A file's statements: `--` comment lines dropped, split at each `;` that ends a line. The files
 * hold no string literal or body with a `;` at a line end (test/unit/users/users-migrations.test.ts).
 */
export function splitStatements(sql: string): string[] {
  const withoutComments = sql
    .split('\n')
    .filter((line) => !/^\s*--/.test(line))
    .join('\n');
  return withoutComments
    .split(/;[ \t]*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
}

/** The statement as the dialect takes it: a local PostgreSQL knows no ASYNC and builds an index within the statement. */
export const forDialect = (statement: string, dialect: SqlDialect): string =>
  dialect === 'postgres' ? statement.replace(/^CREATE (UNIQUE )?INDEX ASYNC /, 'CREATE $1INDEX ') : statement;

const CREATE_INDEX_ASYNC = /^CREATE (?:UNIQUE )?INDEX ASYNC (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*) ON /;

/** The index a `CREATE INDEX ASYNC` statement builds (the files always name it); undefined for any other statement. */
export const indexBuiltBy = (statement: string): string | undefined => CREATE_INDEX_ASYNC.exec(statement)?.[1];

export const MIGRATIONS_TABLE = 'schema_migration_files';
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
  version integer PRIMARY KEY,
  file_name text NOT NULL,
  sha256 text NOT NULL,
  applied_at text NOT NULL
)`;

/**
 * DSQL: the job that builds each index the files create, written as soon as `CREATE INDEX ASYNC`
 * answers it, so that a later run (the next poll of the custom resource, or the next deploy) waits
 * for that job instead of going past an index that is not built yet.
 */
export const INDEX_JOBS_TABLE = 'schema_migration_index_jobs';
const CREATE_INDEX_JOBS_TABLE = `CREATE TABLE IF NOT EXISTS ${INDEX_JOBS_TABLE} (
  index_name text PRIMARY KEY,
  job_id text NOT NULL,
  started_at text NOT NULL
)`;

/**
 * The runner of the releases before the migration files recorded each version it applied in
 * `schema_migrations` (version, description, applied_at), with no checksum. Its versions 1 to 4 are
 * these files, moved into them statement for statement: on a cluster it migrated they are applied
 * already, and are recorded, not run again (their index builds and the word backfill would take
 * the whole deploy on a full table). Its table is left as it is.
 */
export const PREVIOUS_MIGRATIONS_TABLE = 'schema_migrations';
export const PREVIOUS_RUNNER_FILES: Readonly<Record<number, string>> = {
  1: '0001_users.sql',
  2: '0002_users_indexes.sql',
  3: '0003_users_country_scores.sql',
  4: '0004_user_name_words.sql',
};

/** How often a run reads sys.jobs while an index builds. */
export const INDEX_JOB_POLL_MS = 5_000;
/** sys.jobs statuses of a build that ended without its index; `completed` is the one success. */
const FAILED_JOB_STATUSES = new Set(['failed', 'cancelled', 'canceled']);

/** What a run waits with; tests give their own. */
export interface MigrationClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}
const systemClock: MigrationClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** An index a run left building when its time ran out. */
export interface IndexBuild {
  index: string;
  jobId: string;
}

export interface MigrationRun {
  /** Versions this run applied, in order. */
  applied: number[];
  /** Versions the previous runner had applied (`schema_migrations`), recorded by this run without running them. */
  adopted: number[];
  /**
   * The run's time ran out before this file was done: it is not recorded, and the next run carries
   * on with it (waiting first for `building`, when an index job was still running).
   */
  unfinished?: { file: string; building?: IndexBuild };
}

/** An applied migration file no longer reads as it did: the deploy stops before changing anything. */
export class ChangedMigrationError extends Error {
  override name = 'ChangedMigrationError';
}

/** An index job ended without its index, or an index is invalid with no job of ours building it. */
export class IndexBuildFailedError extends Error {
  override name = 'IndexBuildFailedError';
}

/** A statement (or the data step) of a migration file failed; the file is not recorded, the next run retries it. */
export class MigrationFailedError extends Error {
  override name = 'MigrationFailedError';
  constructor(
    readonly file: string,
    readonly step: string,
    options: { cause: unknown },
  ) {
    super(
      `migration ${file} failed at ${step}: ${(options.cause as Error)?.message ?? String(options.cause)}`,
      options,
    );
  }
}

type Database = Pick<SqlRunner, 'query'>;
type Recorded = { version: number; file_name: string; sha256: string };

/**
 * Records as applied the versions the previous runner applied, then checks every recorded file
 * against the files, then applies, in order, those not recorded yet, recording each after its last
 * statement (and its data step). With a `deadline` (epoch ms) it stops before a statement that would
 * start after it, or while an index job still builds at it, and says where (`unfinished`).
 */
export async function migrateUsersDatabase(
  database: Database,
  options: { dialect: SqlDialect; migrations?: readonly Migration[]; deadline?: number; clock?: MigrationClock },
): Promise<MigrationRun> {
  const migrations = options.migrations ?? usersMigrations();
  const clock = options.clock ?? systemClock;
  const deadline = options.deadline ?? Number.POSITIVE_INFINITY;
  const byVersion = new Map(migrations.map((migration) => [migration.version, migration]));
  await database.query(CREATE_MIGRATIONS_TABLE);
  if (options.dialect === 'dsql') await database.query(CREATE_INDEX_JOBS_TABLE);
  const recorded = await database.query<Recorded>(
    `SELECT version, file_name, sha256 FROM ${MIGRATIONS_TABLE} ORDER BY version`,
  );
  const adopted = await adoptPreviousRunnerRecords(
    database,
    byVersion,
    new Set(recorded.map(({ version }) => version)),
  );
  for (const record of [...recorded, ...adopted]) {
    const migration = byVersion.get(record.version);
    if (!migration) throw new ChangedMigrationError(`applied migration ${record.file_name} is missing from the files`);
    if (migration.file !== record.file_name || migration.sha256 !== record.sha256) {
      throw new ChangedMigrationError(
        `applied migration ${record.file_name} was changed (now ${migration.file}, sha256 ${migration.sha256}, ` +
          `applied as ${record.sha256}): put the change in a new migration file instead`,
      );
    }
  }
  const applied = new Set([...recorded, ...adopted].map((record) => record.version));
  const run: MigrationRun = { applied: [], adopted: adopted.map((record) => record.version) };
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    for (const [index, statement] of migration.statements.entries()) {
      if (clock.now() >= deadline) return { ...run, unfinished: { file: migration.file } };
      const step = `statement ${index + 1} (${statement.split('\n')[0]!.slice(0, 120)})`;
      let building: IndexBuild | undefined;
      try {
        building = await applyStatement(database, statement, { ...options, deadline, clock });
      } catch (cause) {
        throw new MigrationFailedError(migration.file, step, { cause });
      }
      if (building) return { ...run, unfinished: { file: migration.file, building } };
    }
    if (migration.backfill) {
      if (clock.now() >= deadline) return { ...run, unfinished: { file: migration.file } };
      try {
        await migration.backfill(database);
      } catch (cause) {
        throw new MigrationFailedError(migration.file, 'its data step', { cause });
      }
    }
    await database.query(
      `INSERT INTO ${MIGRATIONS_TABLE} (version, file_name, sha256, applied_at) VALUES ($1, $2, $3, $4) ON CONFLICT (version) DO NOTHING`,
      [migration.version, migration.file, migration.sha256, new Date(clock.now()).toISOString()],
    );
    run.applied.push(migration.version);
  }
  return run;
}

/**
 * The versions in `schema_migrations` not yet in `schema_migration_files`, recorded there (one
 * statement) as the files that hold them, with their checksums now and the time they were applied.
 */
async function adoptPreviousRunnerRecords(
  database: Database,
  byVersion: ReadonlyMap<number, Migration>,
  recorded: ReadonlySet<number>,
): Promise<Recorded[]> {
  const [table] = await database.query(
    'SELECT 1 AS found FROM pg_tables WHERE schemaname = current_schema() AND tablename = $1',
    [PREVIOUS_MIGRATIONS_TABLE],
  );
  if (!table) return [];
  const previous = await database.query<{ version: number; applied_at: string }>(
    `SELECT version, applied_at FROM ${PREVIOUS_MIGRATIONS_TABLE} ORDER BY version`,
  );
  const records = previous
    .filter(({ version }) => !recorded.has(version))
    .map(({ version, applied_at }) => {
      const file = PREVIOUS_RUNNER_FILES[version];
      const migration = byVersion.get(version);
      if (file === undefined || migration?.file !== file) {
        throw new ChangedMigrationError(
          `${PREVIOUS_MIGRATIONS_TABLE} records version ${version} as applied, ` +
            (file === undefined ? 'which no migration file stands for' : `which is ${file}, missing from the files`),
        );
      }
      return { version, file_name: file, sha256: migration.sha256, applied_at };
    });
  if (records.length === 0) return [];
  const values = records.flatMap(({ version, file_name, sha256, applied_at }) => [
    version,
    file_name,
    sha256,
    applied_at,
  ]);
  const tuples = records.map((_, row) => `($${row * 4 + 1}, $${row * 4 + 2}, $${row * 4 + 3}, $${row * 4 + 4})`);
  await database.query(
    `INSERT INTO ${MIGRATIONS_TABLE} (version, file_name, sha256, applied_at) VALUES ${tuples.join(', ')} ON CONFLICT (version) DO NOTHING`,
    values,
  );
  return records.map(({ version, file_name, sha256 }) => ({ version, file_name, sha256 }));
}

/**
 * Runs one statement of a file. The one thing that differs between Aurora DSQL and the local
 * PostgreSQL: DSQL builds an index in a background job (`CREATE INDEX ASYNC` answers its
 * `job_id`), which the run waits for before its next statement, so a later DROP never runs before
 * the replacing index is active and a failed build stops the run; PostgreSQL knows no ASYNC and
 * builds the index within the statement. Answers the build still running at the deadline, if any.
 */
async function applyStatement(
  database: Database,
  statement: string,
  options: { dialect: SqlDialect; deadline: number; clock: MigrationClock },
): Promise<IndexBuild | undefined> {
  const index = indexBuiltBy(statement);
  if (options.dialect === 'postgres' || index === undefined) {
    await database.query(forDialect(statement, options.dialect));
    return undefined;
  }
  const state = await indexState(database, index);
  if (state === 'valid') return undefined;
  // Invalid: a build of ours still running, or one that failed (its job says which).
  const jobId =
    state === 'absent' ? await startIndexBuild(database, statement, index) : await recordedJob(database, index);
  return waitForIndexJob(database, { index, jobId }, options);
}

async function indexState(database: Database, index: string): Promise<'valid' | 'invalid' | 'absent'> {
  const [row] = await database.query<{ valid: boolean }>(
    `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relname = $1`,
    [index],
  );
  if (!row) return 'absent';
  return row.valid === true ? 'valid' : 'invalid';
}

async function startIndexBuild(database: Database, statement: string, index: string): Promise<string> {
  const [answer] = await database.query<{ job_id?: unknown }>(statement);
  const jobId = answer?.job_id;
  if (typeof jobId !== 'string' || jobId === '')
    throw new IndexBuildFailedError(`CREATE INDEX ASYNC ${index} answered no job_id`);
  await database.query(
    `INSERT INTO ${INDEX_JOBS_TABLE} (index_name, job_id, started_at) VALUES ($1, $2, $3)
     ON CONFLICT (index_name) DO UPDATE SET job_id = EXCLUDED.job_id, started_at = EXCLUDED.started_at`,
    [index, jobId, new Date().toISOString()],
  );
  return jobId;
}

async function recordedJob(database: Database, index: string): Promise<string> {
  const [row] = await database.query<{ job_id: string }>(
    `SELECT job_id FROM ${INDEX_JOBS_TABLE} WHERE index_name = $1`,
    [index],
  );
  if (!row) {
    throw new IndexBuildFailedError(
      `index ${index} exists but is not valid, and no build of it is recorded in ${INDEX_JOBS_TABLE}: ` +
        `once sys.jobs shows no job building it, drop it (DROP INDEX ${index}) and deploy again`,
    );
  }
  return row.job_id;
}

/**
 * Reads the job's status in sys.jobs every INDEX_JOB_POLL_MS until it completes (undefined) or
 * until the next read would come after the deadline (the build, still running). A failed or
 * cancelled job throws with sys.jobs' details. DSQL forgets a finished job after a while; then the
 * index itself says whether it was built.
 */
async function waitForIndexJob(
  database: Database,
  build: IndexBuild,
  { deadline, clock }: { deadline: number; clock: MigrationClock },
): Promise<IndexBuild | undefined> {
  for (;;) {
    const [job] = await database.query<{ status: unknown; details: unknown }>(
      'SELECT status, details FROM sys.jobs WHERE job_id = $1',
      [build.jobId],
    );
    const status = typeof job?.status === 'string' ? job.status.toLowerCase() : undefined;
    if (status === 'completed') return undefined;
    if (status !== undefined && FAILED_JOB_STATUSES.has(status)) {
      const details = typeof job?.details === 'string' && job.details !== '' ? `: ${job.details}` : '';
      throw new IndexBuildFailedError(
        `index job ${build.jobId} building ${build.index} ${status}${details}; ` +
          `drop the index (DROP INDEX ${build.index}) and deploy again to build it anew`,
      );
    }
    if (job === undefined) {
      if ((await indexState(database, build.index)) === 'valid') return undefined;
      throw new IndexBuildFailedError(
        `index job ${build.jobId} building ${build.index} is no longer in sys.jobs and the index is not valid; ` +
          `drop the index (DROP INDEX ${build.index}) and deploy again to build it anew`,
      );
    }
    if (clock.now() + INDEX_JOB_POLL_MS >= deadline) return build;
    await clock.sleep(INDEX_JOB_POLL_MS);
  }
}

/** What identifies the files as applied: the migration custom resource carries its hash, so a new file re-runs it. */
export const usersMigrationsHash = (migrations: readonly Migration[] = usersMigrations()): string =>
  createHash('sha256')
    .update(JSON.stringify(migrations.map(({ file, sha256 }) => [file, sha256])))
    .digest('hex');
