import { auditEnvironment, auditRecorderFor } from '#shared/wiring/audit.ts';
import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { emailSendingStatusFor, onboardingEmailQuotaFor } from '#shared/wiring/onboarding.ts';
import { DynamoDbOnboardingTokenStore } from '#shared/adapters/dynamodb/onboarding-token-store.ts';
import { onboardingMailerFrom } from '#shared/adapters/ses/onboarding-mailer.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { requiredString } from '#shared/config/load-config.ts';
import {
  emailQuotaEnvironment,
  emailReputationEnvironment,
  onboardingMailEnvironment,
} from '#shared/config/mail-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { resendOnboardingToken } from '#shared/domain/onboarding/token-lifecycle.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import { tokenEventMetrics } from '#shared/observability/token-event-metrics.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { createIdempotentRequests } from '#shared/http/idempotent-requests.ts';
import { onboardingTokenIdFrom } from '#shared/http/path-parameters.ts';
import { created, rateLimitHeaders } from '#shared/http/responses.ts';
import type { OnboardingTokenBody } from '#shared/schemas/onboarding-token-responses.ts';
import { webhookEventPublishing } from '#shared/wiring/webhooks.ts';
import { webhookPublishingEnvironment } from '#shared/config/webhook-config.ts';
import { emittingTokenEvents } from '#shared/domain/webhooks/webhook-events.ts';

const config = loadApiConfig({
  ...auditEnvironment,
  ...webhookPublishingEnvironment,
  ONBOARDING_TOKENS_TABLE_NAME: requiredString('ONBOARDING_TOKENS_TABLE_NAME'),
  IDEMPOTENCY_TABLE_NAME: requiredString('IDEMPOTENCY_TABLE_NAME'),
  ...onboardingMailEnvironment,
  ...emailQuotaEnvironment,
  ...emailReputationEnvironment,
});
const dynamoDb = containerDynamoDbClients();

const resend = resendOnboardingToken({
  tokens: new DynamoDbOnboardingTokenStore(dynamoDb.documents, config.ONBOARDING_TOKENS_TABLE_NAME),
  mailer: onboardingMailerFrom(config),
  emailQuota: onboardingEmailQuotaFor(dynamoDb.documents, config),
  emailSending: emailSendingStatusFor(dynamoDb.documents, config),
  events: emittingTokenEvents(tokenEventMetrics, webhookEventPublishing(config)),
  clock: systemClock,
});

/** POST /v1/onboarding-tokens/{tokenId}/resend: a new token for the same person, all or nothing. */
export const handler = createApiHandler({
  requiredScope: 'onboarding:write',
  verifyToken: tokenVerifierFrom(config),
  audit: auditRecorderFor(dynamoDb.documents, config),
  idempotency: createIdempotentRequests({
    route: 'POST /v1/onboarding-tokens/{tokenId}/resend',
    tableName: config.IDEMPOTENCY_TABLE_NAME,
    dynamoDbClient: dynamoDb.client,
  }),
  handle: async ({ event, principal, audit }) => {
    const tokenId = onboardingTokenIdFrom(event);
    const result = await resend({
      orgId: principal.tenantKey,
      tokenId,
      organizationName: principal.orgName ?? principal.tenant.orgId,
      revokedBy: principal.subject,
    });
    metrics.addMetric(BusinessMetric.TokensIssued, MetricUnit.Count, 1);
    // The event names the token resent (revoked and replaced); the new one is in the response.
    await audit('onboarding_token.resent', tokenId);
    return created(
      {
        onboarding_token: result.onboardingToken,
        tokenId: result.tokenId,
        expires_at: result.expiresAt,
      } satisfies OnboardingTokenBody,
      rateLimitHeaders(result.emailQuota),
    );
  },
});
