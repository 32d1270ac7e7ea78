import { redeemOnboardingToken } from '#shared/domain/onboarding/token-lifecycle.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { redeemedOnboardingTokenBody } from '#shared/presenters/onboarding-token-bodies.ts';
import { onboardingTokenRedeemSchema } from '#shared/schemas/onboarding-token-schemas.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { tokenLifecyclePortsFor } from '#shared/wiring/onboarding.ts';

const { config, guards } = apiFunction('RedeemOnboardingToken');
const redeem = redeemOnboardingToken(tokenLifecyclePortsFor(config));

/** POST /v1/onboarding-token/redeem: the organization's registration backend exchanges a token, once. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'onboarding:redeem',
  audit: auditTrailFor(config),
  bodySchema: onboardingTokenRedeemSchema,
  handle: async ({ body, principal, audit }) => {
    const used = await redeem({ orgId: principal.tenantKey, onboardingToken: body.onboarding_token });
    await audit('onboarding_token.redeemed', used.tokenId);
    return ok(redeemedOnboardingTokenBody(used));
  },
});
