import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidInputError } from '#shared/domain/errors.ts';
import type { ApiResult } from '#shared/http/api-types.ts';
import { createIdempotentRequests, type IdempotentRequest } from '#shared/http/idempotent-requests.ts';
import { created } from '#shared/http/responses.ts';
import { lambdaContext } from '#test/support/api-event.ts';

const ROUTE = 'POST /v1/onboarding-token';
const TABLE = 'idempotency-test';
const BODY = { email: 'jane.doe@example.com', first_name: 'Jane', last_name: 'Doe' };
const KEY = 'client-key-4711';

const dynamoDb = new DynamoDBClient({
  region: 'eu-west-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});
const dynamoDbMock = mockClient(DynamoDBClient);

const idempotency = createIdempotentRequests({ route: ROUTE, tableName: TABLE, dynamoDbClient: dynamoDb });

const request = (overrides: Partial<IdempotentRequest> = {}): IdempotentRequest => ({
  idempotencyKey: KEY,
  orgId: 'org-a',
  body: BODY,
  lambdaContext: lambdaContext(),
  ...overrides,
});

const firstResponse = (): ApiResult =>
  created({ onboarding_token: 'tok_123', expires_at: '2025-01-15T00:00:00.000Z' }, { location: '/x' });

const putItems = (): Record<string, AttributeValue>[] =>
  dynamoDbMock.commandCalls(PutItemCommand).map((call) => call.args[0].input.Item ?? {});

beforeEach(() => {
  dynamoDbMock.reset();
  dynamoDbMock.on(PutItemCommand).resolves({});
  dynamoDbMock.on(UpdateItemCommand).resolves({});
});

afterAll(() => {
  dynamoDbMock.restore();
});

describe('createIdempotentRequests', () => {
  it('without an Idempotency-Key runs the work and never calls DynamoDB', async () => {
    // Arrange
    const work = vi.fn(async () => firstResponse());

    // Act
    const result = await idempotency.run(request({ idempotencyKey: undefined }), work);

    // Assert
    expect(result).toEqual(firstResponse());
    expect(work).toHaveBeenCalledTimes(1);
    expect(dynamoDbMock.calls()).toHaveLength(0);
  });

  it('with a key runs the work once, records it in the configured table and returns its result unmarked', async () => {
    const work = vi.fn(async () => firstResponse());

    const result = await idempotency.run(request(), work);

    expect(work).toHaveBeenCalledTimes(1);
    expect(result).toEqual(firstResponse());
    expect(result.headers['idempotent-replayed']).toBeUndefined();
    const puts = dynamoDbMock.commandCalls(PutItemCommand);
    expect(puts).toHaveLength(1);
    expect(puts[0]?.args[0].input.TableName).toBe(TABLE);
    expect(dynamoDbMock.commandCalls(UpdateItemCommand)).toHaveLength(1);
  });

  it('stores a record id that reveals neither the key nor the body, under the route prefix', async () => {
    await idempotency.run(request(), async () => firstResponse());

    const id = putItems()[0]?.id?.S;
    expect(id).toBeDefined();
    expect(id?.startsWith(`${ROUTE}#`)).toBe(true);
    expect(id).not.toContain(KEY);
    expect(id).not.toContain('org-a');
    expect(id).not.toContain(BODY.email);
    expect(id).not.toContain(JSON.stringify(BODY));
    expect(JSON.stringify(putItems()[0])).not.toContain(BODY.email);
  });

  it('scopes the record by organization: the same key from two organizations gives two ids', async () => {
    await idempotency.run(request({ orgId: 'org-a' }), async () => firstResponse());
    await idempotency.run(request({ orgId: 'org-b' }), async () => firstResponse());

    const [first, second] = putItems().map((item) => item.id?.S);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(first).not.toBe(second);
  });

  it('gives the same id to a retry with the same key and organization, and a different one for another key', async () => {
    await idempotency.run(request(), async () => firstResponse());
    await idempotency.run(request(), async () => firstResponse());
    await idempotency.run(request({ idempotencyKey: `${KEY}-2` }), async () => firstResponse());

    const [first, retry, otherKey] = putItems().map((item) => item.id?.S);
    expect(retry).toBe(first);
    expect(otherKey).not.toBe(first);
  });

  it('replays the stored response without running the work again, marked idempotent-replayed', async () => {
    // Arrange: the first request, to learn exactly what Powertools stores for it.
    await idempotency.run(request(), async () => firstResponse());
    const stored = putItems()[0] ?? {};
    const update = dynamoDbMock.commandCalls(UpdateItemCommand)[0]?.args[0].input;
    const values = update?.ExpressionAttributeValues ?? {};
    const completedItem: Record<string, AttributeValue> = {
      ...stored,
      status: values[':status'] ?? { S: 'COMPLETED' },
      data: values[':response_data'] ?? { NULL: true },
    };
    if (values[':validation_key']) completedItem.validation = values[':validation_key'];
    dynamoDbMock.on(PutItemCommand).rejects(
      new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        $metadata: {},
        Item: completedItem,
      }),
    );
    dynamoDbMock.on(GetItemCommand).resolves({ Item: completedItem });
    const work = vi.fn(async () => created({ onboarding_token: 'tok_SECOND' }));

    // Act
    const replayed = await idempotency.run(request(), work);

    // Assert
    expect(work).not.toHaveBeenCalled();
    expect(replayed).toEqual({
      ...firstResponse(),
      headers: { ...firstResponse().headers, 'idempotent-replayed': 'true' },
    });
  });

  it('stores the response body encrypted: the created token is not readable in the table', async () => {
    await idempotency.run(request({ idempotencyKey: KEY }), async () => firstResponse());

    const stored = JSON.stringify(dynamoDbMock.commandCalls(UpdateItemCommand).map((call) => call.args[0].input));
    expect(stored).not.toContain('tok_123');
    expect(stored).not.toContain('onboarding_token');
    expect(stored).not.toContain(KEY);
  });

  it('does not store a failure: the record is removed and the error propagates', async () => {
    const failure = new Error('mail service down');

    await expect(idempotency.run(request(), () => Promise.reject(failure))).rejects.toBe(failure);

    expect(dynamoDbMock.commandCalls(UpdateItemCommand)).toHaveLength(0);
    expect(dynamoDbMock.calls().map((call) => call.args[0].constructor.name)).toEqual([
      'PutItemCommand',
      'DeleteItemCommand',
    ]);
  });

  it.each([
    ['256 characters', 'k'.repeat(256)],
    ['a newline', 'abc\ndef'],
    ['a control character', 'abc\u0000def'],
    ['a non-ASCII character', 'clé-1'],
    ['only whitespace', '   '],
    ['nothing', ''],
  ])(
    'rejects a key with %s as InvalidInputError on idempotencyKey, before any work or DynamoDB call',
    async (_, idempotencyKey) => {
      const work = vi.fn(async () => firstResponse());

      const outcome = idempotency.run(request({ idempotencyKey }), work);

      await expect(outcome).rejects.toBeInstanceOf(InvalidInputError);
      await expect(outcome).rejects.toMatchObject({ problems: [expect.objectContaining({ field: 'idempotencyKey' })] });
      expect(work).not.toHaveBeenCalled();
      expect(dynamoDbMock.calls()).toHaveLength(0);
    },
  );

  it('accepts a key of exactly 255 printable characters', async () => {
    const work = vi.fn(async () => firstResponse());

    await idempotency.run(request({ idempotencyKey: `${'k'.repeat(254)}~` }), work);

    expect(work).toHaveBeenCalledTimes(1);
    expect(putItems()).toHaveLength(1);
  });
});
