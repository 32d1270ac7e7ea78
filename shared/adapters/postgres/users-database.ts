import { DsqlSigner } from '@aws-sdk/dsql-signer';
import pg from 'pg';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { exponentialBackoff, withRetries } from '#shared/support/retry.ts';
import type { UsersDatabaseConfig } from '#shared/config/users-database-config.ts';
import { requestDeadline } from '#shared/support/request-deadline.ts';
import { databaseTimeMeter } from '#shared/support/database-time.ts';
import { type BackendKey, type CancelTarget, sendCancelRequest } from './cancel-request.ts';
import { processEnvironment } from '#shared/config/process-environment.ts';

/**
 * The users database: Aurora DSQL in AWS (IAM authentication, a fresh token per connection), a
 * real PostgreSQL locally (a password). One small pool per function container, created at cold
 * start and reused by every invocation; in Lambda it holds one connection (one invocation at a
 * time), the local stack lets its concurrent invocations share a few.
 *
 * Every statement runs under the invocation's deadline (request-deadline.ts): a database that
 * stalls or refuses ends in a `DependencyUnavailableError`, which the API answers with 503 and
 * `Retry-After`, never in a function timeout. The connection a stalled statement used is thrown
 * away, so the next invocation does not queue behind it, and the server is asked to cancel the
 * statement (cancel-request.ts), so it does not run on there after its caller gave up. The same
 * happens to a request's statements when its organization's request budget runs out while they
 * run (the budget cuts the request's `DatabaseTimeMeter` off): they end in the budget's 429.
 *
 * DSQL resolves concurrency optimistically: a commit that conflicts with another is refused with
 * SQLSTATE 40001 (OC000, OC001), and AWS tells applications to run it again. Every statement and
 * every transaction here is run again on 40001 (and on 40P01, the deadlock only a locking
 * PostgreSQL reports), with full-jitter exponential backoff, until the invocation's deadline; each
 * retry is counted (`onConflictRetry`, a metric in the functions). A conflict that outlasts the
 * deadline is a `DependencyUnavailableError` (503 and `Retry-After`).
 */

/** What adapters need of the database: parameterized statements and short transactions. */
export interface SqlRunner {
  query<TRow extends object = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<TRow[]>;
  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back when
   * it throws. A conflict runs `work` again from the start, in a new transaction: it must only
   * compute from what its statements read.
   */
  transaction<T>(work: (run: Pick<SqlRunner, 'query'>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Without an invocation deadline (scripts, tests): how long a statement may run. */
const DEFAULT_STATEMENT_MS = 60_000;
/** DSQL and PostgreSQL accept a connection in milliseconds; a stalled one is given up quickly. */
const CONNECT_TIMEOUT_MS = 3_000;
/** DSQL closes connections after one hour; leave well before. */
const MAX_CONNECTION_LIFETIME_SECONDS = 50 * 60;

/** A conflict's first wait is up to 10 ms; each later one doubles, to at most 1 s. */
const CONFLICT_BACKOFF = { baseMs: 10, capMs: 1_000 };
/** No conflict retry starts with less than this left before the deadline. */
const CONFLICT_LAST_ATTEMPT_MS = 100;

/** PostgreSQL error classes that mean "try again": connection trouble, resources, conflicts, shutdown. */
const TRANSIENT_SQLSTATE = /^(08|53|57P|40001|40P01|55P03|58)/;
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
]);

export interface UsersDatabaseOptions {
  region?: string;
  /** Told of each conflict retried (the functions count it in the UsersDatabaseConflictRetries metric). */
  onConflictRetry?: () => void;
  /** How a retry waits; tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
}

export class PostgresUsersDatabase implements SqlRunner {
  private readonly pool: pg.Pool;
  private readonly cancelTarget: CancelTarget;
  /** Conflicts retried by this pool since it was created (the import reports it). */
  conflictRetries = 0;

