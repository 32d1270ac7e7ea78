import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  slotExpired,
  type ConcurrencyPolicy,
  type ConcurrencySlots,
  type SlotLease,
  type SlotTaking,
} from '#shared/domain/limits/concurrency.ts';
import { organizationPartition } from '#shared/adapters/dynamodb/keys.ts';

/** An item is kept this long past its latest slot's deadline: a later, shorter deadline may lower its TTL. */
const TTL_MARGIN_SECONDS = 3_600;

/** Rounds of reclaiming expired slots, each lost to concurrent takes, before the request is refused. */
const MAX_TAKES = 3;

/** The organization's slots item in the RequestBudgets table, beside its budget (`ORG#{org}`); an organization id holds no `#`. */
export const concurrencyPartition = (orgId: string): string => `${organizationPartition(orgId)}#CONCURRENCY`;

/** A slot as stored: its deadline first, so that any container can tell it expired. */
export const storedSlot = (lease: Pick<SlotLease, 'id' | 'expiresAt'>): string => `${lease.expiresAt}#${lease.id}`;

interface SlotsFound {
  requests: readonly string[];
  databaseRequests: readonly string[];
}

/**
 * The organizations' concurrency slots (docs/contract.md §25), one item per organization
 * (`ORG#{org}#CONCURRENCY` in the RequestBudgets table) holding two string sets of slots,
 * `{deadline}#{leaseId}`: `requests` (every route's) and `databaseRequests` (the database routes',
 * each also in `requests`).
 *
 * Taking a slot is one conditional UpdateItem, nothing read first: `ADD` the slot to its sets if
 * each holds fewer than its limit. When the condition fails DynamoDB returns the item as it is
 * (`ReturnValuesOnConditionCheckFailure`); if some of its slots are past their deadline (their
 * requests crashed or timed out before releasing), one more UpdateItem deletes those, and the
 * take is tried again. Giving a slot back is one UpdateItem `DELETE`.
 *
 * A retried take whose first attempt landed (write-once.ts) cannot count twice: the slot is its
 * own mark, a set holds it once, and a retry refused for want of room finds it in the item
 * returned: taken. A retried release deletes nothing more.
 */
export class DynamoDbConcurrencySlots implements ConcurrencySlots {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async take(lease: SlotLease, policy: ConcurrencyPolicy, nowMs: number): Promise<SlotTaking> {
    const slot = storedSlot(lease);
    for (let round = 1; ; round++) {
      const found = await this.add(lease, slot, policy);
      if (!found || found.requests.includes(slot)) return 'taken';
      const expired = {
        requests: found.requests.filter((stored) => slotExpired(deadlineOf(stored), nowMs)),
        databaseRequests: found.databaseRequests.filter((stored) => slotExpired(deadlineOf(stored), nowMs)),
      };
      const atDatabaseLimit =
        lease.database &&
        found.databaseRequests.length - expired.databaseRequests.length >= policy.databasePerOrganization;
      if (atDatabaseLimit) return 'at-database-limit';
      if (found.requests.length - expired.requests.length >= policy.perOrganization) return 'at-limit';
      if (round >= MAX_TAKES) {
        return lease.database && found.databaseRequests.length >= policy.databasePerOrganization
          ? 'at-database-limit'
          : 'at-limit';
      }
      await this.reclaim(lease.orgId, expired);
    }
  }

  async release(lease: SlotLease): Promise<void> {
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: concurrencyPartition(lease.orgId) },
          UpdateExpression: lease.database ? 'DELETE requests :slot, databaseRequests :slot' : 'DELETE requests :slot',
          // Never create an item: one reclaimed or expired by its TTL holds the slot no longer.
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':slot': new Set([storedSlot(lease)]) },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** Adds the slot if there is room: undefined when it did, else the item's slots as the write found them. */
  private async add(lease: SlotLease, slot: string, policy: ConcurrencyPolicy): Promise<SlotsFound | undefined> {
    const room = (attribute: string, limit: string) =>
      `(attribute_not_exists(${attribute}) OR size(${attribute}) < ${limit})`;
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: concurrencyPartition(lease.orgId) },
          UpdateExpression: lease.database
            ? 'ADD requests :slot, databaseRequests :slot SET #ttl = :ttl'
            : 'ADD requests :slot SET #ttl = :ttl',
          ConditionExpression: lease.database
            ? `${room('requests', ':limit')} AND ${room('databaseRequests', ':databaseLimit')}`
            : room('requests', ':limit'),
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':slot': new Set([slot]),
            ':limit': policy.perOrganization,
            ...(lease.database ? { ':databaseLimit': policy.databasePerOrganization } : {}),
            ':ttl': Math.ceil(lease.expiresAt / 1000) + TTL_MARGIN_SECONDS,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return undefined;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The document client leaves the exception's item as DynamoDB sent it: `{ requests: { SS: [...] } }`.
      return { requests: error.Item?.requests?.SS ?? [], databaseRequests: error.Item?.databaseRequests?.SS ?? [] };
    }
  }

  /** Deletes slots past their deadline: right whoever else is writing, since an expired slot never comes back. */
  private async reclaim(orgId: string, expired: SlotsFound): Promise<void> {
    const deletions = [
      ...(expired.requests.length > 0 ? ['requests :expired'] : []),
      ...(expired.databaseRequests.length > 0 ? ['databaseRequests :expiredDatabase'] : []),
    ];
    if (deletions.length === 0) return;
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: concurrencyPartition(orgId) },
          UpdateExpression: `DELETE ${deletions.join(', ')}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: {
            ...(expired.requests.length > 0 ? { ':expired': new Set(expired.requests) } : {}),
            ...(expired.databaseRequests.length > 0 ? { ':expiredDatabase': new Set(expired.databaseRequests) } : {}),
          },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

/** A stored slot's deadline; a value of another shape counts as expired, so it can never block an organization. */
function deadlineOf(stored: string): number {
  const deadline = Number(stored.slice(0, stored.indexOf('#')));
  return Number.isFinite(deadline) ? deadline : 0;
}
