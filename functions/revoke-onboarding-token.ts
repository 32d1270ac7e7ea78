import { systemClock } from '#shared/domain/clock.ts';
import { revokeOnboardingToken } from '#shared/domain/onboarding/token-lifecycle.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { onboardingTokenIdFrom } from '#shared/http/path-parameters.ts';
import { noContent } from '#shared/http/responses.ts';
import { apiGuards } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { loadFunctionConfig } from '#shared/wiring/function-config.ts';
import { onboardingTokensFor, tokenEventsFor } from '#shared/wiring/onboarding.ts';

const config = loadFunctionConfig('RevokeOnboardingToken');
const revoke = revokeOnboardingToken({
  tokens: onboardingTokensFor(config),
  events: tokenEventsFor(config),
  clock: systemClock,
});

/** DELETE /v1/onboarding-tokens/{tokenId}: Issued -> Revoked, the e-mail freed. */
export const handler = createApiHandler({
  ...apiGuards(config),
  requiredScope: 'onboarding:write',
  audit: auditTrailFor(config),
  handle: async ({ event, principal, audit }) => {
    const tokenId = onboardingTokenIdFrom(event);
    await revoke({ orgId: principal.tenantKey, tokenId, revokedBy: principal.subject });
    await audit('onboarding_token.revoked', tokenId);
    return noContent();
  },
});
