import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { InvalidInputError } from '#shared/domain/errors.ts';
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
    awsSdkV3Client: options.dynamoDbClient,
  });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'key',
    payloadValidationJmesPath: 'body',
    expiresAfterSeconds: REPLAY_WINDOW_SECONDS,
    hashFunction: 'sha256',
  });

  return {
    async run(request, work) {
      if (request.idempotencyKey === undefined) return work();
      const key = request.idempotencyKey.trim();
      if (!IDEMPOTENCY_KEY.test(key)) {
        throw new InvalidInputError([
          {
            field: 'idempotencyKey',
            code: 'isIn',
            hint: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
          },
        ]);
      }
      config.registerLambdaContext(request.lambdaContext);
      const sealingKey = sealingKeyFor(options.route, request.orgId, key);
      let executed = false;
      const runOnce = makeIdempotent(
        async (_payload: { key: string; body: unknown }) => {
          executed = true;
          return seal(await work(), sealingKey);
        },
        { persistenceStore, config, keyPrefix: options.route },
      );
      const result = unseal(await runOnce({ key: `${request.orgId}#${key}`, body: request.body ?? null }), sealingKey);
      return executed ? result : { ...result, headers: { ...result.headers, 'idempotent-replayed': 'true' } };
    },
  };
}

/**
 * The stored response body is encrypted with a key derived from the Idempotency-Key itself, which
 * the table never holds (only its SHA-256 hash, as the record id): a created onboarding token is
 * never readable at rest, and only a retry presenting the same key (and organization) can replay it.
 * As strong as the client's key; the API description asks for random keys (UUIDs).
 */
function sealingKeyFor(route: string, orgId: string, idempotencyKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', idempotencyKey, `${route}#${orgId}`, 'idempotent-response-body', 32));
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

function seal(result: ApiResult, key: Buffer): ApiResult {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(result.body ?? '', 'utf8'), cipher.final()]);
  return { ...result, body: Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64') };
}

function unseal(result: ApiResult, key: Buffer): ApiResult {
  const raw = Buffer.from(result.body ?? '', 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  const body = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  return { ...result, body };
}
