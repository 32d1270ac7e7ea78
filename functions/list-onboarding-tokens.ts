import { systemClock } from '#shared/domain/clock.ts';
import { listOnboardingTokens } from '#shared/domain/onboarding/list-onboarding-tokens.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { parseInput } from '#shared/http/validation.ts';
import { onboardingTokenPageBody } from '#shared/presenters/onboarding-token-bodies.ts';
import { onboardingTokenListQuerySchema } from '#shared/schemas/onboarding-token-schemas.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { onboardingTokensFor } from '#shared/wiring/onboarding.ts';

const { config, guards } = apiFunction('ListOnboardingTokens');
const listTokens = listOnboardingTokens({ tokens: onboardingTokensFor(config), clock: systemClock });

export const handler = createApiHandler({
  ...guards,
  requiredScope: 'onboarding:read',
  handle: async ({ event, principal }) => {
    const { limit, cursor, status } = parseInput(onboardingTokenListQuerySchema, event.queryStringParameters ?? {});
    return ok(onboardingTokenPageBody(await listTokens({ orgId: principal.tenantKey, limit, cursor, status })));
  },
});
