import { auditEnvironment, auditRecorderFor } from '#shared/wiring/audit.ts';
import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbWebhookEndpointStore } from '#shared/adapters/dynamodb/webhook-store.ts';
import { dnsHostResolver } from '#shared/adapters/http/dns-host-resolver.ts';
import { secretSealerFor, urlPolicyFor } from '#shared/wiring/webhooks.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { webhookEnvironment } from '#shared/config/webhook-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { createWebhookEndpoint } from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { created } from '#shared/http/responses.ts';
import { webhookEndpointCreatedBody } from '#shared/presenters/webhook-bodies.ts';
import { webhookEndpointRequestSchema } from '#shared/schemas/webhook-schemas.ts';

const config = loadApiConfig({ ...webhookEnvironment, ...auditEnvironment });
const dynamoDb = containerDynamoDbClients();

const createEndpoint = createWebhookEndpoint({
  endpoints: new DynamoDbWebhookEndpointStore(dynamoDb.documents, config.WEBHOOKS_TABLE_NAME),
  sealer: secretSealerFor(config),
  resolver: dnsHostResolver,
  policy: urlPolicyFor(config),
  clock: systemClock,
});

/** POST /v1/webhooks: registers an endpoint; its secret is in this answer and nowhere else. */
export const handler = createApiHandler({
  requiredScope: 'webhooks:manage',
  verifyToken: tokenVerifierFrom(config),
  audit: auditRecorderFor(dynamoDb.documents, config),
  bodySchema: webhookEndpointRequestSchema,
  handle: async ({ body, principal, audit }) => {
    const registered = await createEndpoint({ orgId: principal.tenantKey, url: body.url, events: body.events });
    await audit('webhook.created', registered.endpoint.endpointId);
    return created(webhookEndpointCreatedBody(registered));
  },
});
