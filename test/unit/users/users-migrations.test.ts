import { cpSync, mkdtempSync, rmSync, writeFileSync, appendFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SqlRunner } from '#shared/adapters/postgres/users-database.ts';
import {
  defaultMigrationsFolder,
  forDialect,
  INDEX_JOB_POLL_MS,
  indexBuiltBy,
  migrateUsersDatabase,
  PREVIOUS_RUNNER_FILES,
  readMigrations,
  splitStatements,
  usersMigrations,
  type Migration,
  type MigrationClock,
} from '#shared/adapters/postgres/users-migrations.ts';

type JobStatus = { status: string; details?: string };

/**
 * A database that keeps schema_migration_files, schema_migration_index_jobs, the previous runner's
 * schema_migrations and the indexes as tables would, and records every statement. CREATE INDEX ASYNC
 * answers a job id and leaves the index invalid; sys.jobs answers `jobStatus` for it, and a
 * completed job makes its index valid (as DSQL marks it active).
 */
class MigrationsDatabase implements Pick<SqlRunner, 'query'> {
  readonly statements: Array<{ text: string; values: readonly unknown[] }> = [];
  readonly records: Array<{ version: number; file_name: string; sha256: string; applied_at?: string }> = [];
  /** Rows of the previous runner's schema_migrations; undefined: no such table. */
  previous: Array<{ version: number; applied_at: string }> | undefined;
  /** Index name -> valid. */
  readonly indexes = new Map<string, boolean>();
  readonly indexJobs = new Map<string, string>();
  /** What sys.jobs says of a job at its `poll`-th read (1, 2, ...); undefined: no row. */
  jobStatus: (jobId: string, poll: number) => JobStatus | undefined = () => ({ status: 'completed' });
  failing: ((text: string) => Error | undefined) | undefined;
  private jobs = 0;
  private readonly polls = new Map<string, number>();
  private readonly jobIndex = new Map<string, string>();

  async query<TRow extends object = Record<string, unknown>>(
    text: string,
    values: readonly unknown[] = [],
  ): Promise<TRow[]> {
    this.statements.push({ text, values });
    const failure = this.failing?.(text);
    if (failure) throw failure;
    if (text.startsWith('SELECT version, file_name, sha256 FROM schema_migration_files'))
      return [...this.records].sort((a, b) => a.version - b.version) as TRow[];
    if (text.startsWith('INSERT INTO schema_migration_files')) {
      for (let row = 0; row < values.length; row += 4) {
        const [version, file_name, sha256, applied_at] = values.slice(row, row + 4) as [number, string, string, string];
        if (!this.records.some((record) => record.version === version))
          this.records.push({ version, file_name, sha256, applied_at });
      }
      return [];
    }
    if (text.startsWith('SELECT 1 AS found FROM pg_tables'))
      return (values[0] === 'schema_migrations' && this.previous ? [{ found: 1 }] : []) as TRow[];
    if (text.startsWith('SELECT version, applied_at FROM schema_migrations'))
      return [...(this.previous ?? [])] as TRow[];
    if (text.startsWith('SELECT i.indisvalid AS valid FROM pg_index')) {
      const valid = this.indexes.get(values[0] as string);
      return (valid === undefined ? [] : [{ valid }]) as TRow[];
    }
    const created = /^CREATE (?:UNIQUE )?INDEX ASYNC IF NOT EXISTS (\w+)/.exec(text);
    if (created) {
      if (this.indexes.has(created[1]!)) return [];
      const jobId = `job-${++this.jobs}`;
      this.indexes.set(created[1]!, false);
      this.jobIndex.set(jobId, created[1]!);
      return [{ job_id: jobId }] as TRow[];
    }
    const dropped = /^DROP INDEX IF EXISTS (\w+)/.exec(text);
    if (dropped) this.indexes.delete(dropped[1]!);
    if (text.startsWith('INSERT INTO schema_migration_index_jobs')) {
      this.indexJobs.set(values[0] as string, values[1] as string);
      return [];
    }
    if (text.startsWith('SELECT job_id FROM schema_migration_index_jobs')) {
      const jobId = this.indexJobs.get(values[0] as string);
      return (jobId === undefined ? [] : [{ job_id: jobId }]) as TRow[];
    }
    if (text.startsWith('SELECT status, details FROM sys.jobs')) {
      const jobId = values[0] as string;
      const poll = (this.polls.get(jobId) ?? 0) + 1;
      this.polls.set(jobId, poll);
      const job = this.jobStatus(jobId, poll);
      if (job?.status === 'completed' && this.jobIndex.has(jobId)) this.indexes.set(this.jobIndex.get(jobId)!, true);
      return (job ? [{ status: job.status, details: job.details ?? null }] : []) as TRow[];
    }
    return [];
  }

