import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runWithDeadline } from '#shared/support/request-deadline.ts';
import { databaseTimeMeter, measuringDatabaseTime } from '#shared/support/database-time.ts';
import { PostgresUsersDatabase, type UsersDatabaseOptions } from '#shared/adapters/postgres/users-database.ts';
import { loadUsersDatabaseConfig } from '#shared/config/users-database-config.ts';
import { DependencyUnavailableError, RequestBudgetSpentError } from '#shared/domain/errors.ts';

/** A TCP port nothing listens on: one the system just handed out, closed again. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A "database" that accepts connections and never says a word. */
async function stalledServer(): Promise<{ server: Server; sockets: Set<Socket>; port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, sockets, port: (server.address() as { port: number }).port };
}

/**
 * A "database" that lets a client in (the PostgreSQL startup handshake: AuthenticationOk, then
 * ReadyForQuery) and then never answers a statement.
 */
async function silentAfterLoginServer(): Promise<{
  server: Server;
  sockets: Set<Socket>;
  connections: () => number;
  port: number;
}> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.once('data', () => {
      const authenticationOk = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]);
      const readyForQuery = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);
      socket.write(Buffer.concat([authenticationOk, readyForQuery]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, sockets, connections: () => connections, port: (server.address() as { port: number }).port };
}

/**
 * A "database" that answers the first statement of each connection (no rows) and resets the
 * connection on the second, as a server that closed an idle connection the client had not
 * noticed yet (a restart behind a proxy, a thawed Lambda container).
 */
async function oneStatementPerConnectionServer(): Promise<{
  server: Server;
  sockets: Set<Socket>;
  connections: () => number;
  port: number;
}> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const message = (type: string, body: Buffer = Buffer.alloc(0)) => {
    const header = Buffer.alloc(5);
    header.write(type, 0, 'latin1');
    header.writeUInt32BE(body.length + 4, 1);
    return Buffer.concat([header, body]);
  };
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let received = 0;
    socket.on('data', () => {
      received++;
      // 1: the startup message; 2: the first statement (Parse, Bind, Describe, Execute, Sync).
      if (received === 1) socket.write(Buffer.concat([message('R', Buffer.alloc(4)), message('Z', Buffer.from('I'))]));
      else if (received === 2)
        socket.write(
          Buffer.concat([
            message('1'),
            message('2'),
            message('n'),
            message('C', Buffer.from('SELECT 0\0', 'latin1')),
            message('Z', Buffer.from('I')),
          ]),
        );
      else socket.resetAndDestroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, sockets, connections: () => connections, port: (server.address() as { port: number }).port };
}

/**
 * A "database" that logs a client in with a backend key (BackendKeyData: process 4242, secret
 * 99), never answers a statement, and records each CancelRequest it receives.
 */
async function keyedSilentServer(): Promise<{
  server: Server;
  sockets: Set<Socket>;
  cancels: Array<{ processID: number; secretKey: number }>;
  port: number;
}> {
  const sockets = new Set<Socket>();
  const cancels: Array<{ processID: number; secretKey: number }> = [];
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.once('data', (chunk: Buffer) => {
      if (chunk.length === 16 && chunk.readInt32BE(4) === 80877102) {
        cancels.push({ processID: chunk.readInt32BE(8), secretKey: chunk.readInt32BE(12) });
        socket.end();
        return;
      }
      const authenticationOk = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]);
      const backendKey = Buffer.alloc(13);
      backendKey.write('K', 0, 'latin1');
      backendKey.writeInt32BE(12, 1);
      backendKey.writeInt32BE(4242, 5);
      backendKey.writeInt32BE(99, 9);
      const readyForQuery = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);
      socket.write(Buffer.concat([authenticationOk, backendKey, readyForQuery]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, sockets, cancels, port: (server.address() as { port: number }).port };
}

/**
 * A "database" that refuses the statements `conflicts` picks with SQLSTATE 40001, as DSQL refuses a
 * conflicting commit, and answers every other one (no rows). Records each statement's text.
 */
