import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DependencyUnavailableError } from '../../domain/errors.ts';
import type { ReportRateLimiter } from '../../domain/reports/ports.ts';
import { spendToken, type RateLimitDecision, type RateLimitPolicy } from '../../domain/reports/rate-limit.ts';
import { organizationPartition } from './keys.ts';

const MAX_ATTEMPTS = 25;

/**
 * One item per organization (`ORG#{org}` / `RATE_LIMIT#report-create`) holding the spend times
 * of its tokens and a version. Each request reads it, decides, and writes back only if the
 * version is unchanged; a concurrent writer makes the write fail and the request decides again
 * on fresh state, so a burst can never spend more tokens than the bucket holds.
 */
export class DynamoDbReportRateLimiter implements ReportRateLimiter {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly policy: RateLimitPolicy,
  ) {}

  async spend(orgId: string, now: Date): Promise<RateLimitDecision> {
    const key = { pk: organizationPartition(orgId), sk: 'RATE_LIMIT#report-create' };
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const { Item } = await this.documents.send(
        new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
      );
      const version = typeof Item?.version === 'number' ? Item.version : 0;
      const decision = spendToken((Item?.spentAt as number[] | undefined) ?? [], now.getTime(), this.policy);
      if (!decision.allowed) return decision;
      try {
        await this.documents.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              ...key,
              spentAt: decision.spentAt,
              version: version + 1,
              ttl: Math.ceil((now.getTime() + this.policy.windowMs) / 1000) + 60,
            },
            ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : 'version = :version',
            ExpressionAttributeValues: version === 0 ? undefined : { ':version': version },
          }),
        );
        return decision;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * Math.min(attempt, 5)));
      }
    }
    throw new DependencyUnavailableError('rate limiter (too much contention)');
  }
}
