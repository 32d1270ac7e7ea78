import { systemClock } from '#shared/domain/clock.ts';
import { redeemOnboardingToken } from '#shared/domain/onboarding/token-lifecycle.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import type { RedeemedOnboardingTokenBody } from '#shared/schemas/onboarding-token-responses.ts';
import { onboardingTokenRedeemSchema } from '#shared/schemas/onboarding-token-schemas.ts';
import { apiGuards } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { loadFunctionConfig } from '#shared/wiring/function-config.ts';
import { onboardingTokensFor, tokenEventsFor } from '#shared/wiring/onboarding.ts';

const config = loadFunctionConfig('RedeemOnboardingToken');
const redeem = redeemOnboardingToken({
  tokens: onboardingTokensFor(config),
  events: tokenEventsFor(config),
  clock: systemClock,
});

/** POST /v1/onboarding-token/redeem: the organization's registration backend exchanges a token, once. */
export const handler = createApiHandler({
  ...apiGuards(config),
  requiredScope: 'onboarding:redeem',
  audit: auditTrailFor(config),
  bodySchema: onboardingTokenRedeemSchema,
  handle: async ({ body, principal, audit }) => {
    const used = await redeem({ orgId: principal.tenantKey, onboardingToken: body.onboarding_token });
    await audit('onboarding_token.redeemed', used.tokenId);
    return ok({
      tokenId: used.tokenId,
      email: used.email,
      first_name: used.firstName,
      last_name: used.lastName,
      status: 'Used',
      // markUsed answers the record it just marked Used, with usedAt.
      usedAt: used.usedAt!,
      expiresAt: used.expiresAt,
    } satisfies RedeemedOnboardingTokenBody);
  },
});
