import { BOOLEAN_FILTER_FIELDS, NUMBER_FILTER_FIELDS, type UserField } from '#shared/domain/users/user-status-query.ts';
import type { SqlRunner } from './users-database.ts';
import { USER_NAME_WORDS_TABLE } from './user-name-words.ts';
import type { SqlDialect } from './users-migrations.ts';

/**
 * The users table's column types and the database roles. The table and its indexes are created by
 * the migration files (users-migrations.ts). Both databases compare text in the C collation (byte
 * order, which for UTF-8 is code-point order), so `created_at` text (one canonical ISO form) sorts
 * as time and ids sort as DynamoDB sorted them.
 */

/**
 * Column type of each record field, as the migrations create it (a test holds them to it); the PEP
 * and sanction result is stored as its JSON text.
 */
export function columnTypeOf(field: UserField): 'text' | 'double precision' | 'boolean' {
  if ((NUMBER_FILTER_FIELDS as readonly string[]).includes(field)) return 'double precision';
  if ((BOOLEAN_FILTER_FIELDS as readonly string[]).includes(field)) return 'boolean';
  return 'text';
}

/** The record fields stored NOT NULL. */
export const REQUIRED_FIELDS: ReadonlySet<UserField> = new Set(['id', 'created_at', 'organization_id']);

/** The role the functions that read users connect as (DSQL maps it to their IAM roles). */
export const USERS_READER_ROLE = 'users_reader';
/** The role the erasure (DELETE /v1/users/{id}) connects as: it reads the user, then deletes the row. */
export const USERS_ERASER_ROLE = 'users_eraser';

/**
 * The role POST /v1/sandbox/users connects as: it writes users and replaces their search words.
 * Aurora DSQL has no row-level security, so what keeps it to sandboxes is its one writer
 * (PostgresSandboxUserStore), which writes under the key of the verified sandbox token alone.
 */
export const USERS_SANDBOX_WRITER_ROLE = 'users_sandbox_writer';

/**
 * What each role may do on users and their search words, and nothing else (no other table; only
 * the sandbox's writer inserts or updates).
 */
export const USERS_ROLE_PRIVILEGES = {
  [USERS_READER_ROLE]: 'SELECT',
  // DELETE ... WHERE reads the columns it filters on, which takes SELECT too.
  [USERS_ERASER_ROLE]: 'SELECT, DELETE',
  // INSERT ... ON CONFLICT DO UPDATE, and the words replaced (DELETE then INSERT) under a row lock (SELECT).
  [USERS_SANDBOX_WRITER_ROLE]: 'SELECT, INSERT, UPDATE, DELETE',
} as const;
export type UsersRole = keyof typeof USERS_ROLE_PRIVILEGES;

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
