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

/**
 * What differs between Aurora DSQL and the local PostgreSQL while migrating, and nothing else:
 * DSQL builds an index in a background job (`CREATE INDEX ASYNC` answers its `job_id`), which
 * the run waits for (`sys.wait_for_job`) before its next statement, so a later DROP never runs
 * before the replacing index is active and a failed build stops the run; PostgreSQL knows no
 * ASYNC and builds the index within the statement.
 */
const DIALECTS: Record<
  SqlDialect,
  {
    prepare(statement: string): string;
    settle(database: Pick<SqlRunner, 'query'>, answer: readonly Record<string, unknown>[]): Promise<void>;
  }
> = {
  dsql: {
    prepare: (statement) => statement,
    async settle(database, answer) {
      for (const { job_id: jobId } of answer) {
        if (typeof jobId !== 'string' || jobId === '') continue;
        const [result] = await database.query<{ succeeded: unknown }>('SELECT sys.wait_for_job($1) AS succeeded', [
          jobId,
        ]);
        if (result?.succeeded !== true) throw new Error(`index job ${jobId} did not succeed (sys.jobs has its detail)`);
      }
    },
  },
  postgres: {
    prepare: (statement) => statement.replace(/^CREATE (UNIQUE )?INDEX ASYNC /, 'CREATE $1INDEX '),
    settle: () => Promise.resolve(),
  },
};

/** The statement as the dialect takes it: a local PostgreSQL builds indexes synchronously. */
export const forDialect = (statement: string, dialect: SqlDialect): string => DIALECTS[dialect].prepare(statement);

export const MIGRATIONS_TABLE = 'schema_migration_files';
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
  version integer PRIMARY KEY,
  file_name text NOT NULL,
  sha256 text NOT NULL,
  applied_at text NOT NULL
)`;

/** An applied migration file no longer reads as it did: the deploy stops before changing anything. */
export class ChangedMigrationError extends Error {
  override name = 'ChangedMigrationError';
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

/**
 * Checks every recorded file against the files, then applies, in order, those not recorded yet,
 * recording each after its last statement. Answers the versions it applied.
 */
export async function migrateUsersDatabase(
  database: Pick<SqlRunner, 'query'>,
  options: { dialect: SqlDialect; migrations?: readonly Migration[] },
): Promise<number[]> {
  const migrations = options.migrations ?? usersMigrations();
  const dialect = DIALECTS[options.dialect];
  await database.query(CREATE_MIGRATIONS_TABLE);
  const recorded = await database.query<{ version: number; file_name: string; sha256: string }>(
    `SELECT version, file_name, sha256 FROM ${MIGRATIONS_TABLE} ORDER BY version`,
  );
  const byVersion = new Map(migrations.map((migration) => [migration.version, migration]));
  for (const record of recorded) {
    const migration = byVersion.get(record.version);
    if (!migration) throw new ChangedMigrationError(`applied migration ${record.file_name} is missing from the files`);
    if (migration.file !== record.file_name || migration.sha256 !== record.sha256) {
      throw new ChangedMigrationError(
        `applied migration ${record.file_name} was changed (now ${migration.file}, sha256 ${migration.sha256}, ` +
          `applied as ${record.sha256}): put the change in a new migration file instead`,
      );
    }
  }
  const applied = new Set(recorded.map((record) => record.version));
  const appliedNow: number[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    for (const [index, statement] of migration.statements.entries()) {
      const step = `statement ${index + 1} (${statement.split('\n')[0]!.slice(0, 120)})`;
      try {
        const answer = await database.query(dialect.prepare(statement));
        await dialect.settle(database, answer);
      } catch (cause) {
        throw new MigrationFailedError(migration.file, step, { cause });
      }
    }
    try {
      await migration.backfill?.(database);
    } catch (cause) {
      throw new MigrationFailedError(migration.file, 'its data step', { cause });
    }
    await database.query(
      `INSERT INTO ${MIGRATIONS_TABLE} (version, file_name, sha256, applied_at) VALUES ($1, $2, $3, $4) ON CONFLICT (version) DO NOTHING`,
      [migration.version, migration.file, migration.sha256, new Date().toISOString()],
    );
    appliedNow.push(migration.version);
  }
  return appliedNow;
}

/** What identifies the files as applied: the migration custom resource carries its hash, so a new file re-runs it. */
export const usersMigrationsHash = (migrations: readonly Migration[] = usersMigrations()): string =>
  createHash('sha256')
    .update(JSON.stringify(migrations.map(({ file, sha256 }) => [file, sha256])))
    .digest('hex');
