import { randomUUID } from 'node:crypto';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { UserRecord } from '../../domain/users/user-record.ts';
import {
  decodeChunk,
  DIGEST_FIELDS,
  digestRowOf,
  encodeRows,
  rowsOf,
  sortRows,
  type DigestChunk,
  type DigestRow,
} from './user-digest.ts';
import { batchGetItems, mapConcurrently } from './batch-get-items.ts';
import { splitCreatedAtSortKey } from './user-items.ts';
import { organizationPartition } from './keys.ts';

/**
 * Where an organization's user digest lives (Users table, beside its users) and how writers keep
 * it exact. The state item `ORG#{org}` / `USERDIGEST` holds
 * - `version`: incremented by every writer when it starts, so a digest built before is stale;
 * - `writers`: the writers at work, each with a lease they renew (a crashed one expires);
 * - `digest`: the committed digest (`version` it is exact for, `generation` naming its chunks
 *   `ORG#{org}#USERDIGEST#{generation}` / `CHUNK#{n}`, chunk and row counts).
 * Readers use the digest only while `digest.version` equals `version`. A writer that was alone
 * from its start to its end, on an exact digest, commits the old digest plus its own records; any
 * other ending leaves the digest stale, and the last writer out (or `users:reindex`) rebuilds it
 * from the table with consistent reads. README "User status queries".
 */
const STATE_SORT_KEY = 'USERDIGEST';
const stateKey = (orgId: string) => ({ pk: organizationPartition(orgId), sk: STATE_SORT_KEY });
const chunkKey = (orgId: string, generation: string, index: number) => ({
  pk: `${organizationPartition(orgId)}#USERDIGEST#${generation}`,
  sk: `CHUNK#${String(index).padStart(5, '0')}`,
});

interface DigestPointer {
  version: number;
  generation: string;
  chunks: number;
  rows: number;
}

interface DigestState {
  version?: number;
  writers?: Record<string, number>;
  digest?: DigestPointer;
}

export const DIGEST_LEASE_MS = 10 * 60_000;
/** Chunks read or written at once. A BatchGetItem answers at most 16 MB, and a chunk stays under 400 KB. */
const CHUNK_CONCURRENCY = 8;
const CHUNKS_PER_BATCH_GET = 30;
/** Rows a warm function keeps decoded, over all organizations (a million rows are ~100 MB). */
const CACHED_ROWS = 2_000_000;

export type DigestLoad =
  { kind: 'exact'; chunks: DigestChunk[]; consumedReadUnits: number } | { kind: 'stale' } | { kind: 'none' };

export type DigestFinish = 'merged' | 'rebuilt' | 'left to the writers still at work' | 'changed meanwhile';

export interface UserDigestStoreOptions {
  leaseMs?: number;
  now?: () => number;
}

export class DigestLeaseLostError extends Error {
  override name = 'DigestLeaseLostError';
}

/** Decoded digests of warm functions, by organization, most recently used last. */
const cache = new Map<string, { generation: string; chunks: DigestChunk[]; rows: number }>();