  constructor(
    config: UsersDatabaseConfig,
    private readonly options: UsersDatabaseOptions = {},
  ) {
    const region = options.region ?? processEnvironment.awsRegion();
    const signer =
      config.USERS_DATABASE_AUTH === 'dsql'
        ? new DsqlSigner({ hostname: config.USERS_DATABASE_HOST, ...(region ? { region } : {}) })
        : undefined;
    const admin = config.USERS_DATABASE_USER === 'admin';
    this.cancelTarget = {
      host: config.USERS_DATABASE_HOST,
      port: config.USERS_DATABASE_PORT,
      tls: signer !== undefined,
    };
    this.pool = new pg.Pool({
      host: config.USERS_DATABASE_HOST,
      port: config.USERS_DATABASE_PORT,
      database: config.USERS_DATABASE_NAME,
      user: config.USERS_DATABASE_USER,
      // A DSQL token is valid 15 minutes and only checked when connecting: one per new connection.
      password: signer
        ? () => (admin ? signer.getDbConnectAdminAuthToken() : signer.getDbConnectAuthToken())
        : (config.USERS_DATABASE_PASSWORD ?? ''),
      ssl: signer ? { rejectUnauthorized: true } : false,
      max: config.USERS_DATABASE_MAX_CONNECTIONS,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      maxLifetimeSeconds: MAX_CONNECTION_LIFETIME_SECONDS,
      application_name: 'onboarding-reports-service',
    });
    // An idle connection the server closes emits here; without a listener it would crash the process.
    this.pool.on('error', () => undefined);
  }

  /** A pool on a PostgreSQL that takes a password (the local one): its address, a role and how many connections. */
  static withPassword(
    options: {
      host: string;
      port: number;
      user: string;
      password: string;
      maxConnections: number;
    },
    databaseOptions: UsersDatabaseOptions = {},
  ): PostgresUsersDatabase {
    return new PostgresUsersDatabase(
      {
        USERS_DATABASE_HOST: options.host,
        USERS_DATABASE_PORT: options.port,
        USERS_DATABASE_NAME: 'postgres',
        USERS_DATABASE_USER: options.user,
        USERS_DATABASE_AUTH: 'password',
        USERS_DATABASE_PASSWORD: options.password,
        USERS_DATABASE_MAX_CONNECTIONS: options.maxConnections,
      },
      databaseOptions,
    );
  }

  async query<TRow extends object = Record<string, unknown>>(
    text: string,
    values: readonly unknown[] = [],
  ): Promise<TRow[]> {
    return this.retryingConflicts(() => this.withConnection((client) => runStatement<TRow>(client, text, values)));
  }

