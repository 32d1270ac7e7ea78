import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { EMAIL_QUOTA_WINDOW_MS, quotaAddress, type EmailQuotaPolicy } from '#shared/domain/limits/email-quota.ts';
import type {
  EmailQuotaRefusal,
  EmailQuotaReservation,
  OnboardingEmailQuota,
} from '#shared/domain/onboarding/ports.ts';
import type { QuotaDecision } from '#shared/domain/limits/rate-limit.ts';
import { organizationPartition } from '#shared/adapters/dynamodb/keys.ts';
import { DynamoDbRateLimiter, type QuotaSpec } from '#shared/adapters/dynamodb/limits/rate-limiter.ts';

/** The sort key of an address's quota: the SHA-256 of the address, never the address itself. */
export const recipientQuotaKey = (email: string): string =>
  `RATE_LIMIT#email#${createHash('sha256').update(quotaAddress(email), 'utf8').digest('hex')}`;

/** The prefix of the organization's hourly counters (`…#{hour's start, ISO}`). */
export const ORGANIZATION_QUOTA_KEY = 'RATE_LIMIT#email-org';

/**
 * The onboarding e-mail quotas in the OnboardingTokens table, in the organization's partition:
 * - per address: `RATE_LIMIT#email#{sha256(address)}`, a sliding window of the spend times
 *   (at most 5 numbers by default), exact: never more than the limit in any 60 minutes;
 * - per organization: `RATE_LIMIT#email-org#{hour}`, one counter per clock hour (UTC), because a
 *   list of 1,000 spend times would be a large item rewritten by every e-mail, and every
 *   concurrent e-mail of the organization would contend for its version. A counter is an
 *   `ADD count 1` conditioned on `count < limit`: concurrent e-mails to different addresses do not
 *   invalidate each other. The cost: up to twice the limit across the turn of an hour.
 * `reserve` reads both and decides (DynamoDbRateLimiter); the two conditional writes it returns
 * are committed by the token store in the token's own transaction. Items expire (TTL) a minute
 * after their window.
 */
export class DynamoDbOnboardingEmailQuota implements OnboardingEmailQuota {
  private readonly limiter: DynamoDbRateLimiter;

  constructor(
    documents: DynamoDBDocumentClient,
    tableName: string,
    private readonly policy: EmailQuotaPolicy,
  ) {
    this.limiter = new DynamoDbRateLimiter(documents, tableName);
  }

  async reserve(orgId: string, email: string, now: Date): Promise<EmailQuotaReservation | EmailQuotaRefusal> {
    const pk = organizationPartition(orgId);
    const quotas: QuotaSpec[] = [
      {
        kind: 'sliding-window',
        key: { pk, sk: recipientQuotaKey(email) },
        policy: { capacity: this.policy.perRecipientPerHour, windowMs: EMAIL_QUOTA_WINDOW_MS },
      },
      {
        kind: 'fixed-window',
        key: { pk, sk: ORGANIZATION_QUOTA_KEY },
        policy: { capacity: this.policy.perOrganizationPerHour, windowMs: EMAIL_QUOTA_WINDOW_MS },
      },
    ];
    const reservation = await this.limiter.reserve(quotas, now);
    if (!reservation.allowed) {
      return {
        allowed: false,
        decision: decisionOnly(reservation.decision),
        exhausted: reservation.refusedBy === 0 ? 'recipient' : 'organization',
      };
    }
    return { allowed: true, decision: decisionOnly(reservation.decision), spend: { writes: reservation.writes } };
  }
}

/** The decision without the state it was made on (spend times, window). */
const decisionOnly = ({
  allowed,
  limit,
  remaining,
  resetSeconds,
  retryAfterSeconds,
}: QuotaDecision): QuotaDecision => ({
  allowed,
  limit,
  remaining,
  resetSeconds,
  retryAfterSeconds,
});
