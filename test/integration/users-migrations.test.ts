import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import {
  defaultMigrationsFolder,
  migrateUsersDatabase,
  readMigrations,
  splitStatements,
  usersMigrations,
} from '#shared/adapters/postgres/users-migrations.ts';
import { columnTypeOf, REQUIRED_FIELDS } from '#shared/adapters/postgres/users-schema.ts';
import { USER_RECORD_FIELDS } from '#shared/domain/users/user-record.ts';

/**
 * The migration files on the tier's real PostgreSQL, in databases of this file's own: the schema
 * they make holds every user field, a changed applied file stops the run, a failing file leaves
 * the schema before it usable and names the statement, and a database the previous runner migrated
 * is upgraded without running again anything it applied.
 */

const local = inject('usersDatabase');
const databaseName = `migrations_${process.pid}_${Date.now()}`;
const previousReleaseName = `${databaseName}_previous`;
const admin = PostgresUsersDatabase.withPassword({
  host: local.host,
  port: local.port,
  ...local.admin,
  maxConnections: 1,
});
let scratch: PostgresUsersDatabase;
let previousRelease: PostgresUsersDatabase;
const folders: string[] = [];

const connectTo = (name: string) =>
  new PostgresUsersDatabase({
    USERS_DATABASE_HOST: local.host,
    USERS_DATABASE_PORT: local.port,
    USERS_DATABASE_NAME: name,
    USERS_DATABASE_USER: local.admin.user,
    USERS_DATABASE_AUTH: 'password',
    USERS_DATABASE_PASSWORD: local.admin.password,
    USERS_DATABASE_MAX_CONNECTIONS: 1,
  });

beforeAll(async () => {
  await admin.query(`CREATE DATABASE ${databaseName}`);
  await admin.query(`CREATE DATABASE ${previousReleaseName}`);
  scratch = connectTo(databaseName);
  previousRelease = connectTo(previousReleaseName);
});

afterAll(async () => {
  await scratch?.close();
  await previousRelease?.close();
  await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  await admin.query(`DROP DATABASE IF EXISTS ${previousReleaseName} WITH (FORCE)`);
  await admin.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function copyOfMigrations(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'users-migrations-'));
  folders.push(folder);
  cpSync(defaultMigrationsFolder(), folder, { recursive: true });
  return folder;
}

describe('the migration files on PostgreSQL', () => {
  it('make a users table with a column of the right type for every user field, and record each file', async () => {
    expect(await migrateUsersDatabase(scratch, { dialect: 'postgres' })).toEqual({
      applied: usersMigrations().map((migration) => migration.version),
      adopted: [],
    });

    const columns = await scratch.query<{ column_name: string; data_type: string; is_nullable: string }>(
      "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'users'",
    );
    const byName = new Map(columns.map((column) => [column.column_name, column]));
    for (const field of USER_RECORD_FIELDS) {
      expect(byName.get(field), field).toMatchObject({
        data_type: columnTypeOf(field),
        is_nullable: REQUIRED_FIELDS.has(field) ? 'NO' : 'YES',
      });
    }
    const recorded = await scratch.query<{ file_name: string; sha256: string }>(
      'SELECT file_name, sha256 FROM schema_migration_files ORDER BY version',
    );
    expect(recorded).toEqual(usersMigrations().map(({ file, sha256 }) => ({ file_name: file, sha256 })));
    const indexes = await scratch.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE tablename = 'users' ORDER BY indexname",
    );
    expect(indexes.map((index) => index.indexname)).toContain('users_by_country_scores');
    expect(indexes.map((index) => index.indexname)).not.toContain('users_by_country');
  });

  it('refuses to run when an applied file was changed, naming it, and changes nothing', async () => {
    const folder = copyOfMigrations();
    appendFileSync(
      path.join(folder, '0002_users_indexes.sql'),
      'CREATE INDEX ASYNC IF NOT EXISTS users_by_phone ON users (org_id, phone);\n',
    );

    await expect(
      migrateUsersDatabase(scratch, { dialect: 'postgres', migrations: readMigrations(folder) }),
    ).rejects.toThrow(/^applied migration 0002_users_indexes\.sql was changed/);
    expect(await scratch.query("SELECT 1 FROM pg_indexes WHERE indexname = 'users_by_phone'")).toEqual([]);
  });

  it('stops at a failing statement of a new file, naming it; the schema before stays usable and the fixed file applies', async () => {
    const folder = copyOfMigrations();
    const file = path.join(folder, '0005_users_nickname.sql');
    writeFileSync(
      file,
      'ALTER TABLE users ADD COLUMN IF NOT EXISTS nickname text;\nCREATE INDEX ASYNC IF NOT EXISTS users_by_nickname ON users (org_id, nick_name);\n',
    );

    await expect(
      migrateUsersDatabase(scratch, { dialect: 'postgres', migrations: readMigrations(folder) }),
    ).rejects.toThrow(
      'migration 0005_users_nickname.sql failed at statement 2 (CREATE INDEX ASYNC IF NOT EXISTS users_by_nickname ON users (org_id, nick_name)): column "nick_name" does not exist',
    );
    // The users table works as before; the file is not recorded.
    await scratch.query(
      "INSERT INTO users (org_id, id, organization_id, created_at) VALUES ('org-m', 'u-1', 'org-m', '2026-01-01T00:00:00.000Z')",
    );
    expect(await scratch.query("SELECT id FROM users WHERE org_id = 'org-m'")).toEqual([{ id: 'u-1' }]);
    expect(await scratch.query('SELECT 1 FROM schema_migration_files WHERE version = 5')).toEqual([]);

    // Never applied, so still free to fix: the next run applies all of it, the added column again harmlessly.
    writeFileSync(
      file,
      'ALTER TABLE users ADD COLUMN IF NOT EXISTS nickname text;\nCREATE INDEX ASYNC IF NOT EXISTS users_by_nickname ON users (org_id, nickname);\n',
    );
    expect(
      (await migrateUsersDatabase(scratch, { dialect: 'postgres', migrations: readMigrations(folder) })).applied,
    ).toEqual([5]);
    expect(await scratch.query("SELECT 1 FROM pg_indexes WHERE indexname = 'users_by_nickname'")).toHaveLength(1);
  });
});