async function conflictingServer(conflicts: (text: string, index: number) => boolean): Promise<{
  server: Server;
  sockets: Set<Socket>;
  connections: () => number;
  statements: string[];
  port: number;
}> {
  const sockets = new Set<Socket>();
  const statements: string[] = [];
  let connections = 0;
  const message = (type: string, body: Buffer = Buffer.alloc(0)) => {
    const header = Buffer.alloc(5);
    header.write(type, 0, 'latin1');
    header.writeUInt32BE(body.length + 4, 1);
    return Buffer.concat([header, body]);
  };
  const cString = (text: string) => Buffer.from(`${text}\0`, 'latin1');
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let loggedIn = false;
    let inTransaction = false;
    socket.on('data', (chunk: Buffer) => {
      if (!loggedIn) {
        loggedIn = true;
        socket.write(Buffer.concat([message('R', Buffer.alloc(4)), message('Z', Buffer.from('I'))]));
        return;
      }
      // A simple query ('Q', its text) or an extended one ('P': a statement name, then its text).
      const kind = chunk.toString('latin1', 0, 1);
      const body = chunk.subarray(5);
      const text = (kind === 'P' ? body.subarray(body.indexOf(0) + 1) : body).toString('utf8').split('\0')[0]!;
      statements.push(text);
      const extended = kind === 'P' ? [message('1'), message('2'), message('n')] : [];
      if (conflicts(text, statements.length - 1)) {
        const error = message(
          'E',
          Buffer.concat([
            cString('SERROR'),
            cString('C40001'),
            cString('Mmutation conflicts with another transaction, retry as needed (OC000)'),
            Buffer.from([0]),
          ]),
        );
        socket.write(Buffer.concat([error, message('Z', Buffer.from(inTransaction ? 'E' : 'I'))]));
        return;
      }
      if (text === 'BEGIN') inTransaction = true;
      if (text === 'COMMIT' || text === 'ROLLBACK') inTransaction = false;
      const tag = text === 'BEGIN' || text === 'COMMIT' || text === 'ROLLBACK' ? text : 'SELECT 0';
      socket.write(
        Buffer.concat([...extended, message('C', cString(tag)), message('Z', Buffer.from(inTransaction ? 'T' : 'I'))]),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    sockets,
    connections: () => connections,
    statements,
    port: (server.address() as { port: number }).port,
  };
}

const databaseOn = (port: number, options: UsersDatabaseOptions = {}) =>
  new PostgresUsersDatabase(
    loadUsersDatabaseConfig({
      USERS_DATABASE_HOST: '127.0.0.1',
      USERS_DATABASE_PORT: String(port),
      USERS_DATABASE_USER: 'postgres',
      USERS_DATABASE_AUTH: 'password',
      USERS_DATABASE_PASSWORD: 'not-used',
    }),
    options,
  );

/** What a promise settles with, as a value (so timing can be measured without an unhandled rejection). */
const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ value, error: undefined as unknown }),
    (error: unknown) => ({ value: undefined, error }),
  );