export class DynamoDbUserDigestStore {
  readonly leaseMs: number;
  private readonly now: () => number;

  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: UserDigestStoreOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? DIGEST_LEASE_MS;
    this.now = options.now ?? Date.now;
  }

  /**
   * The organization's digest when it is exact; `stale` while a writer is at work or after one
   * stopped; `none` when no writer of this release has ever touched the organization.
   */
  async load(orgId: string): Promise<DigestLoad> {
    const output = await this.documents.send(
      new GetCommand({
        TableName: this.tableName,
        Key: stateKey(orgId),
        ConsistentRead: true,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    let consumedReadUnits = output.ConsumedCapacity?.CapacityUnits ?? 0;
    const state = output.Item as DigestState | undefined;
    if (!state) return { kind: 'none' };
    const pointer = state.digest;
    if (!pointer || pointer.version !== (state.version ?? 0)) return { kind: 'stale' };
    const cached = cache.get(orgId);
    if (cached?.generation === pointer.generation) {
      cache.delete(orgId);
      cache.set(orgId, cached);
      return { kind: 'exact', chunks: cached.chunks, consumedReadUnits };
    }
    const read = await this.readChunks(orgId, pointer);
    consumedReadUnits += read.consumedReadUnits;
    // A chunk deleted by a newer commit while it was read: this query uses the index instead.
    if (!read.chunks) return { kind: 'stale' };
    remember(orgId, { generation: pointer.generation, chunks: read.chunks, rows: pointer.rows });
    return { kind: 'exact', chunks: read.chunks, consumedReadUnits };
  }

  /** Registers a writer; its `finish` keeps the digest exact. */
  async beginWrite(orgId: string): Promise<UserDigestWriteSession> {
    const writerId = randomUUID();
    for (let attempt = 1; ; attempt++) {
      await this.ensureState(orgId);
      const current = await this.readState(orgId);
      const expired = this.expiredWriters(current);
      try {
        const output = await this.documents.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: stateKey(orgId),
            UpdateExpression: [
              `ADD version :one SET writers.#me = :lease`,
              ...(expired.length ? [`REMOVE ${expired.map((_, i) => `writers.#x${i}`).join(', ')}`] : []),
            ].join(' '),
            ConditionExpression: expired.length
              ? expired.map((_, i) => `writers.#x${i} = :x${i}`).join(' AND ')
              : undefined,
            ExpressionAttributeNames: {
              '#me': writerId,
              ...Object.fromEntries(expired.map(([id], i) => [`#x${i}`, id])),
            },
            ExpressionAttributeValues: {
              ':one': 1,
              ':lease': this.now() + this.leaseMs,
              ...Object.fromEntries(expired.map(([, until], i) => [`:x${i}`, until])),
            },
            ReturnValues: 'ALL_OLD',
          }),
        );
        const before = output.Attributes as DigestState;
        const othersAtWork = Object.keys(before.writers ?? {}).length - expired.length > 0;
        const version = (before.version ?? 0) + 1;
        let base: DigestPointer | 'empty' | undefined;
        if (!othersAtWork && before.digest && before.digest.version === (before.version ?? 0)) base = before.digest;
        else if (!othersAtWork && before.version === undefined && !(await this.hasUsers(orgId))) base = 'empty';
        return new UserDigestWriteSession(this, orgId, writerId, version, base, this.leaseMs);
      } catch (error) {
        if ((error as Error).name !== 'ConditionalCheckFailedException' || attempt >= 3) throw error;
      }
    }
  }

  /**
   * Builds the digest from the organization's users, read with consistent reads, unless a writer
   * is at work (its `finish` will) or one starts meanwhile. Expired leases are cleared first.
   */
  async rebuild(orgId: string): Promise<DigestFinish> {
    await this.ensureState(orgId);
    const state = await this.readState(orgId);
    const expired = this.expiredWriters(state);
    if (Object.keys(state.writers ?? {}).length > expired.length) return 'left to the writers still at work';
    for (const [writerId, until] of expired) await this.removeWriter(orgId, writerId, until);
    const rows = await this.readUserRows(orgId);
    const committed = await this.commitDigest(orgId, rows, state.version ?? 0, state.digest, {
      UpdateExpression: 'SET digest = :digest, version = if_not_exists(version, :zero)',
      ConditionExpression: `${state.version === undefined ? 'attribute_not_exists(version)' : 'version = :version'} AND size(writers) = :zero`,
      ExpressionAttributeValues: { ':zero': 0, ...(state.version === undefined ? {} : { ':version': state.version }) },
    });
    return committed ? 'rebuilt' : 'changed meanwhile';
  }

  /** @internal The session's ending: commit its merge if it was alone on an exact base, else release. */
  async finishWrite(session: UserDigestWriteSession, staged: Map<string, DigestRow>): Promise<DigestFinish> {
    const { orgId, writerId, version, base } = session;
    if (base) {
      const baseRows = base === 'empty' ? [] : await this.readRows(orgId, base);
      if (baseRows) {
        const merged = baseRows.filter((row) => !staged.has(splitCreatedAtSortKey(row.sortKey).id));
        for (const row of staged.values()) merged.push(row);
        const committed = await this.commitDigest(orgId, merged, version, base === 'empty' ? undefined : base, {
          UpdateExpression: 'SET digest = :digest REMOVE writers.#me',
          ConditionExpression: 'version = :version AND attribute_exists(writers.#me) AND size(writers) = :one',
          ExpressionAttributeNames: { '#me': writerId },
          ExpressionAttributeValues: { ':version': version, ':one': 1 },
        });
        if (committed) return 'merged';
      }
    }
    const after = await this.documents.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: stateKey(orgId),
        UpdateExpression: 'REMOVE writers.#me',
        ExpressionAttributeNames: { '#me': writerId },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const state = after.Attributes as DigestState;
    if (Object.keys(state.writers ?? {}).length > this.expiredWriters(state).length) {
      return 'left to the writers still at work';
    }
    return this.rebuild(orgId);
  }

  /** @internal Extends a session's lease; `false` when it was cleared as expired. */
  async renewLease(orgId: string, writerId: string): Promise<boolean> {
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: stateKey(orgId),
          UpdateExpression: 'SET writers.#me = :lease',
          ConditionExpression: 'attribute_exists(writers.#me)',
          ExpressionAttributeNames: { '#me': writerId },
          ExpressionAttributeValues: { ':lease': this.now() + this.leaseMs },
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  /** @internal Leaves without a digest (the import stopped): the next writer or `users:reindex` rebuilds it. */
  async abandonWrite(orgId: string, writerId: string): Promise<void> {
    await this.documents.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: stateKey(orgId),
        UpdateExpression: 'REMOVE writers.#me',
        ExpressionAttributeNames: { '#me': writerId },
      }),
    );
  }

  private async ensureState(orgId: string): Promise<void> {
    await this.documents.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: stateKey(orgId),
        UpdateExpression: 'SET writers = if_not_exists(writers, :none)',
        ExpressionAttributeValues: { ':none': {} },
      }),
    );
  }

  private async readState(orgId: string): Promise<DigestState> {
    const output = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: stateKey(orgId), ConsistentRead: true }),
    );
    return (output.Item ?? {}) as DigestState;
  }

  private expiredWriters(state: DigestState): Array<[string, number]> {
    const now = this.now();
    return Object.entries(state.writers ?? {}).filter(([, until]) => until < now);
  }

  private async removeWriter(orgId: string, writerId: string, until: number): Promise<void> {
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: stateKey(orgId),
          UpdateExpression: 'REMOVE writers.#w',
          ConditionExpression: 'writers.#w = :until',
          ExpressionAttributeNames: { '#w': writerId },
          ExpressionAttributeValues: { ':until': until },
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  }

  private async hasUsers(orgId: string): Promise<boolean> {
    const output = await this.documents.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :user)',
        ExpressionAttributeValues: { ':pk': organizationPartition(orgId), ':user': 'USER#' },
        ProjectionExpression: 'sk',
        ConsistentRead: true,
        Limit: 1,
      }),
    );
    return (output.Items?.length ?? 0) > 0;
  }

  /** Every user of the organization as a digest row, from the table with consistent reads. */
  private async readUserRows(orgId: string): Promise<DigestRow[]> {
    const rows: DigestRow[] = [];
    const names = Object.fromEntries(['id', 'created_at', ...DIGEST_FIELDS].map((field, i) => [`#f${i}`, field]));
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.documents.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :user)',
          ExpressionAttributeValues: { ':pk': organizationPartition(orgId), ':user': 'USER#' },
          ProjectionExpression: Object.keys(names).join(', '),
          ExpressionAttributeNames: names,
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) rows.push(digestRowOf(item as UserRecord));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return rows;
  }

  private async readRows(orgId: string, pointer: DigestPointer): Promise<DigestRow[] | undefined> {
    const { chunks } = await this.readChunks(orgId, pointer);
    return chunks?.flatMap((chunk) => [...rowsOf(chunk)]);
  }

  private async readChunks(
    orgId: string,
    pointer: DigestPointer,
  ): Promise<{ chunks: DigestChunk[] | undefined; consumedReadUnits: number }> {
    const keys = Array.from({ length: pointer.chunks }, (_, i) => chunkKey(orgId, pointer.generation, i));
    const { items, consumedReadUnits } = await batchGetItems(this.documents, this.tableName, keys, {
      keysPerCall: CHUNKS_PER_BATCH_GET,
      concurrency: CHUNK_CONCURRENCY,
    });
    const bySortKey = new Map(items.map((item) => [item.sk as string, decodeChunk(item.data as Uint8Array)]));
    const chunks = keys.map((key) => bySortKey.get(key.sk));
    if (chunks.some((chunk) => chunk === undefined)) return { chunks: undefined, consumedReadUnits };
    return { chunks: chunks as DigestChunk[], consumedReadUnits };
  }

  /**
   * Writes `rows` as a new generation of chunks and points the state at it with `commit` (its
   * condition decides); then deletes the chunks that lost: the previous ones, or the new ones.
   */
  private async commitDigest(
    orgId: string,
    rows: DigestRow[],
    version: number,
    previous: DigestPointer | undefined,
    commit: {
      UpdateExpression: string;
      ConditionExpression: string;
      ExpressionAttributeNames?: Record<string, string>;
      ExpressionAttributeValues: Record<string, unknown>;
    },
  ): Promise<boolean> {
    const pointer = await this.writeDigest(orgId, version, sortRows(rows));
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: stateKey(orgId),
          ...commit,
          ExpressionAttributeValues: { ...commit.ExpressionAttributeValues, ':digest': pointer },
        }),
      );
    } catch (error) {
      await this.deleteChunks(orgId, pointer);
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
    if (previous) await this.deleteChunks(orgId, previous);
    return true;
  }

  private async writeDigest(orgId: string, version: number, rows: readonly DigestRow[]): Promise<DigestPointer> {
    const generation = randomUUID();
    const chunks = encodeRows(rows);
    const pointer = { version, generation, chunks: chunks.length, rows: rows.length };
    try {
      await mapConcurrently(
        chunks.map((chunk, index) => ({ chunk, index })),
        CHUNK_CONCURRENCY,
        async ({ chunk, index }) => {
          await this.documents.send(
            new PutCommand({
              TableName: this.tableName,
              Item: { ...chunkKey(orgId, generation, index), data: chunk.data, rows: chunk.rows },
            }),
          );
        },
      );
    } catch (error) {
      // Nothing points at this generation: remove what was written of it, as far as the table lets.
      await this.deleteChunks(orgId, pointer).catch(() => undefined);
      throw error;
    }
    return pointer;
  }

  private async deleteChunks(orgId: string, pointer: DigestPointer): Promise<void> {
    await mapConcurrently(
      Array.from({ length: pointer.chunks }, (_, i) => i),
      CHUNK_CONCURRENCY,
      async (index) => {
        await this.documents.send(
          new DeleteCommand({ TableName: this.tableName, Key: chunkKey(orgId, pointer.generation, index) }),
        );
      },
    );
  }
}

