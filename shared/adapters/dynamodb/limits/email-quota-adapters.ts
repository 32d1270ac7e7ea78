import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EmailQuotaConfig } from '#shared/config/mail-config.ts';
import type { OnboardingEmailQuota } from '#shared/domain/onboarding/ports.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import { DynamoDbOnboardingEmailQuota } from '#shared/adapters/dynamodb/limits/email-quota.ts';

/**
 * The e-mail quotas of a function that sends onboarding e-mails (configured with
 * `emailQuotaEnvironment`), kept in its OnboardingTokens table; a refusal is counted as a
 * rate-limited request.
 */
export function onboardingEmailQuotaFor(
  documents: DynamoDBDocumentClient,
  config: EmailQuotaConfig & { ONBOARDING_TOKENS_TABLE_NAME: string },
): OnboardingEmailQuota {
  const quota = new DynamoDbOnboardingEmailQuota(documents, config.ONBOARDING_TOKENS_TABLE_NAME, {
    perRecipientPerHour: config.EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR,
    perOrganizationPerHour: config.EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR,
  });
  return {
    reserve: async (orgId, email, now) => {
      const reservation = await quota.reserve(orgId, email, now);
      if (!reservation.allowed) metrics.addMetric(BusinessMetric.RateLimitedRequests, MetricUnit.Count, 1);
      return reservation;
    },
  };
}
