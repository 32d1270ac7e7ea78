import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isDependencyUnavailable } from '../aws-errors.ts';

/** BatchWriteItem takes at most 25 requests. */
export const MAX_BATCH_SIZE = 25;

export interface UserBatchWriterOptions<TTag> {
  documents: DynamoDBDocumentClient;
  tableName: string;
  /** Requests per BatchWriteItem call, 1 to 25; default 25. */
  batchSize?: number;
  /** Batches in flight at once; default 4. */
  concurrency?: number;
  /** Calls per batch before its still-unprocessed items are given up; default 8. */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt up to `maxDelayMs`. Defaults 50 ms and 5 s. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Identifies an item; two puts with the same key are one item, the later one wins. Default: `pk` and `sk`. */
  keyOf?: (item: Record<string, unknown>) => string;
  /** Injected in tests. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Items DynamoDB has stored. */
  onWritten?: (tags: TTag[]) => void;
  /** An item DynamoDB refused (ValidationException on the item alone); the others in its batch are still written. */
  onRefused?: (tag: TTag, reason: string) => void;
  /** An item replaced by a later put of the same key before it was sent. */
  onSuperseded?: (tag: TTag) => void;
}

/** The target kept throttling or failing, or refused the request as a whole: the import cannot go on. */
export class BatchWriteError extends Error {
  override name = 'BatchWriteError';
}

interface Entry<TTag> {
  key: string;
  item: Record<string, unknown>;
  tag: TTag;
}

type PutRequest = { PutRequest: { Item: Record<string, unknown> } };

const pkSkKey = (item: Record<string, unknown>): string => `${String(item.pk)}\u0000${String(item.sk)}`;
const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Writes items with BatchWriteItem, 25 at a time and a few batches in flight, with the ordering
 * a sequential writer would give: a put of a key waits for any earlier write of that key still in
 * flight, and a later put of a key still buffered replaces it (BatchWriteItem refuses a batch
 * naming one key twice). `UnprocessedItems` and throttling are retried with bounded exponential
 * backoff. `put` applies back-pressure: it returns once its item is buffered or handed to a
 * batch, waiting while all slots are busy. Each item carries a tag (e.g. its line number) that
 * the callbacks report back.
 */
export class UserBatchWriter<TTag = number> {
  private readonly documents: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly keyOf: (item: Record<string, unknown>) => string;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly callbacks: Pick<UserBatchWriterOptions<TTag>, 'onWritten' | 'onRefused' | 'onSuperseded'>;

  private buffer = new Map<string, Entry<TTag>>();
  private readonly inFlight = new Set<Promise<void>>();
  /** The latest batch holding each key, until it settles. */
  private readonly lastWriteOfKey = new Map<string, Promise<void>>();
  private failure: Error | undefined;

