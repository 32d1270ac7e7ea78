import { createDynamoDbClients, createSesClient } from '#shared/adapters/aws-clients.ts';
import { DynamoDbOnboardingTokenStore } from '#shared/adapters/dynamodb/onboarding-token-store.ts';
import { SesOnboardingMailer } from '#shared/adapters/ses/onboarding-mailer.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { optionalString, requiredString } from '#shared/config/load-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { createOnboardingToken } from '#shared/domain/onboarding/create-onboarding-token.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { createIdempotentRequests } from '#shared/http/idempotent-requests.ts';
import { created } from '#shared/http/responses.ts';
import { onboardingTokenRequestSchema } from '#shared/http/schemas/onboarding-token-schemas.ts';
import { logger } from '#shared/observability/logger.ts';
import * as v from 'valibot';

const config = loadApiConfig({
  ONBOARDING_TOKENS_TABLE_NAME: requiredString('ONBOARDING_TOKENS_TABLE_NAME'),
  IDEMPOTENCY_TABLE_NAME: requiredString('IDEMPOTENCY_TABLE_NAME'),
  SENDER_EMAIL: requiredString('SENDER_EMAIL'),
  ONBOARDING_TEMPLATE_NAME: optionalString('onboarding-token'),
  SES_CONFIGURATION_SET: v.optional(v.pipe(v.string(), v.nonEmpty())),
});
const dynamoDb = createDynamoDbClients();

const createToken = createOnboardingToken({
  tokens: new DynamoDbOnboardingTokenStore(dynamoDb.documents, config.ONBOARDING_TOKENS_TABLE_NAME),
  mailer: new SesOnboardingMailer(createSesClient(), {
    senderAddress: config.SENDER_EMAIL,
    templateName: config.ONBOARDING_TEMPLATE_NAME,
    configurationSetName: config.SES_CONFIGURATION_SET,
  }),
  clock: systemClock,
  onWithdrawFailed: (tokenId, error) =>
    logger.error('token left behind after failed e-mail; remove it by hand', { tokenId, error: error as Error }),
});

export const handler = createApiHandler({
  requiredScope: 'onboarding:write',
  verifyToken: tokenVerifierFrom(config),
  bodySchema: onboardingTokenRequestSchema,
  idempotency: createIdempotentRequests({
    route: 'POST /v1/onboarding-token',
    tableName: config.IDEMPOTENCY_TABLE_NAME,
    dynamoDbClient: dynamoDb.client,
  }),
  handle: async ({ body, principal }) => {
    const result = await createToken({
      orgId: principal.orgId,
      organizationName: principal.orgName ?? principal.orgId,
      email: body.email,
      firstName: body.first_name,
      lastName: body.last_name,
    });
    return created({
      onboarding_token: result.onboardingToken,
      tokenId: result.tokenId,
      expires_at: result.expiresAt,
    });
  },
});
