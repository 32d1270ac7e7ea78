import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { OrganizationRateLimiter, RateLimitDecision, RateLimitPolicy } from '#shared/domain/limits/rate-limit.ts';
import { organizationPartition } from '#shared/adapters/dynamodb/keys.ts';
import { DynamoDbRateLimiter } from '#shared/adapters/dynamodb/limits/rate-limiter.ts';

/**
 * A sliding-window limit per organization: one item per organization (`ORG#{org}` /
 * `RATE_LIMIT#{name}`) holding the spend times of its tokens and a version, spent by a
 * version-checked write that is retried on contention (see DynamoDbRateLimiter).
 */
export class DynamoDbOrganizationRateLimiter implements OrganizationRateLimiter {
  private readonly limiter: DynamoDbRateLimiter;

  constructor(
    documents: DynamoDBDocumentClient,
    tableName: string,
    private readonly name: string,
    private readonly policy: RateLimitPolicy,
  ) {
    this.limiter = new DynamoDbRateLimiter(documents, tableName);
  }

  spend(orgId: string, now: Date): Promise<RateLimitDecision> {
    return this.limiter.spendSliding(
      { pk: organizationPartition(orgId), sk: `RATE_LIMIT#${this.name}` },
      this.policy,
      now,
    );
  }
}