describe('upgrading a database the previous runner migrated (schema_migrations, no checksums)', () => {
  /** The indexes of the users and their words, each with its identity: a rebuilt index is another. */
  const INDEXES_OF_USERS =
    "SELECT indexname, (quote_ident(indexname))::regclass::oid::int AS oid FROM pg_indexes WHERE tablename IN ('users', 'user_name_words') ORDER BY indexname";
  /** Every statement sent through it, to the real database. */
  const watched = (database: PostgresUsersDatabase) => {
    const sent: string[] = [];
    return {
      sent,
      query: <TRow extends object>(text: string, values?: readonly unknown[]) => {
        sent.push(text);
        return database.query<TRow>(text, values);
      },
    };
  };

  it('applies nothing that release applied: no index built or dropped, no word backfill; each file is recorded with its checksum', async () => {
    const fixture = new URL('./fixtures/users-database-before-migration-files.sql', import.meta.url);
    for (const statement of splitStatements(readFileSync(fixture, 'utf8'))) await previousRelease.query(statement);
    // A user whose name words are not stored: a backfill run again would write them.
    await previousRelease.query(
      "INSERT INTO users (org_id, id, organization_id, name, created_at) VALUES ('org-p', 'u-1', 'org-p', 'Ada Lovelace', '2026-11-20T10:00:00.000Z')",
    );
    const indexesBefore = await previousRelease.query<{ indexname: string; oid: number }>(INDEXES_OF_USERS);
    expect(indexesBefore.map((index) => index.indexname)).toContain('users_by_email_prefix');
    const database = watched(previousRelease);

    const run = await migrateUsersDatabase(database, { dialect: 'postgres' });

    expect(run).toEqual({ applied: [], adopted: [1, 2, 3, 4] });
    expect(database.sent.filter((text) => /^(CREATE|DROP)( UNIQUE)? INDEX/.test(text))).toEqual([]);
    expect(database.sent.filter((text) => /user_name_words|FROM users/.test(text))).toEqual([]);
    for (const statement of usersMigrations().flatMap((migration) => migration.statements))
      expect(database.sent).not.toContain(statement);
    expect(await previousRelease.query("SELECT word FROM user_name_words WHERE org_id = 'org-p'")).toEqual([]);
    expect(await previousRelease.query(INDEXES_OF_USERS)).toEqual(indexesBefore);

    const recorded = await previousRelease.query<{
      version: number;
      file_name: string;
      sha256: string;
      applied_at: string;
    }>('SELECT version, file_name, sha256, applied_at FROM schema_migration_files ORDER BY version');
    expect(recorded).toEqual(
      usersMigrations().map(({ version, file, sha256 }) => ({
        version,
        file_name: file,
        sha256,
        applied_at: expect.stringMatching(/^2026-11-/),
      })),
    );
    // The previous runner's own table stays as it was: a rollback to that release still reads it.
    expect(await previousRelease.query('SELECT version FROM schema_migrations ORDER BY version')).toEqual(
      [1, 2, 3, 4].map((version) => ({ version })),
    );
  });

  it('then checks the recorded files as any run does, and applies a new file alone', async () => {
    const folder = copyOfMigrations();
    writeFileSync(
      path.join(folder, '0005_users_nickname.sql'),
      'ALTER TABLE users ADD COLUMN IF NOT EXISTS nickname text;\n',
    );

    expect(
      await migrateUsersDatabase(previousRelease, { dialect: 'postgres', migrations: readMigrations(folder) }),
    ).toEqual({
      applied: [5],
      adopted: [],
    });

    appendFileSync(path.join(folder, '0003_users_country_scores.sql'), '-- edited after it was applied\n');
    await expect(
      migrateUsersDatabase(previousRelease, { dialect: 'postgres', migrations: readMigrations(folder) }),
    ).rejects.toThrow(/^applied migration 0003_users_country_scores\.sql was changed/);
  });
});
