import { PostgresUserDirectory } from '#shared/adapters/postgres/user-directory.ts';
import { PostgresUserEraser } from '#shared/adapters/postgres/user-eraser.ts';
import { PostgresUserStatusReader } from '#shared/adapters/postgres/user-status-reader.ts';
import { PostgresSandboxUserStore } from '#shared/adapters/postgres/sandbox-user-store.ts';
import { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import {
  eraserDatabaseConfig,
  sandboxWriterDatabaseConfig,
  type UsersDatabaseConfig,
} from '#shared/config/users-database-config.ts';
import { recordUsersDatabaseConflictRetry } from '#shared/observability/metrics.ts';

/** The users database as the reader role (users_reader), its conflict retries counted. */
export function usersDatabaseFor(config: UsersDatabaseConfig): PostgresUsersDatabase {
  return new PostgresUsersDatabase(config, { onConflictRetry: recordUsersDatabaseConflictRetry });
}

export function userDirectoryFor(config: UsersDatabaseConfig): PostgresUserDirectory {
  return new PostgresUserDirectory(usersDatabaseFor(config));
}

export function userStatusReaderFor(config: UsersDatabaseConfig): PostgresUserStatusReader {
  return new PostgresUserStatusReader(usersDatabaseFor(config));
}

/**
 * The erasure's side of the users database: one connection as users_eraser (SELECT and DELETE on
 * users), never the reader the other functions use.
 */
export function userErasurePortsFor(config: Parameters<typeof eraserDatabaseConfig>[0]) {
  const database = new PostgresUsersDatabase(eraserDatabaseConfig(config), {
    onConflictRetry: recordUsersDatabaseConflictRetry,
  });
  return { users: new PostgresUserDirectory(database), eraser: new PostgresUserEraser(database) };
}

/** POST /v1/sandbox/users' store: one connection as users_sandbox_writer, never the reader or the eraser. */
export function sandboxUserStoreFor(
  config: Parameters<typeof sandboxWriterDatabaseConfig>[0],
): PostgresSandboxUserStore {
  return new PostgresSandboxUserStore(
    new PostgresUsersDatabase(sandboxWriterDatabaseConfig(config), {
      onConflictRetry: recordUsersDatabaseConflictRetry,
    }),
  );
}
