import type { UserRecord } from '../../domain/users/user-record.ts';
import { UserBatchWriter, type UserBatchWriterOptions } from './user-batch-writer.ts';
import {
  DigestLeaseLostError,
  DynamoDbUserDigestStore,
  type DigestFinish,
  type UserDigestWriteSession,
} from './user-digest-store.ts';
import { toUserItem } from './user-items.ts';

export interface UserRecordWriterOptions<TTag> extends UserBatchWriterOptions<TTag> {
  orgId: string;
}

/** What the batch writer carries for each record: the caller's tag and the record's id. */
interface Entry<TTag> {
  tag: TTag;
  id: string;
}

/**
 * Stores one organization's user records: each as its item (keys and index attributes) through
 * the batch writer, and into the organization's user digest, which `close` brings up to date.
 * Every writer of users (import, seed, benchmark) goes through it, so none leaves the digest
 * behind. `abandon` when the write stops: the batches in flight settle and the digest is left to
 * the next writer or `users:reindex`.
 */
export class UserRecordWriter<TTag = number> {
  private constructor(
    private readonly orgId: string,
    private readonly digest: UserDigestWriteSession,
    private readonly batches: UserBatchWriter<Entry<TTag>>,
    /** The latest put of each id: only its refusal takes the id out of the digest. */
    private readonly latestPut: Map<string, Entry<TTag>>,
  ) {}

  static async open<TTag = number>(options: UserRecordWriterOptions<TTag>): Promise<UserRecordWriter<TTag>> {
    const { orgId, onWritten, onRefused, onSuperseded, ...batchOptions } = options;
    const digest = await new DynamoDbUserDigestStore(options.documents, options.tableName).beginWrite(orgId);
    const latestPut = new Map<string, Entry<TTag>>();
    const batches = new UserBatchWriter<Entry<TTag>>({
      ...batchOptions,
      onWritten: onWritten && ((entries) => onWritten(entries.map((entry) => entry.tag))),
      onSuperseded: onSuperseded && ((entry) => onSuperseded(entry.tag)),
      onRefused: (entry, reason) => {
        if (latestPut.get(entry.id) === entry) digest.refused(entry.id);
        onRefused?.(entry.tag, reason);
      },
    });
    return new UserRecordWriter(orgId, digest, batches, latestPut);
  }

  /** Hands a validated record to the batch writer (waiting while all slots are busy) and the digest. */
  async put(record: UserRecord, tag: TTag, item: Record<string, unknown> = toUserItem(this.orgId, record)) {
    if (!this.digest.holdsLease) throw new DigestLeaseLostError('the user digest lease expired (paused for too long)');
    const entry = { tag, id: record.id };
    this.latestPut.set(record.id, entry);
    this.digest.put(record);
    await this.batches.put(item, entry);
  }

  /** Waits for every batch, then brings the digest up to date; if the batches fail, abandons. */
  async close(): Promise<DigestFinish> {
    try {
      await this.batches.close();
    } catch (error) {
      await this.abandon();
      throw error;
    }
    return this.digest.finish();
  }

  async abandon(): Promise<void> {
    // Let the batches already sent finish, so what the caller counted is what is stored.
    await this.batches.close().catch(() => undefined);
    await this.digest.abandon().catch(() => undefined);
  }
}
