import { systemClock } from '#shared/domain/clock.ts';
import { resendOnboardingToken } from '#shared/domain/onboarding/token-lifecycle.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { onboardingTokenIdFrom } from '#shared/http/path-parameters.ts';
import { created, rateLimitHeaders } from '#shared/http/responses.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import type { OnboardingTokenBody } from '#shared/schemas/onboarding-token-responses.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { idempotentRequestsFor } from '#shared/wiring/idempotency.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { onboardingMailFor, onboardingTokensFor, tokenEventsFor } from '#shared/wiring/onboarding.ts';

const { config, guards } = apiFunction('ResendOnboardingToken');
const resend = resendOnboardingToken({
  tokens: onboardingTokensFor(config),
  ...onboardingMailFor(config),
  events: tokenEventsFor(config),
  clock: systemClock,
});

/** POST /v1/onboarding-tokens/{tokenId}/resend: a new token for the same person, all or nothing. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'onboarding:write',
  audit: auditTrailFor(config),
  idempotency: idempotentRequestsFor('POST /v1/onboarding-tokens/{tokenId}/resend', config),
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