  texts(): string[] {
    return this.statements.map((statement) => statement.text);
  }
}

/** A clock whose sleeps pass at once, counted. */
class TestClock implements MigrationClock {
  sleeps = 0;
  constructor(public time = Date.parse('2026-12-01T10:00:00.000Z')) {}
  now = () => this.time;
  sleep = async (ms: number) => {
    this.sleeps += 1;
    this.time += ms;
  };
}

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A copy of the service's migration files to change. */
function copyOfMigrations(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'users-migrations-'));
  folders.push(folder);
  cpSync(defaultMigrationsFolder(), folder, { recursive: true });
  return folder;
}

describe('the migration files', () => {
  const migrations = usersMigrations();

  it('are numbered 1, 2, 3, ... by their file names, each with its checksum and statements', () => {
    expect(migrations.map((migration) => migration.version)).toEqual(migrations.map((_, index) => index + 1));
    expect(migrations[0]!.file).toBe('0001_users.sql');
    for (const migration of migrations) {
      expect(migration.file).toMatch(/^\d{4}_[a-z0-9_]+\.sql$/);
      expect(migration.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(migration.statements.length).toBeGreaterThan(0);
      // Split at line-end semicolons only: no statement keeps one, none is a comment.
      for (const statement of migration.statements) {
        expect(statement).not.toMatch(/;\s*$/m);
        expect(statement).not.toMatch(/^--/);
      }
    }
  });

  it('drop an index only after the statement that builds its replacement', () => {
    for (const migration of migrations) {
      for (const [index, statement] of migration.statements.entries()) {
        if (!statement.startsWith('DROP INDEX')) continue;
        expect(
          migration.statements.slice(0, index).some((earlier) => earlier.startsWith('CREATE INDEX ASYNC')),
          `${migration.file}: ${statement}`,
        ).toBe(true);
      }
    }
  });

  it('name every index they build, IF NOT EXISTS: a later run finds a build by its name', () => {
    for (const statement of migrations.flatMap((migration) => migration.statements)) {
      if (!statement.startsWith('CREATE INDEX') && !statement.startsWith('CREATE UNIQUE INDEX')) continue;
      expect(statement, statement).toMatch(/^CREATE (UNIQUE )?INDEX ASYNC IF NOT EXISTS /);
      expect(indexBuiltBy(statement), statement).toMatch(/^[a-z_][a-z0-9_]*$/);
    }
    expect(indexBuiltBy('DROP INDEX IF EXISTS users_by_country')).toBeUndefined();
  });

  it('hold the previous runner’s versions 1 to 4 under the same numbers', () => {
    for (const [version, file] of Object.entries(PREVIOUS_RUNNER_FILES))
      expect(migrations[Number(version) - 1]?.file).toBe(file);
  });

  it('refuse a gap in the numbers and a name that is not NNNN_words.sql', () => {
    const gap = copyOfMigrations();
    renameSync(path.join(gap, '0004_user_name_words.sql'), path.join(gap, '0005_user_name_words.sql'));
    expect(() => readMigrations(gap)).toThrow('migration file 0005_user_name_words.sql should be number 4');

    const badName = copyOfMigrations();
    writeFileSync(path.join(badName, '0005 More Columns.sql'), 'SELECT 1;\n');
    expect(() => readMigrations(badName)).toThrow('is not named NNNN_words.sql');
  });
});

describe('splitStatements', () => {
  it('drops comment lines and splits at semicolons that end a line', () => {
    expect(
      splitStatements('-- a comment; with a semicolon\nCREATE TABLE a (\n  x text\n);\n\nDROP INDEX IF EXISTS b;  \n'),
    ).toEqual(['CREATE TABLE a (\n  x text\n)', 'DROP INDEX IF EXISTS b']);
  });
});

describe('forDialect', () => {
  it('turns CREATE INDEX ASYNC into CREATE INDEX for a local PostgreSQL, and leaves everything else alone', () => {
    expect(forDialect('CREATE INDEX ASYNC IF NOT EXISTS users_x ON users (org_id)', 'postgres')).toBe(
      'CREATE INDEX IF NOT EXISTS users_x ON users (org_id)',
    );
    expect(forDialect('CREATE UNIQUE INDEX ASYNC users_y ON users (org_id, id)', 'postgres')).toBe(
      'CREATE UNIQUE INDEX users_y ON users (org_id, id)',
    );
    expect(forDialect("SELECT 'CREATE INDEX ASYNC x' FROM users", 'postgres')).toBe(
      "SELECT 'CREATE INDEX ASYNC x' FROM users",
    );
  });

  it('gives DSQL every statement as written', () => {
    for (const statement of usersMigrations().flatMap((migration) => migration.statements)) {
      expect(forDialect(statement, 'dsql')).toBe(statement);
    }
  });
});

describe('migrateUsersDatabase', () => {
  const migration = (version: number, file: string, statements: string[]): Migration => ({
    version,
    file,
    sha256: `${version}`.padStart(64, '0'),
    statements,
  });
  const migrations = [
    migration(1, '0001_a.sql', ['CREATE TABLE IF NOT EXISTS a (x text PRIMARY KEY)']),
    migration(2, '0002_a_index.sql', [
      'CREATE INDEX ASYNC IF NOT EXISTS a_x_y ON a (x, y)',
      'DROP INDEX IF EXISTS a_x',
      'CREATE TABLE IF NOT EXISTS b (y text PRIMARY KEY)',
    ]),
  ];
  const CREATE_A_X_Y = 'CREATE INDEX ASYNC IF NOT EXISTS a_x_y ON a (x, y)';
  const READ_JOB = 'SELECT status, details FROM sys.jobs WHERE job_id = $1';

  it('applies each file once, in order, recording its name and checksum; a second run only checks', async () => {
    const database = new MigrationsDatabase();

    expect(await migrateUsersDatabase(database, { dialect: 'postgres', migrations })).toEqual({
      applied: [1, 2],
      adopted: [],
    });
    expect(database.records).toEqual([
      expect.objectContaining({ version: 1, file_name: '0001_a.sql', sha256: migrations[0]!.sha256 }),
      expect.objectContaining({ version: 2, file_name: '0002_a_index.sql', sha256: migrations[1]!.sha256 }),
    ]);
    expect(database.texts()).toContain('CREATE INDEX IF NOT EXISTS a_x_y ON a (x, y)');
    expect(database.texts().some((text) => text.includes('sys.jobs'))).toBe(false);

    const before = database.statements.length;
    expect(await migrateUsersDatabase(database, { dialect: 'postgres', migrations })).toEqual({
      applied: [],
      adopted: [],
    });
    expect(database.statements.slice(before).map(({ text }) => text.split(' (')[0])).toEqual([
      'CREATE TABLE IF NOT EXISTS schema_migration_files',
      'SELECT version, file_name, sha256 FROM schema_migration_files ORDER BY version',
      'SELECT 1 AS found FROM pg_tables WHERE schemaname = current_schema() AND tablename = $1',
    ]);
  });

  it('on DSQL records each index job and reads sys.jobs until it completes, before the next statement', async () => {
    const database = new MigrationsDatabase();
    const clock = new TestClock();
    database.jobStatus = (_, poll) => ({ status: poll < 3 ? 'processing' : 'completed' });

    expect((await migrateUsersDatabase(database, { dialect: 'dsql', migrations, clock })).applied).toEqual([1, 2]);

    const texts = database.texts();
    const create = texts.indexOf(CREATE_A_X_Y);
    expect(texts[create + 1]).toMatch(/^INSERT INTO schema_migration_index_jobs/);
    expect(database.statements[create + 1]!.values.slice(0, 2)).toEqual(['a_x_y', 'job-1']);
    expect(texts.slice(create + 2, create + 5)).toEqual([READ_JOB, READ_JOB, READ_JOB]);
    expect(database.statements[create + 2]!.values).toEqual(['job-1']);
    expect(texts[create + 5]).toBe('DROP INDEX IF EXISTS a_x');
    expect(clock.sleeps).toBe(2);
    expect(texts.some((text) => text.includes('wait_for_job'))).toBe(false);
  });

  it('leaves a job still running at its deadline to the next run, which waits for that job (no second build) and finishes the file', async () => {
    const database = new MigrationsDatabase();
    const clock = new TestClock();
    let building = true;
    database.jobStatus = () => ({ status: building ? 'processing' : 'completed' });

    const first = await migrateUsersDatabase(database, {
      dialect: 'dsql',
      migrations,
      clock,
      deadline: clock.now() + 3 * INDEX_JOB_POLL_MS,
    });

    expect(first).toEqual({
      applied: [1],
      adopted: [],
      unfinished: { file: '0002_a_index.sql', building: { index: 'a_x_y', jobId: 'job-1' } },
    });
    expect(clock.now()).toBeLessThanOrEqual(Date.parse('2026-12-01T10:00:00.000Z') + 3 * INDEX_JOB_POLL_MS);
    expect(database.texts()).not.toContain('DROP INDEX IF EXISTS a_x');
    expect(database.records.map((record) => record.version)).toEqual([1]);

    // The next poll: the index is still being built, so no CREATE; it waits for the recorded job.
    building = false;
    const before = database.statements.length;
    const second = await migrateUsersDatabase(database, { dialect: 'dsql', migrations, clock });

    expect(second).toEqual({ applied: [2], adopted: [] });
    const texts = database.texts().slice(before);
    expect(texts).not.toContain(CREATE_A_X_Y);
    expect(texts).toContain('SELECT job_id FROM schema_migration_index_jobs WHERE index_name = $1');
    expect(texts.indexOf(READ_JOB)).toBeLessThan(texts.indexOf('DROP INDEX IF EXISTS a_x'));
  });

  it('stops at a failed index job with sys.jobs’ details and what to do: the old index is not dropped, the file not recorded', async () => {
    const database = new MigrationsDatabase();
    database.jobStatus = () => ({ status: 'failed', details: 'duplicate key value violates unique constraint' });

    const run = migrateUsersDatabase(database, { dialect: 'dsql', migrations, clock: new TestClock() });

    await expect(run).rejects.toThrow(
      'migration 0002_a_index.sql failed at statement 1 (CREATE INDEX ASYNC IF NOT EXISTS a_x_y ON a (x, y)): ' +
        'index job job-1 building a_x_y failed: duplicate key value violates unique constraint; ' +
        'drop the index (DROP INDEX a_x_y) and deploy again to build it anew',
    );
    expect(database.texts()).not.toContain('DROP INDEX IF EXISTS a_x');
    expect(database.records.map((record) => record.file_name)).toEqual(['0001_a.sql']);
  });

  it('goes on past a job sys.jobs no longer lists when its index is valid, and stops when it is not', async () => {
    const built = new MigrationsDatabase();
    built.indexes.set('a_x_y', false);
    built.indexJobs.set('a_x_y', 'job-old');
    built.jobStatus = () => {
      built.indexes.set('a_x_y', true);
      return undefined;
    };
    expect((await migrateUsersDatabase(built, { dialect: 'dsql', migrations })).applied).toEqual([1, 2]);

    const broken = new MigrationsDatabase();
    broken.indexes.set('a_x_y', false);
    broken.indexJobs.set('a_x_y', 'job-old');
    broken.jobStatus = () => undefined;
    await expect(migrateUsersDatabase(broken, { dialect: 'dsql', migrations })).rejects.toThrow(
      'index job job-old building a_x_y is no longer in sys.jobs and the index is not valid',
    );
  });

  it('stops at an index that is not valid and that no recorded job builds, naming it', async () => {
    const database = new MigrationsDatabase();
    database.indexes.set('a_x_y', false);

    await expect(migrateUsersDatabase(database, { dialect: 'dsql', migrations })).rejects.toThrow(
      'index a_x_y exists but is not valid, and no build of it is recorded in schema_migration_index_jobs',
    );
    expect(database.texts()).not.toContain(CREATE_A_X_Y);
    expect(database.texts()).not.toContain('DROP INDEX IF EXISTS a_x');
  });

  it('starts no statement after its deadline: the file is left unrecorded for the next run', async () => {
    const database = new MigrationsDatabase();
    const clock = new TestClock();

    const run = await migrateUsersDatabase(database, { dialect: 'dsql', migrations, clock, deadline: clock.now() });

    expect(run).toEqual({ applied: [], adopted: [], unfinished: { file: '0001_a.sql' } });
    expect(database.texts().filter((text) => text.startsWith('CREATE TABLE IF NOT EXISTS a '))).toEqual([]);
  });

  it('records what the previous runner applied (schema_migrations) as those files, running none of them, and applies only what is new', async () => {
    const database = new MigrationsDatabase();
    database.previous = [{ version: 1, applied_at: '2026-11-20T08:00:00.000Z' }];

    const run = await migrateUsersDatabase(database, {
      dialect: 'dsql',
      migrations: [migration(1, '0001_users.sql', ['CREATE TABLE IF NOT EXISTS users (x text)']), migrations[1]!],
    });

    expect(run).toEqual({ applied: [2], adopted: [1] });
    expect(database.texts()).not.toContain('CREATE TABLE IF NOT EXISTS users (x text)');
    expect(database.records[0]).toEqual({
      version: 1,
      file_name: '0001_users.sql',
      sha256: '1'.padStart(64, '0'),
      applied_at: '2026-11-20T08:00:00.000Z',
    });
  });

  it('refuses a version schema_migrations holds that no migration file stands for', async () => {
    const database = new MigrationsDatabase();
    database.previous = [{ version: 9, applied_at: '2026-11-20T08:00:00.000Z' }];

    await expect(migrateUsersDatabase(database, { dialect: 'postgres', migrations })).rejects.toThrow(
      'schema_migrations records version 9 as applied, which no migration file stands for',
    );
    expect(database.records).toEqual([]);
  });

  it('stops at a failing statement naming it; the next run finishes the file', async () => {
    const database = new MigrationsDatabase();
    database.failing = (text) =>
      text.startsWith('CREATE TABLE IF NOT EXISTS b') ? Object.assign(new Error('boom'), { code: 'XX000' }) : undefined;

    await expect(migrateUsersDatabase(database, { dialect: 'postgres', migrations })).rejects.toThrow(
      'migration 0002_a_index.sql failed at statement 3 (CREATE TABLE IF NOT EXISTS b (y text PRIMARY KEY)): boom',
    );
    expect(database.records.map((record) => record.version)).toEqual([1]);

    database.failing = undefined;
    expect((await migrateUsersDatabase(database, { dialect: 'postgres', migrations })).applied).toEqual([2]);
  });

  it('stops before applying anything when an applied file was changed, naming it', async () => {
    const folder = copyOfMigrations();
    const database = new MigrationsDatabase();
    await migrateUsersDatabase(database, { dialect: 'postgres', migrations: readMigrations(folder) });

    // A new column written into the applied 0001 instead of a new file.
    appendFileSync(path.join(folder, '0001_users.sql'), 'ALTER TABLE users ADD COLUMN IF NOT EXISTS nickname text;\n');
    writeFileSync(path.join(folder, '0005_more.sql'), 'CREATE TABLE IF NOT EXISTS more (x text PRIMARY KEY);\n');
    const before = database.statements.length;

    await expect(
      migrateUsersDatabase(database, { dialect: 'postgres', migrations: readMigrations(folder) }),
    ).rejects.toThrow(/^applied migration 0001_users\.sql was changed/);
    const sent = database.texts().slice(before);
    expect(sent.filter((text) => !text.includes('schema_migration_files') && !text.includes('pg_tables'))).toEqual([]);
    expect(database.records).toHaveLength(4);
  });

  it('stops when an applied file is gone or renamed', async () => {
    const database = new MigrationsDatabase();
    await migrateUsersDatabase(database, { dialect: 'postgres', migrations });

    await expect(
      migrateUsersDatabase(database, { dialect: 'postgres', migrations: migrations.slice(0, 1) }),
    ).rejects.toThrow('applied migration 0002_a_index.sql is missing from the files');
    await expect(
      migrateUsersDatabase(database, {
        dialect: 'postgres',
        migrations: [migrations[0]!, { ...migrations[1]!, file: '0002_renamed.sql' }],
      }),
    ).rejects.toThrow('applied migration 0002_a_index.sql was changed (now 0002_renamed.sql');
  });

  it('a new file on top of applied ones is applied alone', async () => {
    const folder = copyOfMigrations();
    const database = new MigrationsDatabase();
    await migrateUsersDatabase(database, { dialect: 'dsql', migrations: readMigrations(folder) });
    writeFileSync(
      path.join(folder, '0005_users_nickname.sql'),
      '-- a new column is a new file\nALTER TABLE users ADD COLUMN IF NOT EXISTS nickname text;\n',
    );
    const before = database.statements.length;

    expect(
      (await migrateUsersDatabase(database, { dialect: 'dsql', migrations: readMigrations(folder) })).applied,
    ).toEqual([5]);
    expect(database.texts().slice(before)).toContain('ALTER TABLE users ADD COLUMN IF NOT EXISTS nickname text');
  });
});
