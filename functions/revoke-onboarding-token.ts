import { auditEnvironment, auditRecorderFor } from '#shared/wiring/audit.ts';
import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbOnboardingTokenStore } from '#shared/adapters/dynamodb/onboarding-token-store.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { revokeOnboardingToken } from '#shared/domain/onboarding/token-lifecycle.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { tokenEventMetrics } from '#shared/observability/token-event-metrics.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { onboardingTokenIdFrom } from '#shared/http/path-parameters.ts';
import { noContent } from '#shared/http/responses.ts';
import { webhookEventPublishing } from '#shared/wiring/webhooks.ts';
import { webhookPublishingEnvironment } from '#shared/config/webhook-config.ts';
import { emittingTokenEvents } from '#shared/domain/webhooks/webhook-events.ts';

const config = loadApiConfig({
  ...auditEnvironment,
  ...webhookPublishingEnvironment,
  ONBOARDING_TOKENS_TABLE_NAME: requiredString('ONBOARDING_TOKENS_TABLE_NAME'),
});
const dynamoDb = containerDynamoDbClients();

const revoke = revokeOnboardingToken({
  tokens: new DynamoDbOnboardingTokenStore(dynamoDb.documents, config.ONBOARDING_TOKENS_TABLE_NAME),
  events: emittingTokenEvents(tokenEventMetrics, webhookEventPublishing(config)),
  clock: systemClock,
});

/** DELETE /v1/onboarding-tokens/{tokenId}: Issued -> Revoked, the e-mail freed. */
export const handler = createApiHandler({
  requiredScope: 'onboarding:write',
  verifyToken: tokenVerifierFrom(config),
  audit: auditRecorderFor(dynamoDb.documents, config),
  handle: async ({ event, principal, audit }) => {
    const tokenId = onboardingTokenIdFrom(event);
    await revoke({ orgId: principal.tenantKey, tokenId, revokedBy: principal.subject });
    await audit('onboarding_token.revoked', tokenId);
    return noContent();
  },
});
