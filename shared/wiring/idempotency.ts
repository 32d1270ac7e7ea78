import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { createIdempotentRequests, type IdempotentRequests } from '#shared/http/idempotent-requests.ts';

// Apart from shared/wiring/api.ts: only the three routes that take an `Idempotency-Key` bundle
// Powertools' idempotency (and the JMESPath engine it brings).

/** `Idempotency-Key` records of one route (`POST /v1/document/api`), in the Idempotency table. */
export function idempotentRequestsFor(route: string, config: { IDEMPOTENCY_TABLE_NAME: string }): IdempotentRequests {
  return createIdempotentRequests({
    route,
    tableName: config.IDEMPOTENCY_TABLE_NAME,
    dynamoDbClient: containerDynamoDbClients().client,
  });
}
