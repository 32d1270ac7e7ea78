import { appendFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import {
  defaultMigrationsFolder,
  migrateUsersDatabase,
  readMigrations,
  usersMigrations,
} from '#shared/adapters/postgres/users-migrations.ts';
import { columnTypeOf, REQUIRED_FIELDS } from '#shared/adapters/postgres/users-schema.ts';
import { USER_RECORD_FIELDS } from '#shared/domain/users/user-record.ts';

/**
 * The migration files on the tier's real PostgreSQL, in a database of this file's own: the schema
 * they make holds every user field, a changed applied file stops the run, and a failing file
 * leaves the schema before it usable and names the statement.
 */

const local = inject('usersDatabase');
const databaseName = `migrations_${process.pid}_${Date.now()}`;
const admin = PostgresUsersDatabase.withPassword({
  host: local.host,
  port: local.port,
  ...local.admin,
  maxConnections: 1,
});
let scratch: PostgresUsersDatabase;
const folders: string[] = [];

beforeAll(async () => {
  await admin.query(`CREATE DATABASE ${databaseName}`);
  scratch = new PostgresUsersDatabase({
    USERS_DATABASE_HOST: local.host,
    USERS_DATABASE_PORT: local.port,
    USERS_DATABASE_NAME: databaseName,
    USERS_DATABASE_USER: local.admin.user,
    USERS_DATABASE_AUTH: 'password',
    USERS_DATABASE_PASSWORD: local.admin.password,
    USERS_DATABASE_MAX_CONNECTIONS: 1,
  });
});

afterAll(async () => {
  await scratch?.close();
  await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
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
    expect(await migrateUsersDatabase(scratch, { dialect: 'postgres' })).toEqual(
      usersMigrations().map((migration) => migration.version),
    );

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
    expect(await migrateUsersDatabase(scratch, { dialect: 'postgres', migrations: readMigrations(folder) })).toEqual([
      5,
    ]);
    expect(await scratch.query("SELECT 1 FROM pg_indexes WHERE indexname = 'users_by_nickname'")).toHaveLength(1);
  });
});
