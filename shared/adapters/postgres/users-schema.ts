import { USER_RECORD_FIELDS } from '#shared/domain/users/user-record.ts';
import { BOOLEAN_FILTER_FIELDS, NUMBER_FILTER_FIELDS, type UserField } from '#shared/domain/users/user-status-query.ts';
import type { SqlRunner } from './users-database.ts';
import { backfillNameWords, USER_NAME_WORDS_STATEMENTS, USER_NAME_WORDS_TABLE } from './user-name-words.ts';

/**
 * The users table and its indexes, as migrations this project owns. Written in the subset of
 * PostgreSQL that Aurora DSQL accepts (docs/user-status.md "Schema"): no sequences, triggers,
 * extensions, temporary tables, JSON(B) columns, foreign keys, COLLATE or ASC/DESC in indexes, one
 * DDL statement per transaction, and `CREATE INDEX ASYNC`, which a local PostgreSQL does not know:
 * `forDialect` turns it into the plain form there. Both databases compare text in the C collation
 * (byte order, which for UTF-8 is code-point order), so `created_at` text (one canonical ISO form)
 * sorts as time and ids sort as DynamoDB sorted them.
 */

export type SqlDialect = 'dsql' | 'postgres';

/** Column type of each record field; the PEP and sanction result is stored as its JSON text. */
export function columnTypeOf(field: UserField): 'text' | 'double precision' | 'boolean' {
  if ((NUMBER_FILTER_FIELDS as readonly string[]).includes(field)) return 'double precision';
  if ((BOOLEAN_FILTER_FIELDS as readonly string[]).includes(field)) return 'boolean';
  return 'text';
}

const REQUIRED_FIELDS: ReadonlySet<UserField> = new Set(['id', 'created_at', 'organization_id']);

/** The role the functions that read users connect as (DSQL maps it to their IAM roles). */
export const USERS_READER_ROLE = 'users_reader';
/** The role the erasure (DELETE /v1/users/{id}) connects as: it reads the user, then deletes the row. */
export const USERS_ERASER_ROLE = 'users_eraser';

/**
 * What each role may do on users and their search words, and nothing else (no INSERT, no UPDATE,
 * no other table).
 */
export const USERS_ROLE_PRIVILEGES = {
  [USERS_READER_ROLE]: 'SELECT',
  // DELETE ... WHERE reads the columns it filters on, which takes SELECT too.
  [USERS_ERASER_ROLE]: 'SELECT, DELETE',
} as const;
export type UsersRole = keyof typeof USERS_ROLE_PRIVILEGES;

export interface Migration {
  version: number;
  description: string;
  /** Each runs on its own (DSQL allows one DDL statement per transaction); every one is safe to run again. */
  statements: readonly string[];
  /** Data the new schema needs from rows written before it, after the statements; safe to run again. */
  backfill?: (database: Pick<SqlRunner, 'query'>) => Promise<unknown>;
}

const columns = USER_RECORD_FIELDS.map(
  (field) => `${field} ${columnTypeOf(field)}${REQUIRED_FIELDS.has(field) ? ' NOT NULL' : ''}`,
);

