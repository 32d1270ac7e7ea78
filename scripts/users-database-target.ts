import { readFile } from 'node:fs/promises';
import { keysDirectory } from '#local/dev-keys.ts';
import { usersDatabaseFile, type UsersDatabaseFile } from '#local/users-postgres.ts';
import { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';

/**
 * Where the users commands (import, migrate-from-dynamodb) write: by default the running local
 * stack's PostgreSQL (its address and superuser in .local/users-database.json, written by
 * `npm start`), or an Aurora DSQL cluster by its endpoint, as `admin` with an IAM token from the
 * AWS SDK's standard credential chain.
 */

export const USERS_DATABASE_TARGET_HELP = `Target:
  default                the running local stack's PostgreSQL (npm start leaves its address in
                         .local/users-database.json)
  --database <endpoint>  an Aurora DSQL cluster instead, e.g. abc123.dsql.eu-west-1.on.aws (the
                         deployed stack's output UsersDatabaseEndpoint): IAM authentication as
                         admin (dsql:DbConnectAdmin) with the AWS SDK's standard credential chain
  --region <region>      with --database: the cluster's region (default: read from the endpoint)`;

export interface UsersDatabaseTarget {
  database?: string;
  region?: string;
}

export class TargetUnavailableError extends Error {
  override name = 'TargetUnavailableError';
}

export async function openUsersDatabase(
  target: UsersDatabaseTarget,
): Promise<{ database: PostgresUsersDatabase; description: string }> {
  if (target.database !== undefined) {
    const region = target.region ?? /\.dsql\.([a-z0-9-]+)\.on\.aws$/.exec(target.database)?.[1];
    if (!region) throw new TargetUnavailableError(`cannot tell the region of ${target.database}: pass --region`);
    const database = new PostgresUsersDatabase(
      {
        USERS_DATABASE_HOST: target.database,
        USERS_DATABASE_PORT: 5432,
        USERS_DATABASE_NAME: 'postgres',
        USERS_DATABASE_USER: 'admin',
        USERS_DATABASE_AUTH: 'dsql',
        USERS_DATABASE_MAX_CONNECTIONS: 8,
      },
      { region },
    );
    return { database, description: `Aurora DSQL ${target.database}` };
  }
  const file = usersDatabaseFile(keysDirectory());
  let local: UsersDatabaseFile;
  try {
    local = JSON.parse(await readFile(file, 'utf8')) as UsersDatabaseFile;
  } catch {
    throw new TargetUnavailableError(
      `no local users database (${file} is missing): start the local stack with npm start`,
    );
  }
  const database = PostgresUsersDatabase.withPassword({ ...local, maxConnections: 8 });
  return { database, description: `the local PostgreSQL on ${local.host}:${local.port}` };
}

/**
 * The target, checked before any work: the users table answers. A missing table or an
 * unreachable database is written to stderr as `<command>: <reason>` and gives undefined (exit 1).
 */
export async function openCheckedUsersDatabase(
  command: string,
  target: UsersDatabaseTarget,
): Promise<{ database: PostgresUsersDatabase; description: string } | undefined> {
  let opened: { database: PostgresUsersDatabase; description: string } | undefined;
  try {
    opened = await openUsersDatabase(target);
    await opened.database.query('SELECT 1 FROM users LIMIT 1');
    return opened;
  } catch (error) {
    await opened?.database.close().catch(() => undefined);
    const reason =
      error instanceof TargetUnavailableError
        ? error.message
        : `cannot use the users table: ${(error as Error).message}`;
    process.stderr.write(`${command}: ${reason}\n`);
    return undefined;
  }
}
