import { cpSync, mkdtempSync, rmSync, writeFileSync, appendFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SqlRunner } from '#shared/adapters/postgres/users-database.ts';
import {
  defaultMigrationsFolder,
  forDialect,
  migrateUsersDatabase,
  readMigrations,
  splitStatements,
  usersMigrations,
  type Migration,
} from '#shared/adapters/postgres/users-migrations.ts';

/**
 * A database that keeps schema_migration_files as a table would, records every other statement,
 * and answers CREATE INDEX ASYNC with a job id and sys.wait_for_job with `jobSucceeds`.
 */
class MigrationsDatabase implements Pick<SqlRunner, 'query'> {
  readonly statements: Array<{ text: string; values: readonly unknown[] }> = [];
  readonly records: Array<{ version: number; file_name: string; sha256: string }> = [];
  jobSucceeds: (jobId: string) => boolean = () => true;
  failing: ((text: string) => Error | undefined) | undefined;
  private jobs = 0;

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
      const [version, file_name, sha256] = values as [number, string, string];
      if (!this.records.some((record) => record.version === version)) this.records.push({ version, file_name, sha256 });
      return [];
    }
    if (text.startsWith('CREATE INDEX ASYNC')) return [{ job_id: `job-${++this.jobs}` }] as TRow[];
    if (text.startsWith('SELECT sys.wait_for_job('))
      return [{ succeeded: this.jobSucceeds(values[0] as string) }] as TRow[];
    return [];
  }

  texts(): string[] {
    return this.statements.map((statement) => statement.text);
  }
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

  it('applies each file once, in order, recording its name and checksum; a second run only checks', async () => {
    const database = new MigrationsDatabase();

    expect(await migrateUsersDatabase(database, { dialect: 'postgres', migrations })).toEqual([1, 2]);
    expect(database.records).toEqual([
      { version: 1, file_name: '0001_a.sql', sha256: migrations[0]!.sha256 },
      { version: 2, file_name: '0002_a_index.sql', sha256: migrations[1]!.sha256 },
    ]);
    expect(database.texts()).toContain('CREATE INDEX IF NOT EXISTS a_x_y ON a (x, y)');
    expect(database.texts().some((text) => text.startsWith('SELECT sys.wait_for_job'))).toBe(false);

    const before = database.statements.length;
    expect(await migrateUsersDatabase(database, { dialect: 'postgres', migrations })).toEqual([]);
    expect(database.statements.slice(before).map(({ text }) => text.split(' (')[0])).toEqual([
      'CREATE TABLE IF NOT EXISTS schema_migration_files',
      'SELECT version, file_name, sha256 FROM schema_migration_files ORDER BY version',
    ]);
  });

  it('on DSQL waits for each index job before the next statement', async () => {
    const database = new MigrationsDatabase();

    await migrateUsersDatabase(database, { dialect: 'dsql', migrations });

    const texts = database.texts();
    const create = texts.indexOf('CREATE INDEX ASYNC IF NOT EXISTS a_x_y ON a (x, y)');
    expect(texts[create + 1]).toBe('SELECT sys.wait_for_job($1) AS succeeded');
    expect(database.statements[create + 1]!.values).toEqual(['job-1']);
    expect(texts[create + 2]).toBe('DROP INDEX IF EXISTS a_x');
  });

  it('stops at a failed index job, naming file and statement: the old index is not dropped, the file not recorded', async () => {
    const database = new MigrationsDatabase();
    database.jobSucceeds = () => false;

    const run = migrateUsersDatabase(database, { dialect: 'dsql', migrations });

    await expect(run).rejects.toThrow(
      'migration 0002_a_index.sql failed at statement 1 (CREATE INDEX ASYNC IF NOT EXISTS a_x_y ON a (x, y)): index job job-1 did not succeed',
    );
    expect(database.texts()).not.toContain('DROP INDEX IF EXISTS a_x');
    expect(database.records.map((record) => record.file_name)).toEqual(['0001_a.sql']);
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
    expect(await migrateUsersDatabase(database, { dialect: 'postgres', migrations })).toEqual([2]);
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
    expect(sent.filter((text) => !text.includes('schema_migration_files'))).toEqual([]);
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

    expect(await migrateUsersDatabase(database, { dialect: 'dsql', migrations: readMigrations(folder) })).toEqual([5]);
    expect(database.texts().slice(before)).toContain('ALTER TABLE users ADD COLUMN IF NOT EXISTS nickname text');
  });
});
