import { exponentialBackoff, withRetries } from '#shared/support/retry.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import type { SqlRunner } from './users-database.ts';
import { hasNulCharacter, storedBytesOf, toUserRowValues, USER_ROW_COLUMNS } from './user-rows.ts';
import { replaceNameWords } from './user-name-words.ts';

/**
 * Aurora DSQL commits at most 3,000 changed rows per transaction (each statement here is its own
 * transaction); 500 rows of 42 columns also stay under PostgreSQL's 65,535 bound parameters.
 */
export const MAX_USER_BATCH_SIZE = 500;
/** Aurora DSQL refuses a transaction that writes over 10 MiB: a batch of large records is cut at 4 MiB. */
export const MAX_USER_BATCH_BYTES = 4 * 1024 * 1024;

export interface UserWriterOptions<TTag> {
  database: Pick<SqlRunner, 'query' | 'transaction'>;
  orgId: string;
  /** Rows per INSERT, 1 to 500; default 500. */
  batchSize?: number;
  /** Batches in flight at once; default 4. */
  concurrency?: number;
  /** Attempts per batch while the database is unavailable; default 6, backing off from 200 ms. */
  maxAttempts?: number;
  baseDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Records the database has stored. */
  onWritten?: (tags: TTag[]) => void;
  /** A record the database refused on its own (the rest of its batch is stored). */
  onRefused?: (tag: TTag, reason: string) => void;
  /** A record replaced by a later put of the same id before it was sent. */
  onSuperseded?: (tag: TTag) => void;
}

/** The database kept failing, or refused a batch for a reason no single record explains. */
export class UserWriteError extends Error {
  override name = 'UserWriteError';
}

interface Entry<TTag> {
  record: UserRecord;
  tag: TTag;
  bytes: number;
}

const UPDATED_COLUMNS = USER_ROW_COLUMNS.filter((column) => column !== 'org_id' && column !== 'id');

/**
 * Writes one organization's user records with multi-row `INSERT ... ON CONFLICT DO UPDATE`
 * (a stored id is replaced), a few batches in flight, in the order a sequential writer would give:
 * a later put of an id still buffered replaces it, and a batch holding an id that an earlier batch
 * still writes waits for it. `put` applies back-pressure. A batch the database refuses as a whole
 * is retried row by row, so one bad record is reported and the others stored. After its rows, a
 * batch replaces its users' search words (user-name-words.ts), in transactions of their own (a DSQL
 * transaction holds 3,000 changed rows): a search may miss a user for those milliseconds, never
 * find one by a name it no longer has once the batch is done. What import, the local seed, the
 * benchmark and the DynamoDB migration all write through.
 */
export class PostgresUserWriter<TTag = number> {
  private readonly batchSize: number;
  private readonly concurrency: number;
  private buffer = new Map<string, Entry<TTag>>();
  private bufferBytes = 0;
  private readonly inFlight = new Set<Promise<void>>();
  /** The batch still writing each id. */
  private readonly writingIds = new Map<string, Promise<void>>();
  private failure: unknown;

  constructor(private readonly options: UserWriterOptions<TTag>) {
    this.batchSize = Math.min(MAX_USER_BATCH_SIZE, Math.max(1, options.batchSize ?? MAX_USER_BATCH_SIZE));
    this.concurrency = Math.max(1, options.concurrency ?? 4);
  }

  async put(record: UserRecord, tag: TTag): Promise<void> {
    this.throwIfFailed();
    const bytes = storedBytesOf(this.options.orgId, record);
    if (this.bufferBytes + bytes > MAX_USER_BATCH_BYTES && this.buffer.size > 0) await this.flush();
    const superseded = this.buffer.get(record.id);
    if (superseded) {
      this.options.onSuperseded?.(superseded.tag);
      this.bufferBytes -= superseded.bytes;
    }
    this.buffer.delete(record.id);
    this.buffer.set(record.id, { record, tag, bytes });
    this.bufferBytes += bytes;
    if (this.buffer.size >= this.batchSize) await this.flush();
  }

  /** Sends what is buffered and waits for every batch; throws if one failed for good. */
  async close(): Promise<void> {
    if (this.buffer.size > 0 && this.failure === undefined) await this.flush();
    await Promise.allSettled([...this.inFlight]);
    this.throwIfFailed();
  }

  /** Lets the batches already sent finish (so what was counted is what is stored) and drops the rest. */
  async abandon(): Promise<void> {
    this.buffer.clear();
    this.bufferBytes = 0;
    await Promise.allSettled([...this.inFlight]);
  }

