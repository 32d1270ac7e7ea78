import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LeasePlan, RequestBudgetBuckets } from '#shared/domain/limits/request-budget.ts';
import { organizationPartition } from '#shared/adapters/dynamodb/keys.ts';

/** A bucket untouched for this long is full again whatever it held: DynamoDB's TTL may delete it then. */
const TTL_MARGIN_SECONDS = 3_600;

/**
 * The organizations' request-budget buckets, one item each (`ORG#{org}` in the RequestBudgets
 * table) holding the GCRA state `tat` (shared/domain/limits/request-budget.ts). A lease is one
 * conditional UpdateItem: nothing is read first. When the condition fails, DynamoDB returns the
 * item as it is (`ReturnValuesOnConditionCheckFailure`), from which the container plans again.
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
    const key = { pk: organizationPartition(orgId) };
    const common = {
      TableName: this.tableName,
      Key: key,
      ReturnValues: 'UPDATED_NEW' as const,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    };
    const command =
      plan.kind === 'refill'
        ? new UpdateCommand({
            ...common,
            UpdateExpression: 'SET tat = :fresh, #ttl = :ttl',
            ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ':fresh': plan.fresh,
              ':now': plan.now,
              ':ttl': ttlFor(plan.fresh),
            },
          })
        : new UpdateCommand({
            ...common,
            UpdateExpression: 'ADD tat :cost SET #ttl = :ttl',
            ConditionExpression: 'tat > :now AND tat <= :highest',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ':cost': plan.cost,
              ':now': plan.now,
              ':highest': plan.highest,
              ':ttl': ttlFor(plan.highest + plan.cost),
            },
          });
    try {
      const { Attributes } = await this.documents.send(command);
      return { applied: true, tat: numberOrUndefined(Attributes?.tat) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The document client leaves the exception's item marshalled: `{ tat: { N: '…' } }`.
      return { applied: false, tat: numberOrUndefined(error.Item?.tat?.N) };
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
