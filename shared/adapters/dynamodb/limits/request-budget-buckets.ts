import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LeasePlan, RequestBudgetBuckets } from '#shared/domain/limits/request-budget.ts';
import { organizationPartition } from '#shared/adapters/dynamodb/keys.ts';
import { writeOnce } from '#shared/adapters/dynamodb/write-once.ts';

/** A bucket untouched for this long is full again whatever it held: DynamoDB's TTL may delete it then. */
const TTL_MARGIN_SECONDS = 3_600;

/**
 * The organizations' request-budget buckets, one item each (`ORG#{org}` in the RequestBudgets
 * table) holding the GCRA state `tat` (shared/domain/limits/request-budget.ts). A lease is one
 * conditional UpdateItem: nothing is read first. When the condition fails, DynamoDB returns the
 * item as it is (`ReturnValuesOnConditionCheckFailure`), from which the container plans again;
 * unless the item holds this very write (its `writeId`), put by an attempt whose answer was lost:
 * then the lease or charge was taken, once (write-once.ts).
 */
export class DynamoDbRequestBudgetBuckets implements RequestBudgetBuckets {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async take(
    orgId: string,
    plan: Exclude<LeasePlan, { kind: 'refused' }>,
  ): Promise<{ applied: boolean; tat?: number }> {
    const writeId = randomUUID();
    const common = {
      TableName: this.tableName,
      Key: { pk: organizationPartition(orgId) },
      ReturnValues: 'UPDATED_NEW' as const,
    };
    const update =
      plan.kind === 'refill'
        ? {
            ...common,
            UpdateExpression: 'SET tat = :fresh, #ttl = :ttl, writeId = :writeId',
            ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ':fresh': plan.fresh,
              ':now': plan.now,
              ':ttl': ttlFor(plan.fresh),
              ':writeId': writeId,
            },
          }
        : {
            ...common,
            UpdateExpression: 'ADD tat :cost SET #ttl = :ttl, writeId = :writeId',
            ConditionExpression: 'tat > :now AND tat <= :highest',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ':cost': plan.cost,
              ':now': plan.now,
              ':highest': plan.highest,
              ':ttl': ttlFor(plan.highest + plan.cost),
              ':writeId': writeId,
            },
          };
    const taken = await writeOnce(this.documents, { Update: update }, { attribute: 'writeId', value: writeId });
    switch (taken.kind) {
      case 'written':
        return { applied: true, tat: numberOrUndefined(taken.attributes?.tat) };
      case 'written-earlier':
        return { applied: true, tat: numberOrUndefined(taken.item.tat?.N) };
      case 'condition-failed':
        return { applied: false, tat: numberOrUndefined(taken.item?.tat?.N) };
    }
  }
}

function ttlFor(tatMs: number): number {
  return Math.ceil(tatMs / 1000) + TTL_MARGIN_SECONDS;
}

function numberOrUndefined(value: unknown): number | undefined {
  const parsed = typeof value === 'string' ? Number(value) : value;
  return typeof parsed === 'number' && Number.isFinite(parsed) ? parsed : undefined;
}