  async transaction<T>(work: (run: Pick<SqlRunner, 'query'>) => Promise<T>): Promise<T> {
    return this.retryingConflicts(() => this.inTransaction(work));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** `work` again on a conflict, backing off, while the invocation's deadline (or the default statement limit) allows. */
  private async retryingConflicts<T>(work: () => Promise<T>): Promise<T> {
    const startedAt = Date.now();
    try {
      return await withRetries(work, {
        maxAttempts: Number.POSITIVE_INFINITY,
        isRetryable: isConflict,
        backoff: exponentialBackoff(CONFLICT_BACKOFF),
        // An attempt with less left would likely be cut off: an outcome unknown instead of a clean refusal.
        deadlineAt: (requestDeadline()?.at ?? startedAt + DEFAULT_STATEMENT_MS) - CONFLICT_LAST_ATTEMPT_MS,
        onRetry: () => {
          this.conflictRetries++;
          this.options.onConflictRetry?.();
        },
        ...(this.options.sleep ? { sleep: this.options.sleep } : {}),
      });
    } catch (error) {
      if (!isConflict(error)) throw error;
      // Refused, so nothing of it was written; other writers are busy with the same rows.
      throw new DependencyUnavailableError('users database', { cause: error, retryAfterSeconds: 1 });
    }
  }

  private inTransaction<T>(work: (run: Pick<SqlRunner, 'query'>) => Promise<T>): Promise<T> {
    return this.withConnection(async (client) => {
      inTransaction.add(client);
      await runStatement(client, 'BEGIN', []);
      try {
        const result = await work({ query: (text, values = []) => runStatement(client, text, values) });
        await runStatement(client, 'COMMIT', []);
        inTransaction.delete(client);
        return result;
      } catch (error) {
        // A connection whose ROLLBACK failed (or was refused as cut off) stays marked: never reused after a cut.
        await runStatement(client, 'ROLLBACK', [])
          .then(() => inTransaction.delete(client))
          .catch(() => undefined);
        throw error;
      }
    });
  }

  private async withConnection<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const startedAt = Date.now();
    for (let attempt = 1; ; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await connectBeforeDeadline(this.pool);
      } catch (error) {
        throw unavailable(error, startedAt, false);
      }
      const reused = servedBefore.has(client);
      // pg emits a checked-out connection's failure as an 'error' event too, which would crash
      // the process without a listener; the statement in flight rejects with the same error.
      client.on('error', ignoreConnectionError);
      try {
        const result = await work(client);
        servedBefore.add(client);
        client.off('error', ignoreConnectionError);
        client.release();
        return result;
      } catch (error) {
        if (error instanceof StatementCutOffError) {
          // The request answers at once; its connection is stopped and given back (or not) meanwhile.
          void this.stopCutOffStatement(client, error);
          throw error.reason as Error;
        }
        // A conflict leaves the connection as good as before; the caller runs the work again.
        const broken = !isConflict(error) && (isTransient(error) || isStatementTimeout(error));
        // A broken connection is thrown away and may still fail late: it keeps the listener.
        if (!broken) client.off('error', ignoreConnectionError);
        // A connection whose statement was cut off may still be busy on the server: never reuse it.
        client.release(broken ? (error as Error) : undefined);
        if (isStatementTimeout(error)) await this.cancelOnServer(client);
        // A pooled connection the server closed while it sat idle (a restart, a frozen Lambda
        // container, DSQL's one-hour limit): once more on a fresh one. Every statement this
        // service runs is a read, an upsert or a delete, so running it again is safe.
        if (reused && attempt === 1 && isClosedConnection(error)) continue;
        if (broken) throw unavailable(error, startedAt, true);
        throw error;
      }
    }
  }

  /**
   * Stops a statement its request was cut off from: the server is asked to cancel it, and the
   * connection goes back to the pool only if the statement then ends in "canceled" (57014), the
   * proof that the cancel hit it and not a later statement; otherwise, or if it does not end
   * within a second, the connection is thrown away. Reusing it spares the next request a new
   * connection (a new server process locally, a new IAM token deployed) for every cut.
   */
  private async stopCutOffStatement(client: pg.PoolClient, cut: StatementCutOffError): Promise<void> {
    const ended = cut.statement ? settledWithin(cut.statement, CUT_STATEMENT_END_MS) : Promise.resolve(undefined);
    await this.cancelOnServer(client);
    const outcome = await ended;
    // In a transaction the connection would still hold it (its ROLLBACK was refused as cut off too).
    const canceled = (outcome as { code?: unknown } | undefined)?.code === QUERY_CANCELED && !inTransaction.has(client);
    if (canceled) client.off('error', ignoreConnectionError);
    client.release(canceled ? undefined : cut);
  }

  /** Asks the server to stop what the connection's backend still runs (a statement cut off by the deadline). */
  private async cancelOnServer(client: pg.PoolClient): Promise<void> {
    const { processID, secretKey } = client as unknown as Partial<BackendKey>;
    if (typeof processID === 'number' && typeof secretKey === 'number') {
      await sendCancelRequest(this.cancelTarget, { processID, secretKey });
    }
  }
}

