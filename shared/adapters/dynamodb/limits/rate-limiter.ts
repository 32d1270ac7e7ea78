import { randomUUID } from 'node:crypto';
import { BatchGetCommand, GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { exponentialBackoff, withRetries } from '#shared/support/retry.ts';
import {
  countInWindow,
  fixedWindowStart,
  mostRestrictive,
  QuotaChangedError,
  spendToken,
  type QuotaDecision,
  type RateLimitDecision,
  type RateLimitPolicy,
} from '#shared/domain/limits/rate-limit.ts';
import { cancellationReasons } from '#shared/adapters/dynamodb/transactions.ts';
import { writeOnce } from '#shared/adapters/dynamodb/write-once.ts';

const MAX_ATTEMPTS = 25;
/** Rounds of a batched read for the keys DynamoDB left unprocessed (it does so only when throttled). */
const MAX_BATCH_READ_ROUNDS = 5;
/** Items outlive their window by this much before DynamoDB's TTL may delete them. */
const TTL_MARGIN_SECONDS = 60;

export interface ItemKey {
  pk: string;
  sk: string;
}

/**
 * One quota a request spends a unit of:
 * - `sliding-window`: one item at `key` holding the spend times and a version (`spendToken`), and
 *   the `writeId` of the write that put it;
 * - `fixed-window`: one counter item per window, at `key` with the window's start appended to the
 *   sort key (`…#2026-03-01T12:00:00.000Z`), so a new window starts from nothing without a reset.
 */
export type QuotaSpec =
  | { kind: 'sliding-window'; key: ItemKey; policy: RateLimitPolicy }
  | { kind: 'fixed-window'; key: ItemKey; policy: RateLimitPolicy };

interface ConditionalPut {
  TableName: string;
  Item: Record<string, unknown>;
  ConditionExpression: string;
  ExpressionAttributeValues: Record<string, unknown> | undefined;
}

interface ConditionalUpdate {
  TableName: string;
  Key: ItemKey;
  UpdateExpression: string;
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}

/** One item of a DynamoDB transaction: `Put` of a sliding window, `Update` of a fixed window's counter. */
export type QuotaWrite = { Put: ConditionalPut } | { Update: ConditionalUpdate };

export type Reservation =
  | {
      allowed: true;
      /** The quota nearest to refusing. */
      decision: QuotaDecision;
      decisions: QuotaDecision[];
      /**
       * Spend one unit of every quota, each only if it is still as it was read. Commit them all in
       * one transaction (possibly with the write they pay for); a failed condition on one of them
       * means a concurrent request spent meanwhile: reserve again.
       */
      writes: QuotaWrite[];
    }
  | {
      allowed: false;
      /** The refusal to report: the one that refuses longest. */
      decision: QuotaDecision;
      decisions: QuotaDecision[];
      /** Index of the quota whose refusal `decision` is. */
      refusedBy: number;
    };

/**
 * Quotas kept in one DynamoDB table, spent one unit per request, all of a request's quotas or none.
 *
 * `reserve` reads every quota's item (consistently, in one request) and decides with the pure rules of
 * shared/domain/limits/rate-limit.ts; if every quota allows the request, it returns the conditional writes
 * that spend them: a sliding window only if its version is the one read, a fixed window only if its
 * count is still below the limit. `spend` commits those at once (one quota: one conditional write;
 * several: one transaction) and, when a concurrent writer got there first, reserves again on fresh
 * state, so parallel requests never spend more than a quota holds. A refusal writes nothing.
 *
 * Every call goes through the function's SDK client and so runs under the request deadline: a
 * stalled DynamoDB ends in `DependencyUnavailableError` (503) before anything is decided, or, if
 * the write itself stalled, with the unit possibly spent (its outcome is unknown).
 */
export class DynamoDbRateLimiter {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async reserve(quotas: readonly QuotaSpec[], now: Date): Promise<Reservation> {
    if (quotas.length === 0) throw new Error('no quota to spend');
    const nowMs = now.getTime();
    const keys = quotas.map((spec) => itemKeyAt(spec, nowMs));
    const items = await this.readAll(keys);
    const decided = quotas.map((spec, index): { decision: QuotaDecision; write: QuotaWrite } => {
      const item = items[index];
      if (spec.kind === 'sliding-window') {
        const version = typeof item?.version === 'number' ? item.version : 0;
        const decision = spendToken((item?.spentAt as number[] | undefined) ?? [], nowMs, spec.policy);
        return { decision, write: { Put: this.slidingPut(spec, decision, version, nowMs) } };
      }
      const decision = countInWindow(typeof item?.count === 'number' ? item.count : 0, nowMs, spec.policy);
      return {
        decision,
        write: { Update: this.fixedUpdate(keys[index]!, spec.policy, fixedWindowStart(nowMs, spec.policy.windowMs)) },
      };
    });
    const decisions = decided.map(({ decision }) => decision);
    const decision = mostRestrictive(decisions);
    if (!decision.allowed) return { allowed: false, decision, decisions, refusedBy: decisions.indexOf(decision) };
    return { allowed: true, decision, decisions, writes: decided.map(({ write }) => write) };
  }

  /** Reserves and commits on its own, deciding again after a concurrent writer, until it is allowed and spent or refused. */
  async spend(quotas: readonly QuotaSpec[], now: Date): Promise<Reservation> {
    try {
      return await withRetries(
        async () => {
          const reservation = await this.reserve(quotas, now);
          if (!reservation.allowed || (await this.commit(reservation.writes))) return reservation;
          throw new QuotaChangedError();
        },
        { maxAttempts: MAX_ATTEMPTS, isRetryable: (error) => error instanceof QuotaChangedError, backoff: raceBackoff },
      );
    } catch (error) {
      if (error instanceof QuotaChangedError) {
        throw new DependencyUnavailableError('rate limiter (too much contention)', { cause: error });
      }
      throw error;
    }
  }

  /** One sliding-window quota: its decision, with the spend times it stored. */
  async spendSliding(key: ItemKey, policy: RateLimitPolicy, now: Date): Promise<RateLimitDecision> {
    const reservation = await this.spend([{ kind: 'sliding-window', key, policy }], now);
    return reservation.decision as RateLimitDecision;
  }

  /**
   * True when every unit was spent; false when a concurrent writer got there first (decide again).
   * A sliding window alone is one Put, marked with its `writeId` (write-once.ts); anything else,
   * a counter alone included, is a transaction, which its `ClientRequestToken` makes safe to retry.
   */
  private async commit(writes: readonly QuotaWrite[]): Promise<boolean> {
    const [first] = writes;
    if (writes.length === 1 && first && 'Put' in first) {
      const written = await writeOnce(this.documents, first, {
        attribute: 'writeId',
        value: first.Put.Item.writeId as string,
      });
      return written.kind !== 'condition-failed';
    }
    try {
      await this.documents.send(new TransactWriteCommand({ TransactItems: [...writes] }));
      return true;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons.includes('ThrottlingError')) throw new DependencyUnavailableError('database', { cause: error });
      if (reasons.includes('ConditionalCheckFailed') || reasons.includes('TransactionConflict')) return false;
      throw error;
    }
  }

  /**
   * Every quota's item, read consistently in one round trip (BatchGetItem) when there are several:
   * one request on the caller's path to meet a slow or hung attempt, not one per quota.
   */
  private async readAll(keys: readonly ItemKey[]): Promise<Array<Record<string, unknown> | undefined>> {
    if (keys.length === 1) return [await this.get(keys[0]!)];
    const found = new Map<string, Record<string, unknown>>();
    let pending = [...new Map(keys.map((key) => [keyId(key), key])).values()];
    for (let round = 1; pending.length > 0; round++) {
      if (round > MAX_BATCH_READ_ROUNDS)
        throw new DependencyUnavailableError('database (quota reads left unprocessed)');
      if (round > 1) await new Promise((resolve) => setTimeout(resolve, raceBackoff(round - 1)));
      const { Responses, UnprocessedKeys } = await this.documents.send(
        new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } } }),
      );
      for (const item of Responses?.[this.tableName] ?? []) found.set(keyId(item as ItemKey), item);
      pending = (UnprocessedKeys?.[this.tableName]?.Keys ?? []) as ItemKey[];
    }
    return keys.map((key) => found.get(keyId(key)));
  }

  private async get(key: ItemKey): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return Item;
  }

  private slidingPut(
    spec: Extract<QuotaSpec, { kind: 'sliding-window' }>,
    decision: RateLimitDecision,
    version: number,
    nowMs: number,
  ): ConditionalPut {
    return {
      TableName: this.tableName,
      Item: {
        ...spec.key,
        spentAt: decision.spentAt,
        version: version + 1,
        ttl: Math.ceil((nowMs + spec.policy.windowMs) / 1000) + TTL_MARGIN_SECONDS,
        writeId: randomUUID(),
      },
      ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : 'version = :version',
      ExpressionAttributeValues: version === 0 ? undefined : { ':version': version },
    };
  }

  private fixedUpdate(key: ItemKey, policy: RateLimitPolicy, windowStartMs: number): ConditionalUpdate {
    return {
      TableName: this.tableName,
      Key: key,
      UpdateExpression: 'ADD #count :one SET #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':one': 1,
        ':limit': policy.capacity,
        ':ttl': Math.ceil((windowStartMs + policy.windowMs) / 1000) + TTL_MARGIN_SECONDS,
      },
    };
  }
}

/** A few milliseconds of jitter, growing with the attempts, so contending writers spread out. */
const raceBackoff = exponentialBackoff({ baseMs: 10, capMs: 50 });

/** The item a quota is kept in at `nowMs`: a fixed window's counter has its window's start in the sort key. */
function itemKeyAt(spec: QuotaSpec, nowMs: number): ItemKey {
  if (spec.kind === 'sliding-window') return spec.key;
  const windowStart = new Date(fixedWindowStart(nowMs, spec.policy.windowMs)).toISOString();
  return { pk: spec.key.pk, sk: `${spec.key.sk}#${windowStart}` };
}

const keyId = (key: ItemKey): string => `${key.pk}\u0000${key.sk}`;
