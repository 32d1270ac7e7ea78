import { mkdtempSync, rmSync, writeFileSync, copyFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultMigrationsFolder, readMigrations, type Migration } from '#shared/adapters/postgres/users-migrations.ts';

/**
 * Contract §24: migrations of the users database are additive. A release runs its migrations before its functions
 * take traffic, while the previous release still serves (and serves again after a rollback), so a column or table
 * that release reads must outlive it: drop or rename it two releases later, as a contract step listed here with
 * its reason (docs/operate.md "Deployments": what a rollback does not undo).
 */
const CONTRACT_STEPS: Readonly<Record<string, string>> = {};

/** Statements that take away what an earlier release may read; indexes are not read by name, so they may go. */
const DESTRUCTIVE = [
  {
    what: 'drops a column',
    pattern: /\bALTER\s+TABLE\b[\s\S]*\bDROP\s+(?:COLUMN\b|(?!CONSTRAINT\b|DEFAULT\b|NOT\b)\w)/i,
  },
  { what: 'drops a table', pattern: /\bDROP\s+TABLE\b/i },
  { what: 'drops a view', pattern: /\bDROP\s+(?:MATERIALIZED\s+)?VIEW\b/i },
  { what: 'renames a column or table', pattern: /\bRENAME\b/i },
  { what: 'changes a column’s type', pattern: /\bALTER\s+(?:COLUMN\s+)?\w+\s+(?:SET\s+DATA\s+)?TYPE\b/i },
] as const;

/** What each destructive statement of a migration does, one line each; nothing for an additive migration. */
function destructiveChanges(migration: Migration): string[] {
  return migration.statements.flatMap((statement) =>
    DESTRUCTIVE.filter(({ pattern }) => pattern.test(statement)).map(
      ({ what }) => `${migration.file} ${what}: ${statement.replace(/\s+/g, ' ')}`,
    ),
  );
}

/** The destructive changes of `folder`'s migrations that are not listed contract steps. */
function refusedChanges(folder: string, contractSteps: Readonly<Record<string, string>> = CONTRACT_STEPS): string[] {
  return readMigrations(folder)
    .filter((migration) => contractSteps[migration.file] === undefined)
    .flatMap(destructiveChanges);
}

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The service's migration files and one more, `0NNN_next.sql`, holding `sql`. */
function withNextMigration(sql: string): { folder: string; file: string } {
  const folder = mkdtempSync(path.join(tmpdir(), 'users-migrations-'));
  folders.push(folder);
  const existing = readdirSync(defaultMigrationsFolder()).filter((name) => name.endsWith('.sql'));
  for (const name of existing) copyFileSync(path.join(defaultMigrationsFolder(), name), path.join(folder, name));
  const file = `${String(existing.length + 1).padStart(4, '0')}_next.sql`;
  writeFileSync(path.join(folder, file), sql);
  return { folder, file };
}

describe('users database migrations are additive (contract §24)', () => {
  it('no migration drops or renames a column or table an earlier release reads, but a listed contract step', () => {
    expect(refusedChanges(defaultMigrationsFolder())).toEqual([]);
  });

  it('lists only contract steps that exist, each with its reason', () => {
    const files = new Set(readMigrations().map((migration) => migration.file));
    for (const [file, reason] of Object.entries(CONTRACT_STEPS)) {
      expect(files.has(file), file).toBe(true);
      expect(reason.length, file).toBeGreaterThan(40);
    }
  });

  it.each([
    ['ALTER TABLE users DROP COLUMN email;', 'drops a column'],
    ['ALTER TABLE users DROP email;', 'drops a column'],
    ['alter table users\n  drop column if exists fmc_score;', 'drops a column'],
    ['DROP TABLE users;', 'drops a table'],
    ['DROP TABLE IF EXISTS user_name_words;', 'drops a table'],
    ['ALTER TABLE users RENAME COLUMN email TO email_address;', 'renames a column or table'],
    ['ALTER TABLE users RENAME TO people;', 'renames a column or table'],
    ['ALTER TABLE users ALTER COLUMN country TYPE varchar(3);', 'changes a column’s type'],
  ])('refuses a new migration that runs %s', (sql, what) => {
    const { folder, file } = withNextMigration(`-- next release\n${sql}\n`);
    expect(refusedChanges(folder)).toEqual([expect.stringContaining(`${file} ${what}`)]);
  });

  it('lets a destructive change through once it is listed as a contract step, and additive changes always', () => {
    const drop = withNextMigration('ALTER TABLE users DROP COLUMN legacy_score;\n');
    expect(refusedChanges(drop.folder, { [drop.file]: 'no release since 0004 reads legacy_score' })).toEqual([]);
    const additive = withNextMigration(
      [
        'ALTER TABLE users ADD COLUMN nickname text;',
        'CREATE INDEX ASYNC IF NOT EXISTS users_by_nickname ON users (org_id, nickname);',
        'DROP INDEX IF EXISTS users_by_email;',
        'ALTER TABLE users ALTER COLUMN nickname DROP DEFAULT;',
      ].join('\n') + '\n',
    );
    expect(refusedChanges(additive.folder)).toEqual([]);
  });
});