  constructor(options: UserBatchWriterOptions<TTag>) {
    this.documents = options.documents;
    this.tableName = options.tableName;
    this.batchSize = options.batchSize ?? MAX_BATCH_SIZE;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1 || this.batchSize > MAX_BATCH_SIZE) {
      throw new RangeError(`batchSize must be 1 to ${MAX_BATCH_SIZE}`);
    }
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 8);
    this.baseDelayMs = options.baseDelayMs ?? 50;
    this.maxDelayMs = options.maxDelayMs ?? 5_000;
    this.keyOf = options.keyOf ?? pkSkKey;
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.callbacks = { onWritten: options.onWritten, onRefused: options.onRefused, onSuperseded: options.onSuperseded };
  }

  /** Buffers one item; sends a batch when the buffer is full. Throws once a batch has failed for good. */
  async put(item: Record<string, unknown>, tag: TTag): Promise<void> {
    this.throwIfFailed();
    const key = this.keyOf(item);
    const replaced = this.buffer.get(key);
    if (replaced) this.callbacks.onSuperseded?.(replaced.tag);
    this.buffer.set(key, { key, item, tag });
    if (this.buffer.size >= this.batchSize) await this.dispatch();
  }

  /** Sends what is buffered and waits for every batch. Throws if any batch failed for good. */
  async close(): Promise<void> {
    if (this.buffer.size > 0 && !this.failure) await this.dispatch();
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  private async dispatch(): Promise<void> {
    while (this.inFlight.size >= this.concurrency) await Promise.race(this.inFlight);
    this.throwIfFailed();
    const entries = [...this.buffer.values()];
    this.buffer = new Map();
    const earlierWrites = new Set(entries.flatMap((entry) => this.lastWriteOfKey.get(entry.key) ?? []));

    const batch = { done: Promise.resolve() };
    batch.done = (async () => {
      try {
        // Settled writes of the same keys first, so the later value is the one that stays.
        await Promise.all(earlierWrites);
        if (!this.failure) await this.writeBatch(entries);
      } catch (error) {
        this.failure ??=
          error instanceof BatchWriteError ? error : new BatchWriteError(describe(error), { cause: error });
      } finally {
        this.inFlight.delete(batch.done);
        for (const entry of entries) {
          if (this.lastWriteOfKey.get(entry.key) === batch.done) this.lastWriteOfKey.delete(entry.key);
        }
      }
    })();
    this.inFlight.add(batch.done);
    for (const entry of entries) this.lastWriteOfKey.set(entry.key, batch.done);
  }

  private async writeBatch(entries: Array<Entry<TTag>>): Promise<void> {
    let pending = entries;
    for (let attempt = 1; ; attempt++) {
      let unprocessed: Array<Entry<TTag>>;
      try {
        const output = await this.documents.send(
          new BatchWriteCommand({
            RequestItems: {
              [this.tableName]: pending.map((entry): PutRequest => ({ PutRequest: { Item: entry.item } })),
            },
          }),
        );
        unprocessed = this.entriesOf(pending, (output.UnprocessedItems?.[this.tableName] ?? []) as PutRequest[]);
      } catch (error) {
        if (isValidationError(error)) {
          await this.writeOneByOne(pending, error);
          return;
        }
        if (!isDependencyUnavailable(error)) throw error;
        if (attempt >= this.maxAttempts) {
          throw new BatchWriteError(
            `${pending.length} record(s) not written after ${attempt} attempts: ${describe(error)}`,
            { cause: error },
          );
        }
        unprocessed = pending;
      }
      const written = pending.filter((entry) => !unprocessed.includes(entry));
      if (written.length > 0) this.callbacks.onWritten?.(written.map((entry) => entry.tag));
      if (unprocessed.length === 0) return;
      if (attempt >= this.maxAttempts) {
        throw new BatchWriteError(
          `${unprocessed.length} record(s) still unprocessed after ${attempt} attempts (the table keeps throttling)`,
        );
      }
      await this.sleep(this.backoffMs(attempt));
      pending = unprocessed;
    }
  }

  /** A refused batch is retried item by item, so only the items DynamoDB refuses are lost. */
  private async writeOneByOne(entries: Array<Entry<TTag>>, error: unknown): Promise<void> {
    if (entries.length === 1) {
      this.callbacks.onRefused?.(entries[0]!.tag, describe(error));
      return;
    }
    for (const entry of entries) await this.writeBatch([entry]);
  }

  private entriesOf(pending: Array<Entry<TTag>>, requests: PutRequest[]): Array<Entry<TTag>> {
    const byKey = new Map(pending.map((entry) => [entry.key, entry]));
    return requests.flatMap((request) => byKey.get(this.keyOf(request.PutRequest.Item)) ?? []);
  }

  /** Exponential, capped, with jitter in [50 %, 100 %] so parallel batches do not retry in step. */
  private backoffMs(attempt: number): number {
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling * (0.5 + this.random() / 2));
  }
}

function isValidationError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationException';
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
}
