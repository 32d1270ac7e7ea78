import { systemClock } from '#shared/domain/clock.ts';
import { expireOnboardingToken } from '#shared/domain/onboarding/token-lifecycle.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { onboardingTokenIdFrom } from '#shared/http/path-parameters.ts';
import { ok } from '#shared/http/responses.ts';
import { onboardingTokenSummaryBody } from '#shared/presenters/onboarding-token-bodies.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { onboardingTokensFor } from '#shared/wiring/onboarding.ts';

const { config, guards } = apiFunction('ExpireSandboxOnboardingToken');
const expire = expireOnboardingToken({ tokens: onboardingTokensFor(config), clock: systemClock });

/** POST /v1/sandbox/onboarding-tokens/{tokenId}/expire: Issued -> Expired now; 200 with the token's list row. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'onboarding:write',
  audit: auditTrailFor(config),
  handle: async ({ event, principal, audit }) => {
    const record = await expire({ orgId: principal.tenantKey, tokenId: onboardingTokenIdFrom(event) });
    await audit('onboarding_token.expired', record.tokenId);
    return ok(onboardingTokenSummaryBody({ record, status: 'Expired' }));
  },
});
