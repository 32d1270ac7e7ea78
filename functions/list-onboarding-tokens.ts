import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbOnboardingTokenStore } from '#shared/adapters/dynamodb/onboarding-token-store.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { listOnboardingTokens } from '#shared/domain/onboarding/list-onboarding-tokens.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { onboardingTokenPageBody } from '#shared/presenters/onboarding-token-bodies.ts';
import { onboardingTokenListQuerySchema } from '#shared/schemas/onboarding-token-schemas.ts';
import { parseInput } from '#shared/http/validation.ts';

const config = loadApiConfig({ ONBOARDING_TOKENS_TABLE_NAME: requiredString('ONBOARDING_TOKENS_TABLE_NAME') });
const dynamoDb = containerDynamoDbClients();

const listTokens = listOnboardingTokens({
  tokens: new DynamoDbOnboardingTokenStore(dynamoDb.documents, config.ONBOARDING_TOKENS_TABLE_NAME),
  clock: systemClock,
});

export const handler = createApiHandler({
  requiredScope: 'onboarding:read',
  verifyToken: tokenVerifierFrom(config),
  handle: async ({ event, principal }) => {
    const query = parseInput(onboardingTokenListQuerySchema, event.queryStringParameters ?? {});
    const listing = await listTokens({
      orgId: principal.tenantKey,
      limit: query.limit,
      cursor: query.cursor,
      status: query.status,
    });
    return ok(onboardingTokenPageBody(listing));
  },
});