/**
 * One writer's part in keeping the digest exact: `put` every record it stores, `refused` any the
 * table did not take, then `finish` (or `abandon` when the write stopped). The lease is renewed in
 * the background; a session whose lease was cleared (paused past it) fails its `finish`.
 */
export class UserDigestWriteSession {
  private readonly staged = new Map<string, DigestRow>();
  private readonly renewal: NodeJS.Timeout;
  private leaseLost = false;
  private renewing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: DynamoDbUserDigestStore,
    readonly orgId: string,
    readonly writerId: string,
    /** The `version` this writer set when it started. */
    readonly version: number,
    /** The exact digest it started from, or none when other writers were at work or it was stale. */
    readonly base: DigestPointer | 'empty' | undefined,
    leaseMs = DIGEST_LEASE_MS,
  ) {
    this.renewal = setInterval(() => {
      this.renewing = this.store.renewLease(orgId, writerId).then(
        (held) => {
          if (!held) this.leaseLost = true;
        },
        () => undefined,
      );
    }, leaseMs / 5);
    this.renewal.unref();
  }

  /** Whether the lease is still held: a writer that lost it should stop writing. */
  get holdsLease(): boolean {
    return !this.leaseLost;
  }

  put(record: UserRecord): void {
    this.staged.set(record.id, digestRowOf(record));
  }

  refused(userId: string): void {
    this.staged.delete(userId);
  }

  async finish(): Promise<DigestFinish> {
    clearInterval(this.renewal);
    await this.renewing;
    if (this.leaseLost) {
      throw new DigestLeaseLostError(
        'the user digest lease expired while writing; run users:reindex to rebuild the digest',
      );
    }
    try {
      return await this.store.finishWrite(this, this.staged);
    } catch (error) {
      // Leave at once rather than hold the lease until it expires; the digest stays stale.
      await this.store.abandonWrite(this.orgId, this.writerId).catch(() => undefined);
      throw error;
    }
  }

  async abandon(): Promise<void> {
    clearInterval(this.renewal);
    await this.renewing;
    await this.store.abandonWrite(this.orgId, this.writerId);
  }
}

/** Drops every decoded digest: the next query of each organization reads its chunks (benchmark, tests). */
export function forgetCachedDigests(): void {
  cache.clear();
}

function remember(orgId: string, entry: { generation: string; chunks: DigestChunk[]; rows: number }): void {
  cache.delete(orgId);
  cache.set(orgId, entry);
  let rows = [...cache.values()].reduce((sum, cached) => sum + cached.rows, 0);
  for (const [cachedOrg, cached] of cache) {
    if (rows <= CACHED_ROWS || cachedOrg === orgId) break;
    cache.delete(cachedOrg);
    rows -= cached.rows;
  }
}
