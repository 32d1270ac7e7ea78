import { auditEnvironment, auditRecorderFor } from '#shared/wiring/audit.ts';
import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbOnboardingTokenStore } from '#shared/adapters/dynamodb/onboarding-token-store.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { redeemOnboardingToken } from '#shared/domain/onboarding/token-lifecycle.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { tokenEventMetrics } from '#shared/observability/token-event-metrics.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { ok } from '#shared/http/responses.ts';
import type { RedeemedOnboardingTokenBody } from '#shared/schemas/onboarding-token-responses.ts';
import { onboardingTokenRedeemSchema } from '#shared/schemas/onboarding-token-schemas.ts';
import { webhookEventPublishing } from '#shared/wiring/webhooks.ts';
import { webhookPublishingEnvironment } from '#shared/config/webhook-config.ts';
import { emittingTokenEvents } from '#shared/domain/webhooks/webhook-events.ts';

const config = loadApiConfig({
  ...auditEnvironment,
  ...webhookPublishingEnvironment,
  ONBOARDING_TOKENS_TABLE_NAME: requiredString('ONBOARDING_TOKENS_TABLE_NAME'),
});
const dynamoDb = containerDynamoDbClients();

const redeem = redeemOnboardingToken({
  tokens: new DynamoDbOnboardingTokenStore(dynamoDb.documents, config.ONBOARDING_TOKENS_TABLE_NAME),
  events: emittingTokenEvents(tokenEventMetrics, webhookEventPublishing(config)),
  clock: systemClock,
});

/** POST /v1/onboarding-token/redeem: the organization's registration backend exchanges a token, once. */
export const handler = createApiHandler({
  requiredScope: 'onboarding:redeem',
  verifyToken: tokenVerifierFrom(config),
  audit: auditRecorderFor(dynamoDb.documents, config),
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