describe('PostgresUsersDatabase without a server', () => {
  const cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    // Most recent first: the server's sockets end before the pool waits for its connections.
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** Closes the pool, then the fake server and its sockets, after the test. */
  function closedAfterTest(database: PostgresUsersDatabase, server: Server, sockets: Set<Socket>) {
    cleanups.push(
      () => database.close(),
      async () => {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    );
    return database;
  }

  it('runs a statement again, once, on a fresh connection when a pooled connection was closed while idle', async () => {
    const { server, sockets, connections, port } = await oneStatementPerConnectionServer();
    const database = closedAfterTest(databaseOn(port), server, sockets);

    await expect(database.query('SELECT id FROM users WHERE false')).resolves.toEqual([]);
    // The pooled connection is reset by the server on this statement: answered on a second connection.
    await expect(database.query('SELECT id FROM users WHERE false')).resolves.toEqual([]);
    expect(connections()).toBe(2);
  });

  it('rejects with DependencyUnavailableError, and a Retry-After of at least 2 s, when the connection is refused', async () => {
    const database = databaseOn(await freePort());
    cleanups.push(() => database.close());

    const { error } = await settle(database.query('SELECT 1'));

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    const unavailable = error as DependencyUnavailableError;
    expect(unavailable.dependency).toBe('users database');
    expect(unavailable.retryAfterSeconds).toBeGreaterThanOrEqual(2);
    expect(unavailable.outcomeUnknown).toBe(false);
    expect(unavailable.cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('rejects a transaction the same way, without running its work', async () => {
    const database = databaseOn(await freePort());
    cleanups.push(() => database.close());
    let ran = false;

    const { error } = await settle(
      database.transaction(async () => {
        ran = true;
      }),
    );

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(ran).toBe(false);
  });

  it("gives up on a server that never answers at the invocation's deadline, not at the 3 s connect timeout", async () => {
    const { server, sockets, port } = await stalledServer();
    const database = closedAfterTest(databaseOn(port), server, sockets);
    const startedAt = Date.now();

    const { error } = await settle(runWithDeadline(300, () => database.query('SELECT 1')));

    const elapsedMs = Date.now() - startedAt;
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as DependencyUnavailableError).retryAfterSeconds).toBeGreaterThanOrEqual(2);
    expect(elapsedMs).toBeGreaterThanOrEqual(250);
    expect(elapsedMs).toBeLessThan(1_000);
    // The stalled connection was really attempted.
    expect(sockets.size).toBeGreaterThan(0);
  });

  it('cuts off a statement that never returns at the deadline, marks its outcome unknown, and never reuses its connection', async () => {
    const { server, sockets, connections, port } = await silentAfterLoginServer();
    const database = closedAfterTest(databaseOn(port), server, sockets);
    const startedAt = Date.now();

    const first = await settle(runWithDeadline(300, () => database.query('SELECT 1')));
    const firstMs = Date.now() - startedAt;
    const second = await settle(runWithDeadline(300, () => database.query('SELECT 1')));

    expect(first.error).toBeInstanceOf(DependencyUnavailableError);
    expect(first.error).toMatchObject({ outcomeUnknown: true, retryAfterSeconds: 2 });
    expect(firstMs).toBeLessThan(1_000);
    expect(second.error).toBeInstanceOf(DependencyUnavailableError);
    // The pool holds one connection: the second statement got a new one instead of queueing behind the stalled one.
    expect(connections()).toBe(2);
  });

  it('answers at once when the deadline has already passed', async () => {
    const { server, sockets, port } = await stalledServer();
    const database = closedAfterTest(databaseOn(port), server, sockets);
    const startedAt = Date.now();

    const { error } = await settle(runWithDeadline(0, () => database.query('SELECT 1')));

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(Date.now() - startedAt).toBeLessThan(500);
  });

  it('runs a statement refused with 40001 again until it succeeds, on the same connection, counting each retry', async () => {
    const { server, sockets, connections, statements, port } = await conflictingServer((_, index) => index < 3);
    let counted = 0;
    const database = closedAfterTest(databaseOn(port, { onConflictRetry: () => counted++ }), server, sockets);

    await expect(database.query('SELECT id FROM users WHERE org_id = $1', ['org-a'])).resolves.toEqual([]);

    expect(statements).toHaveLength(4);
    expect(counted).toBe(3);
    expect(database.conflictRetries).toBe(3);
    // A conflict says nothing bad about the connection: it is kept.
    expect(connections()).toBe(1);
  });

  it('runs a transaction whose commit conflicts again from BEGIN, work included, and resolves with its result', async () => {
    let commits = 0;
    const { server, sockets, statements, port } = await conflictingServer(
      (text) => text === 'COMMIT' && ++commits <= 2,
    );
    const database = closedAfterTest(databaseOn(port), server, sockets);
    let runs = 0;

    const result = await database.transaction(async (run) => {
      runs++;
      await run.query('DELETE FROM users WHERE org_id = $1 AND id = $2', ['org-a', 'u-1']);
      return `run ${runs}`;
    });

    expect(result).toBe('run 3');
    expect(database.conflictRetries).toBe(2);
    const begins = statements.filter((text) => text === 'BEGIN');
    expect(begins).toHaveLength(3);
    expect(statements.filter((text) => text.startsWith('DELETE'))).toHaveLength(3);
  });

  it("answers a conflict that outlasts the invocation's deadline with DependencyUnavailableError (503, Retry-After)", async () => {
    const { server, sockets, statements, port } = await conflictingServer(() => true);
    const database = closedAfterTest(databaseOn(port), server, sockets);
    const startedAt = Date.now();

    const { error } = await settle(runWithDeadline(400, () => database.query('SELECT 1')));

    const elapsedMs = Date.now() - startedAt;
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(error).toMatchObject({ outcomeUnknown: false, retryAfterSeconds: 1 });
    expect((error as DependencyUnavailableError).cause).toMatchObject({ code: '40001' });
    expect(elapsedMs).toBeLessThan(1_000);
    // Retried while the deadline allowed, and counted.
    expect(statements.length).toBeGreaterThan(2);
    expect(database.conflictRetries).toBe(statements.length - 1);
  });

  it('does not retry an error that is not a conflict', async () => {
    const { server, sockets, statements, port } = await conflictingServer(() => false);
    const database = closedAfterTest(databaseOn(port), server, sockets);

    const { error } = await settle(
      database.transaction(async () => {
        throw new TypeError('a bug in the work');
      }),
    );

    expect(error).toBeInstanceOf(TypeError);
    expect(statements).toEqual(['BEGIN', 'ROLLBACK']);
    expect(database.conflictRetries).toBe(0);
  });

  it("asks the server to cancel a statement cut off at the deadline, with the backend's key", async () => {
    const { server, sockets, cancels, port } = await keyedSilentServer();
    const database = closedAfterTest(databaseOn(port), server, sockets);
    const startedAt = Date.now();

    const { error } = await settle(runWithDeadline(300, () => database.query('SELECT count(*) FROM users')));

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    expect(cancels).toEqual([{ processID: 4242, secretKey: 99 }]);
  });

  it('a statement its request is cut off from (the budget spent) rejects at once with the reason, the server is asked to cancel it, and its running time is metered', async () => {
    const { server, sockets, cancels, port } = await keyedSilentServer();
    const database = closedAfterTest(databaseOn(port), server, sockets);
    const spent = new RequestBudgetSpentError(3);
    let meteredMs = 0;
    const startedAt = Date.now();

    const { error } = await settle(
      runWithDeadline(5_000, () =>
        measuringDatabaseTime(async () => {
          const meter = databaseTimeMeter()!;
          setTimeout(() => meter.cutOff(spent), 150);
          try {
            return await database.query('SELECT count(*) FROM users');
          } finally {
            meteredMs = meter.spentMs();
          }
        }),
      ),
    );

    expect(error).toBe(spent);
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    expect(meteredMs).toBeGreaterThanOrEqual(140);
    for (let polls = 0; polls < 40 && cancels.length === 0; polls++) await new Promise((r) => setTimeout(r, 25));
    expect(cancels).toEqual([{ processID: 4242, secretKey: 99 }]);
  });
});
