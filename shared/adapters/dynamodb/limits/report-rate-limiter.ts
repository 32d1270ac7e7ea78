import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ReportRateLimiter } from '#shared/domain/reports/ports.ts';
import type { RateLimitPolicy } from '#shared/domain/limits/report-rate-limit.ts';
import { DynamoDbOrganizationRateLimiter } from '#shared/adapters/dynamodb/limits/organization-rate-limiter.ts';

/**
 * The report rate limit: one item per organization (`ORG#{org}` / `RATE_LIMIT#report-create`) in
 * the ReportJobs table holding the spend times of its tokens and a version. Each request reads it,
 * decides, and writes back only if the version is unchanged; a concurrent writer makes the write
 * fail and the request decides again on fresh state, so a burst can never spend more tokens than
 * the bucket holds.
 */
export class DynamoDbReportRateLimiter extends DynamoDbOrganizationRateLimiter implements ReportRateLimiter {
  constructor(documents: DynamoDBDocumentClient, tableName: string, policy: RateLimitPolicy) {
    super(documents, tableName, 'report-create', policy);
  }
}