  private async flush(): Promise<void> {
    while (this.inFlight.size >= this.concurrency) await Promise.race(this.inFlight);
    this.throwIfFailed();
    const entries = [...this.buffer.values()];
    this.buffer = new Map();
    this.bufferBytes = 0;
    const earlier = [
      ...new Set(
        entries
          .map((entry) => this.writingIds.get(entry.record.id))
          .filter((pending): pending is Promise<void> => pending !== undefined),
      ),
    ];
    const batch = Promise.allSettled(earlier)
      .then(() => this.writeBatch(entries))
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.inFlight.delete(batch);
        for (const entry of entries) {
          if (this.writingIds.get(entry.record.id) === batch) this.writingIds.delete(entry.record.id);
        }
      });
    this.inFlight.add(batch);
    for (const entry of entries) this.writingIds.set(entry.record.id, batch);
  }

  private async writeBatch(entries: Array<Entry<TTag>>): Promise<void> {
    const storable = entries.filter((entry) => {
      const badField = Object.entries(entry.record).find(([, value]) => hasNulCharacter(value));
      if (badField) this.options.onRefused?.(entry.tag, `${badField[0]}: text cannot contain U+0000`);
      return !badField;
    });
    if (storable.length === 0) return;
    const stored: Array<Entry<TTag>> = [];
    try {
      await this.insert(storable);
      stored.push(...storable);
      this.options.onWritten?.(storable.map((entry) => entry.tag));
    } catch (error) {
      if (storable.length === 1 || !isRecordError(error)) throw error;
      for (const entry of storable) {
        try {
          await this.insert([entry]);
          stored.push(entry);
          this.options.onWritten?.([entry.tag]);
        } catch (rowError) {
          if (!isRecordError(rowError)) throw rowError;
          this.options.onRefused?.(entry.tag, (rowError as Error).message);
        }
      }
    }
    // The rows are stored (and counted); words that then fail stop the writer, and a rerun replaces them.
    const ids = stored.map((entry) => entry.record.id);
    if (ids.length > 0) {
      await this.retryingWhileUnavailable(() => replaceNameWords(this.options.database, this.options.orgId, ids));
    }
  }

  private async insert(entries: Array<Entry<TTag>>): Promise<void> {
    const values: unknown[] = [];
    const rows = entries.map((entry) => {
      const row = toUserRowValues(this.options.orgId, entry.record);
      const placeholders = row.map((_, i) => `$${values.length + i + 1}`);
      values.push(...row);
      return `(${placeholders.join(', ')})`;
    });
    const text =
      `INSERT INTO users (${USER_ROW_COLUMNS.join(', ')}) VALUES ${rows.join(', ')} ` +
      `ON CONFLICT (org_id, id) DO UPDATE SET ${UPDATED_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`;
    await this.retryingWhileUnavailable(() => this.options.database.query(text, values));
  }

  /** Runs `work` again while the database is unavailable, backing off, up to maxAttempts. */
  private async retryingWhileUnavailable(work: () => Promise<unknown>): Promise<void> {
    const maxAttempts = this.options.maxAttempts ?? 6;
    try {
      await withRetries(work, {
        maxAttempts,
        isRetryable: (error) => error instanceof DependencyUnavailableError,
        backoff: exponentialBackoff({ baseMs: this.options.baseDelayMs ?? 200, capMs: 10_000, jitter: 'equal' }),
        ...(this.options.sleep ? { sleep: this.options.sleep } : {}),
      });
    } catch (error) {
      if (!(error instanceof DependencyUnavailableError)) throw error;
      throw new UserWriteError(`the users database stayed unavailable after ${maxAttempts} attempts`, { cause: error });
    }
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) {
      throw this.failure instanceof Error
        ? this.failure
        : new UserWriteError('a batch failed', { cause: this.failure });
    }
  }
}

/**
 * SQLSTATE class 22 (data exception), 23 (constraint) or 54000 (a limit, e.g. DSQL's index key
 * size): the data, not the database, is at fault.
 */
function isRecordError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && (/^2[23]/.test(code) || code === '54000');
}

/**
 * Refreshes the planner's statistics of the users table and its search words (ANALYZE, which both
 * Aurora DSQL and PostgreSQL run; DSQL has no VACUUM). A bulk write changes an organization's share
 * of the table faster than automatic analysis follows, and a plan made from stale counts can turn
 * the first queries after an import into scans; the import runs this at its end, so the table is
 * ready for queries without a manual step.
 */
export async function refreshUsersStatistics(database: Pick<SqlRunner, 'query'>): Promise<void> {
  await database.query('ANALYZE users');
  await database.query('ANALYZE user_name_words');
}