/** `pool.connect()`, given up at the invocation's deadline (a connection that opens later goes back to the pool). */
async function connectBeforeDeadline(pool: pg.Pool): Promise<pg.PoolClient> {
  const deadline = requestDeadline();
  const connecting = pool.connect();
  if (!deadline) return connecting;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StatementTimeoutError()), Math.max(0, deadline.at - Date.now()));
  });
  try {
    return await Promise.race([connecting, expired]);
  } catch (error) {
    connecting.then((late) => late.release()).catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function runStatement<TRow extends object>(
  client: pg.PoolClient,
  text: string,
  values: readonly unknown[],
): Promise<TRow[]> {
  const deadline = requestDeadline();
  const remainingMs = deadline ? deadline.at - Date.now() : DEFAULT_STATEMENT_MS;
  if (remainingMs <= 0) return Promise.reject(new StatementTimeoutError());
  const meter = databaseTimeMeter();
  const cut = meter?.cutSignal;
  if (cut?.aborted) return Promise.reject(new StatementCutOffError(cut.reason));
  const ended = meter?.statementStarted();
  const running = client
    .query<TRow>({ text, values: values as unknown[], query_timeout: remainingMs } as pg.QueryConfig)
    .then((result) => result.rows)
    .catch((error: unknown) => {
      throw (error as Error).message === 'Query read timeout' ? new StatementTimeoutError({ cause: error }) : error;
    });
  return (cut ? untilCutOff(running, cut) : running).finally(() => ended?.());
}

/** `running`, unless `cut` aborts first: then a `StatementCutOffError` at once (the statement is left to the caller to stop). */
function untilCutOff<T>(running: Promise<T>, cut: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onCut = () => {
      running.catch(() => undefined);
      reject(new StatementCutOffError(cut.reason, running));
    };
    cut.addEventListener('abort', onCut, { once: true });
    running.then(resolve, reject).finally(() => cut.removeEventListener('abort', onCut));
  });
}

/** A statement stopped because its request was cut off (its organization's request budget is spent); `reason` says why. */
class StatementCutOffError extends Error {
  override name = 'StatementCutOffError';
  constructor(
    readonly reason: unknown,
    /** The statement still running when it was cut off (none if it was refused before it started). */
    readonly statement?: Promise<unknown>,
  ) {
    super('the statement was cut off', { cause: reason });
  }
}

/** PostgreSQL's SQLSTATE for a statement stopped by a cancel request. */
const QUERY_CANCELED = '57014';
/** How long a cut-off statement may take to end after its cancel before its connection is thrown away. */
const CUT_STATEMENT_END_MS = 1_000;

/** What `statement` rejected with (undefined if it resolved, or had not settled within `ms`). */
async function settledWithin(statement: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([
      statement.then(
        () => undefined,
        (error: unknown) => error,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A statement ran into the invocation's deadline (or, without one, the default limit). */
export class StatementTimeoutError extends Error {
  override name = 'StatementTimeoutError';
  constructor(options?: { cause?: unknown }) {
    super('the users database did not answer in time', options);
  }
}

const isStatementTimeout = (error: unknown): boolean => error instanceof StatementTimeoutError;

const ignoreConnectionError = (): void => undefined;

/** Pool clients inside `transaction` now. */
const inTransaction = new WeakSet<pg.PoolClient>();

/** Pool clients that completed a statement for this pool before: a failure on one may only mean it went stale. */
const servedBefore = new WeakSet<pg.PoolClient>();

/** The server ended the connection (terminated, reset, shut down), as opposed to a slow or refusing server. */
function isClosedConnection(error: unknown): boolean {
  if (!(error instanceof Error) || isStatementTimeout(error)) return false;
  const { code } = error as Error & { code?: string };
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === '57P01' || code?.startsWith('08')) return true;
  return /Connection terminated|Client has encountered a connection error/.test(error.message);
}

/** DSQL's optimistic-concurrency refusal (40001), or a locking PostgreSQL's deadlock (40P01): nothing was written. */
export function isConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === '40001' || code === '40P01';
}

function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as Error & { code?: string };
  if (code !== undefined && (NETWORK_CODES.has(code) || TRANSIENT_SQLSTATE.test(code))) return true;
  // pg's own words for a connection that closed or never opened.
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
    error.message,
  );
}

function unavailable(error: unknown, startedAt: number, outcomeUnknown: boolean): Error {
  if (!isTransient(error) && !isStatementTimeout(error)) return error as Error;
  const stalledMs = Date.now() - startedAt;
  return new DependencyUnavailableError('users database', {
    cause: error,
    outcomeUnknown: outcomeUnknown && isStatementTimeout(error),
    retryAfterSeconds: Math.min(30, Math.max(2, Math.ceil(stalledMs / 1000))),
  });
}
