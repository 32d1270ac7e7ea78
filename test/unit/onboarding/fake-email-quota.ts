import type {
  EmailQuotaRefusal,
  EmailQuotaReservation,
  OnboardingEmailQuota,
} from '#shared/domain/onboarding/ports.ts';
import type { QuotaDecision } from '#shared/domain/limits/rate-limit.ts';

export const ALLOWED: QuotaDecision = {
  allowed: true,
  limit: 5,
  remaining: 3,
  resetSeconds: 3600,
  retryAfterSeconds: 0,
};

/** Refused by the address's quota (5 an hour), the oldest e-mail 20 minutes ago. */
export const RECIPIENT_REFUSAL: EmailQuotaRefusal = {
  allowed: false,
  decision: { allowed: false, limit: 5, remaining: 0, resetSeconds: 2400, retryAfterSeconds: 2400 },
  exhausted: 'recipient',
};

/** What the fake's reservations ask the store to commit with the token: recognizable transaction items. */
export const quotaWrite = (reservation: number) => ({
  ConditionCheck: {
    TableName: 'OnboardingTokens',
    Key: { pk: 'ORG#acme', sk: `RATE_LIMIT#fake#${reservation}` },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** An e-mail quota that records what it is asked to reserve, and refuses when told to. */
export class FakeEmailQuota implements OnboardingEmailQuota {
  readonly reserved: Array<{ orgId: string; email: string; now: Date }> = [];
  refusal: EmailQuotaRefusal | undefined;

  constructor(private readonly onReserve: () => void = () => undefined) {}

  async reserve(orgId: string, email: string, now: Date): Promise<EmailQuotaReservation | EmailQuotaRefusal> {
    this.onReserve();
    if (this.refusal) return this.refusal;
    this.reserved.push({ orgId, email, now });
    return { allowed: true, decision: ALLOWED, spend: { writes: [quotaWrite(this.reserved.length)] } };
  }
}
