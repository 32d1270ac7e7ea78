import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { InvalidInputError } from '../domain/errors.ts';
import type { ApiResult, LambdaContext } from './api-types.ts';

const REPLAY_WINDOW_SECONDS = 24 * 60 * 60;
const IDEMPOTENCY_KEY = /^[\x20-\x7E]{1,255}$/;

export interface IdempotentRequest {
  /** The raw `Idempotency-Key` header; without it the work simply runs. */
  idempotencyKey: string | undefined;
  orgId: string;
  /** The parsed request body; the same key with a different body is refused (422). */
  body: unknown;
  lambdaContext: LambdaContext;
}

export interface IdempotentRequests {
  run(request: IdempotentRequest, work: () => Promise<ApiResult>): Promise<ApiResult>;
}

/**
 * Replays the first response (status, body, headers) to a retry that carries the same
 * `Idempotency-Key`, organization and body within 24 hours, using Powertools idempotency with
 * its DynamoDB persistence layer. The key is scoped by route and organization, so two tenants
 * (or two endpoints) can never see each other's responses. Failures are not stored: a request
 * that ended in an error runs again on retry.
 */
export function createIdempotentRequests(options: {
  route: string;
  tableName: string;
  dynamoDbClient: DynamoDBClient;
}): IdempotentRequests {
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: options.tableName,
    awsSdkV3Client: options.dynamoDbClient as never,
  });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'key',
    payloadValidationJmesPath: 'body',
    expiresAfterSeconds: REPLAY_WINDOW_SECONDS,
  });

  return {
    async run(request, work) {
      if (request.idempotencyKey === undefined) return work();
      const key = request.idempotencyKey.trim();
      if (!IDEMPOTENCY_KEY.test(key)) {
        throw new InvalidInputError([
          { field: 'idempotencyKey', code: 'isIn', hint: 'Idempotency-Key must be 1 to 255 printable ASCII characters' },
        ]);
      }
      config.registerLambdaContext(request.lambdaContext);
      let executed = false;
      const runOnce = makeIdempotent(
        async (_payload: { key: string; body: unknown }) => {
          executed = true;
          return work();
        },
        { persistenceStore, config, keyPrefix: options.route },
      );
      const result = await runOnce({ key: `${request.orgId}#${key}`, body: request.body ?? null });
      return executed ? result : { ...result, headers: { ...result.headers, 'idempotent-replayed': 'true' } };
    },
  };
}
