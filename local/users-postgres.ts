import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import {
  ensureRole,
  USERS_ERASER_ROLE,
  USERS_READER_ROLE,
  USERS_SANDBOX_WRITER_ROLE,
} from '#shared/adapters/postgres/users-schema.ts';
import { migrateUsersDatabase } from '#shared/adapters/postgres/users-migrations.ts';
import { startPostgresServer } from './postgres-server.ts';

/**
 * A real PostgreSQL for the users table (Aurora DSQL's local stand-in), from the npm registry
 * (postgres-server.ts), in a temporary folder removed on stop, listening
 * on 127.0.0.1 only. Initialised in the C collation with UTF-8 and run in repeatable read, as DSQL is
 * (so concurrent writers of the same rows conflict with 40001 there too), migrated with the same
 * migrations, with a reader role for the functions, an eraser role for the erasure and the
 * superuser for the writers.
 */

export interface LocalUsersDatabase {
  host: string;
  port: number;
  /** The superuser: migrations, import, seed. */
  admin: { user: string; password: string };
  /** What the functions connect as: SELECT on users only, as in AWS. */
  reader: { user: string; password: string };
  /** What the erasure (DELETE /v1/users/{id}) connects as: SELECT and DELETE on users, as in AWS. */
  eraser: { user: string; password: string };
  /** What POST /v1/sandbox/users connects as: it writes users and their search words, as in AWS. */
  sandboxWriter: { user: string; password: string };
  /** The postmaster; its children are the connections' backends (the fault tier pauses them all). */
  processId: number;
  stop(): Promise<void>;
}

const ADMIN_USER = 'postgres';

export async function startUsersPostgres(port: number): Promise<LocalUsersDatabase> {
  const admin = { user: ADMIN_USER, password: randomBytes(18).toString('base64url') };
  const reader = { user: USERS_READER_ROLE, password: randomBytes(18).toString('base64url') };
  const eraser = { user: USERS_ERASER_ROLE, password: randomBytes(18).toString('base64url') };
  const sandboxWriter = { user: USERS_SANDBOX_WRITER_ROLE, password: randomBytes(18).toString('base64url') };
  const server = await startPostgresServer({
    port,
    superuser: admin.user,
    password: admin.password,
    settings: {
      listen_addresses: '127.0.0.1',
      unix_socket_directories: '',
      // Throw-away data: durability would only slow the tests and the seed.
      fsync: 'off',
      synchronous_commit: 'off',
      full_page_writes: 'off',
      max_connections: '200',
      // DSQL's isolation (snapshot): a writer whose rows changed since it began gets 40001, as there.
      default_transaction_isolation: 'repeatable read',
      // The default 128 MB does not hold a million users' hot indexes; the benchmark's plans read less from disk.
      shared_buffers: '512MB',
      // PostgreSQL's default, said out loud: shared buffers on 2 MB pages when the machine has them reserved
      // (vm.nr_hugepages). Each backend maps shared buffers page by page on first touch; on a VM a 4 KB page's fault
      // costs up to a millisecond, which made a new connection's first query several times slower than its tenth.
      huge_pages: 'try',
    },
  });
  const { processId } = server;

  const database = PostgresUsersDatabase.withPassword({ host: '127.0.0.1', port, ...admin, maxConnections: 1 });
  try {
    await migrateUsersDatabase(database, { dialect: 'postgres' });
    await ensureRole(database, { dialect: 'postgres', role: USERS_READER_ROLE, localPassword: reader.password });
    await ensureRole(database, { dialect: 'postgres', role: USERS_ERASER_ROLE, localPassword: eraser.password });
    await ensureRole(database, {
      dialect: 'postgres',
      role: USERS_SANDBOX_WRITER_ROLE,
      localPassword: sandboxWriter.password,
    });
  } finally {
    await database.close();
  }
  return {
    host: '127.0.0.1',
    port,
    admin,
    reader,
    eraser,
    sandboxWriter,
    processId,
    stop: async () => {
      // A fault test may have left it paused: it would never act on SIGINT.
      resumeTree(processId);
      await server.stop();
    },
  };
}

/** SIGCONT to the postmaster and every backend. */
export function resumeTree(processId: number): void {
  for (const pid of [processId, ...childProcessIds(processId)]) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // already gone
    }
  }
}

export function childProcessIds(processId: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(processId)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** Where `npm start` leaves the local users database's address and superuser for the commands (users:import). */
export const usersDatabaseFile = (localDir: string): string => join(localDir, 'users-database.json');

export interface UsersDatabaseFile {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** Written 0600 into the (0700) local folder, removed when the stack stops. */
export async function writeUsersDatabaseFile(
  localDir: string,
  database: LocalUsersDatabase,
): Promise<() => Promise<void>> {
  const file = usersDatabaseFile(localDir);
  await mkdir(localDir, { recursive: true, mode: 0o700 });
  const content: UsersDatabaseFile = { host: database.host, port: database.port, ...database.admin };
  await writeFile(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  return () => rm(file, { force: true });
}
