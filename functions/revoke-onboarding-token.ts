import { revokeOnboardingToken } from '#shared/domain/onboarding/token-lifecycle.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { onboardingTokenIdFrom } from '#shared/http/path-parameters.ts';
import { noContent } from '#shared/http/responses.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { tokenLifecyclePortsFor } from '#shared/wiring/onboarding.ts';

const { config, guards } = apiFunction('RevokeOnboardingToken');
const revoke = revokeOnboardingToken(tokenLifecyclePortsFor(config));

/** DELETE /v1/onboarding-tokens/{tokenId}: Issued -> Revoked, the e-mail freed. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'onboarding:write',
  audit: auditTrailFor(config),
  handle: async ({ event, principal, audit }) => {
    const tokenId = onboardingTokenIdFrom(event);
    await revoke({ orgId: principal.tenantKey, tokenId, revokedBy: principal.subject });
    await audit('onboarding_token.revoked', tokenId);
    return noContent();
  },
});
