import { createOnboardingToken } from '#shared/domain/onboarding/create-onboarding-token.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { created, rateLimitHeaders } from '#shared/http/responses.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import type { OnboardingTokenBody } from '#shared/schemas/onboarding-token-responses.ts';
import { onboardingTokenRequestSchema } from '#shared/schemas/onboarding-token-schemas.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { idempotentRequestsFor } from '#shared/wiring/idempotency.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { tokenIssuingPortsFor } from '#shared/wiring/onboarding.ts';

const { config, guards } = apiFunction('CreateOnboardingToken');

const createToken = createOnboardingToken(tokenIssuingPortsFor(config));

export const handler = createApiHandler({
  ...guards,
  requiredScope: 'onboarding:write',
  audit: auditTrailFor(config),
  bodySchema: onboardingTokenRequestSchema,
  idempotency: idempotentRequestsFor('POST /v1/onboarding-token', config),
  handle: async ({ body, principal, answerBy, audit }) => {
    const result = await createToken({
      answerBy,
      orgId: principal.tenantKey,
      organizationName: principal.orgName ?? principal.tenant.orgId,
      email: body.email,
      firstName: body.first_name,
      lastName: body.last_name,
    });
    metrics.addMetric(BusinessMetric.TokensIssued, MetricUnit.Count, 1);
    await audit('onboarding_token.created', result.tokenId);
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