export const USERS_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'users table, keyed by organization and id',
    statements: [
      `CREATE TABLE IF NOT EXISTS users (
  org_id text NOT NULL,
  email_key text,
  ${columns.join(',\n  ')},
  PRIMARY KEY (org_id, id)
)`,
    ],
  },
  {
    version: 2,
    description: 'indexes for ordering and the common filters (chosen from EXPLAIN ANALYZE at 1,000,000 users)',
    statements: [
      'CREATE INDEX ASYNC IF NOT EXISTS users_by_created_at ON users (org_id, created_at, id)',
      'CREATE INDEX ASYNC IF NOT EXISTS users_by_email ON users (org_id, email_key)',
      'CREATE INDEX ASYNC IF NOT EXISTS users_by_registration ON users (org_id, registration_status, age)',
      'CREATE INDEX ASYNC IF NOT EXISTS users_by_last_name ON users (org_id, last_name)',
      'CREATE INDEX ASYNC IF NOT EXISTS users_by_city ON users (org_id, city)',
      'CREATE INDEX ASYNC IF NOT EXISTS users_by_dob ON users (org_id, dob)',
      'CREATE INDEX ASYNC IF NOT EXISTS users_by_country ON users (org_id, country, selfie_liveness_score)',
      'CREATE INDEX ASYNC IF NOT EXISTS users_by_result ON users (org_id, high_level_result, created_at)',
    ],
  },
  {
    version: 3,
    description: 'country with both scores, so a count of a country and score ranges reads the index alone',
    statements: [
      'CREATE INDEX ASYNC IF NOT EXISTS users_by_country_scores ON users (org_id, country, selfie_liveness_score, fmc_score)',
      'DROP INDEX IF EXISTS users_by_country',
    ],
  },
  {
    version: 4,
    description:
      'filters.search: user_name_words (word starts by key range), and the e-mail index widened so an e-mail start is read from it alone',
    statements: [
      ...USER_NAME_WORDS_STATEMENTS,
      'CREATE INDEX ASYNC IF NOT EXISTS users_by_email_prefix ON users (org_id, email_key, created_at, id)',
      'DROP INDEX IF EXISTS users_by_email',
    ],
    backfill: backfillNameWords,
  },
];

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY,
  description text NOT NULL,
  applied_at text NOT NULL
)`;

/** The statement as the dialect takes it: a local PostgreSQL builds indexes synchronously. */
export function forDialect(statement: string, dialect: SqlDialect): string {
  return dialect === 'dsql' ? statement : statement.replace(/^CREATE (UNIQUE )?INDEX ASYNC /, 'CREATE $1INDEX ');
}

/**
 * Applies the migrations not yet recorded in `schema_migrations`, in order. Each statement is
 * idempotent, so a run that stopped half-way is finished by the next one.
 */
export async function migrateUsersDatabase(
  database: Pick<SqlRunner, 'query'>,
  options: { dialect: SqlDialect; migrations?: readonly Migration[] },
): Promise<number[]> {
  await database.query(MIGRATIONS_TABLE);
  const applied = new Set(
    (await database.query<{ version: number }>('SELECT version FROM schema_migrations')).map((row) => row.version),
  );
  const appliedNow: number[] = [];
  for (const migration of options.migrations ?? USERS_MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    for (const statement of migration.statements) await database.query(forDialect(statement, options.dialect));
    await migration.backfill?.(database);
    await database.query(
      'INSERT INTO schema_migrations (version, description, applied_at) VALUES ($1, $2, $3) ON CONFLICT (version) DO NOTHING',
      [migration.version, migration.description, new Date().toISOString()],
    );
    appliedNow.push(migration.version);
  }
  return appliedNow;
}

/**
 * Creates `role` if missing and grants it its privileges on users (`USERS_ROLE_PRIVILEGES`). In
 * DSQL the role is then mapped to each function's IAM role with `AWS IAM GRANT` (see
 * grantRoleToIamRoles); locally it logs in with a password.
 */
export async function ensureRole(
  database: Pick<SqlRunner, 'query'>,
  options: { dialect: SqlDialect; role: UsersRole; localPassword?: string },
): Promise<void> {
  const privileges: string | undefined = USERS_ROLE_PRIVILEGES[options.role];
  if (privileges === undefined) throw new Error(`no privileges are defined for role ${options.role}`);
  await ensureRoleWith(database, options.role, privileges, options);
}

/** Lets `role` (default users_reader) read the users table and its search words. */
export async function ensureReaderRole(
  database: Pick<SqlRunner, 'query'>,
  options: { dialect: SqlDialect; role?: string; localPassword?: string },
): Promise<void> {
  await ensureRoleWith(database, options.role ?? USERS_READER_ROLE, 'SELECT', options);
}

async function ensureRoleWith(
  database: Pick<SqlRunner, 'query'>,
  role: string,
  privileges: string,
  options: { dialect: SqlDialect; localPassword?: string },
): Promise<void> {
  assertIdentifier(role);
  const exists = await database.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (exists.length === 0) await database.query(`CREATE ROLE ${role} WITH LOGIN`);
  if (options.dialect === 'postgres' && options.localPassword !== undefined) {
    // ALTER ROLE takes no bound parameters; the password is a local, generated one.
    await database.query(`ALTER ROLE ${role} WITH PASSWORD '${options.localPassword.replaceAll("'", "''")}'`);
  }
  await database.query(`GRANT ${privileges} ON users, ${USER_NAME_WORDS_TABLE} TO ${role}`);
}

/**
 * DSQL only: the IAM roles allowed to connect as `role` (`dsql:DbConnect` in their policy does the
 * rest). Roles already mapped (sys.iam_pg_role_mappings) are left alone, so a redeploy re-runs it.
 */
export async function grantReaderToIamRoles(
  database: Pick<SqlRunner, 'query'>,
  roleArns: readonly string[],
  role: string = USERS_READER_ROLE,
): Promise<void> {
  await grantRoleToIamRoles(database, role, roleArns);
}

/** DSQL only: lets the functions with these IAM roles connect as `role` (see grantReaderToIamRoles). */
export async function grantRoleToIamRoles(
  database: Pick<SqlRunner, 'query'>,
  role: string,
  roleArns: readonly string[],
): Promise<void> {
  assertIdentifier(role);
  for (const arn of roleArns) {
    if (!/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/.test(arn)) throw new Error(`not an IAM role ARN: ${arn}`);
  }
  const mapped = new Set(
    (
      await database.query<{ arn: string }>('SELECT arn FROM sys.iam_pg_role_mappings WHERE pg_role_name = $1', [role])
    ).map((row) => row.arn),
  );
  for (const arn of roleArns) {
    if (!mapped.has(arn)) await database.query(`AWS IAM GRANT ${role} TO '${arn}'`);
  }
}

function assertIdentifier(name: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain SQL identifier: ${name}`);
}
