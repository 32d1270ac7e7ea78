import { auditEnvironment, auditRecorderFor } from '#shared/wiring/audit.ts';
import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { emailSendingStatusFor, onboardingEmailQuotaFor } from '#shared/wiring/onboarding.ts';
import { DynamoDbOnboardingTokenStore } from '#shared/adapters/dynamodb/onboarding-token-store.ts';
import { onboardingMailerFrom } from '#shared/adapters/ses/onboarding-mailer.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { requiredString } from '#shared/config/load-config.ts';
import {
  emailQuotaEnvironment,
  emailReputationEnvironment,
  onboardingMailEnvironment,
} from '#shared/config/mail-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { createOnboardingToken } from '#shared/domain/onboarding/create-onboarding-token.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import { createIdempotentRequests } from '#shared/http/idempotent-requests.ts';
import { created, rateLimitHeaders } from '#shared/http/responses.ts';
import type { OnboardingTokenBody } from '#shared/schemas/onboarding-token-responses.ts';
import { onboardingTokenRequestSchema } from '#shared/schemas/onboarding-token-schemas.ts';
import { logger } from '#shared/observability/logger.ts';

const config = loadApiConfig({
  ...auditEnvironment,
  ONBOARDING_TOKENS_TABLE_NAME: requiredString('ONBOARDING_TOKENS_TABLE_NAME'),
  IDEMPOTENCY_TABLE_NAME: requiredString('IDEMPOTENCY_TABLE_NAME'),
  ...onboardingMailEnvironment,
  ...emailQuotaEnvironment,
  ...emailReputationEnvironment,
});
const dynamoDb = containerDynamoDbClients();

const createToken = createOnboardingToken({
  tokens: new DynamoDbOnboardingTokenStore(dynamoDb.documents, config.ONBOARDING_TOKENS_TABLE_NAME),
  mailer: onboardingMailerFrom(config),
  emailQuota: onboardingEmailQuotaFor(dynamoDb.documents, config),
  emailSending: emailSendingStatusFor(dynamoDb.documents, config),
  clock: systemClock,
  onWithdrawFailed: (tokenId, error) =>
    logger.warn('could not withdraw a token after a failed e-mail; it voids itself as provisional', {
      tokenId,
      error: error as Error,
    }),
});

export const handler = createApiHandler({
  requiredScope: 'onboarding:write',
  verifyToken: tokenVerifierFrom(config),
  audit: auditRecorderFor(dynamoDb.documents, config),
  bodySchema: onboardingTokenRequestSchema,
  idempotency: createIdempotentRequests({
    route: 'POST /v1/onboarding-token',
    tableName: config.IDEMPOTENCY_TABLE_NAME,
    dynamoDbClient: dynamoDb.client,
  }),
  handle: async ({ body, principal, answerBy, audit }) => {
    const result = await createToken({
      answerBy,
      orgId: principal.tenantKey,
      organizationName: principal.orgName ?? principal.tenant.orgId,
      email: body.email,
      firstName: body.first_name,
      lastName: body.last_name,
    });
    metrics.addMetric(BusinessMetric.TokensIssued, MetricUnit.Count, 1);
    await audit('onboarding_token.created', result.tokenId);
    return created(
      {
        onboarding_token: result.onboardingToken,
        tokenId: result.tokenId,
        expires_at: result.expiresAt,
      } satisfies OnboardingTokenBody,
      rateLimitHeaders(result.emailQuota),
    );
  },
});
