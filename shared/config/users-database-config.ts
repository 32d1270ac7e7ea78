import * as v from 'valibot';
import { loadConfig, optionalString, positiveIntegerString, requiredString } from '#shared/config/load-config.ts';
import { processEnvironment } from '#shared/config/process-environment.ts';

/**
 * The users database's connection variables of each role a function logs in as (its adapter is
 * shared/adapters/postgres/users-database.ts). Plain schemas, apart from `pg`: a function that only
 * declares them (shared/wiring/function-config.ts) does not bundle the driver.
 */

export const usersDatabaseEnvironment = {
  USERS_DATABASE_HOST: requiredString('USERS_DATABASE_HOST'),
  USERS_DATABASE_PORT: positiveIntegerString('USERS_DATABASE_PORT', 5432),
  USERS_DATABASE_NAME: optionalString('postgres'),
  /** A database role; in DSQL mapped to the function's IAM role (`AWS IAM GRANT`), or `admin`. */
  USERS_DATABASE_USER: requiredString('USERS_DATABASE_USER'),
  /** `dsql`: IAM tokens from @aws-sdk/dsql-signer over TLS; `password`: USERS_DATABASE_PASSWORD (local). */
  USERS_DATABASE_AUTH: v.optional(v.picklist(['dsql', 'password']), 'dsql'),
  USERS_DATABASE_PASSWORD: v.optional(v.string()),
  USERS_DATABASE_MAX_CONNECTIONS: positiveIntegerString('USERS_DATABASE_MAX_CONNECTIONS', 1),
};

export type UsersDatabaseConfig = v.InferOutput<v.ObjectSchema<typeof usersDatabaseEnvironment, undefined>>;

/**
 * The erasure function's connection: the same variables, except that its role and password have
 * names of their own. Locally every function runs in one process with one environment, whose
 * USERS_DATABASE_USER is the reader; the erasure must log in as `users_eraser` there too.
 */
const {
  USERS_DATABASE_USER: _user,
  USERS_DATABASE_PASSWORD: _password,
  ...sharedConnection
} = usersDatabaseEnvironment;
export const usersEraserDatabaseEnvironment = {
  ...sharedConnection,
  USERS_ERASER_DATABASE_USER: requiredString('USERS_ERASER_DATABASE_USER'),
  USERS_ERASER_DATABASE_PASSWORD: v.optional(v.string()),
};

/** The erasure's settings as a `PostgresUsersDatabase` takes them. */
export function eraserDatabaseConfig(
  config: v.InferOutput<v.ObjectSchema<typeof usersEraserDatabaseEnvironment, undefined>>,
): UsersDatabaseConfig {
  const { USERS_ERASER_DATABASE_USER, USERS_ERASER_DATABASE_PASSWORD, ...connection } = config;
  return {
    ...connection,
    USERS_DATABASE_USER: USERS_ERASER_DATABASE_USER,
    ...(USERS_ERASER_DATABASE_PASSWORD === undefined
      ? {}
      : { USERS_DATABASE_PASSWORD: USERS_ERASER_DATABASE_PASSWORD }),
  };
}

/** POST /v1/sandbox/users' connection: as the erasure's, with a role of its own (users_sandbox_writer). */
export const usersSandboxWriterDatabaseEnvironment = {
  ...sharedConnection,
  USERS_SANDBOX_WRITER_DATABASE_USER: requiredString('USERS_SANDBOX_WRITER_DATABASE_USER'),
  USERS_SANDBOX_WRITER_DATABASE_PASSWORD: v.optional(v.string()),
};

/** The sandbox writer's settings as a `PostgresUsersDatabase` takes them. */
export function sandboxWriterDatabaseConfig(
  config: v.InferOutput<v.ObjectSchema<typeof usersSandboxWriterDatabaseEnvironment, undefined>>,
): UsersDatabaseConfig {
  const { USERS_SANDBOX_WRITER_DATABASE_USER, USERS_SANDBOX_WRITER_DATABASE_PASSWORD, ...connection } = config;
  return {
    ...connection,
    USERS_DATABASE_USER: USERS_SANDBOX_WRITER_DATABASE_USER,
    ...(USERS_SANDBOX_WRITER_DATABASE_PASSWORD === undefined
      ? {}
      : { USERS_DATABASE_PASSWORD: USERS_SANDBOX_WRITER_DATABASE_PASSWORD }),
  };
}

export const loadUsersDatabaseConfig = (source: Record<string, string | undefined> = processEnvironment.variables()) =>
  loadConfig(v.object(usersDatabaseEnvironment), source);
