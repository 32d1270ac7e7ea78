import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import {
  concurrencyPartition,
  DynamoDbConcurrencySlots,
  storedSlot,
} from '#shared/adapters/dynamodb/limits/concurrency-slots.ts';
import { runWithDeadline } from '#shared/support/request-deadline.ts';
import { concurrencyPolicyFrom, concurrencySettingsFrom } from '#shared/config/limits/concurrency.ts';
import { ConfigurationError } from '#shared/config/load-config.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { DEFAULT_CONCURRENCY, type ConcurrencyPolicy, type SlotLease } from '#shared/domain/limits/concurrency.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import type { ApiEvent, ApiResult } from '#shared/http/api-types.ts';
import type { TokenVerifier } from '#shared/http/auth.ts';
import type { ApiContext } from '#shared/http/middlewares.ts';
import { RELEASE_WAIT_MS } from '#shared/http/limits/concurrency.ts';
import { ok } from '#shared/http/responses.ts';
import { apiEvent, lambdaContext } from '#test/support/api-event.ts';
import { useAwsEndpoint } from '#test/support/aws-endpoint-environment.ts';
import { bearer, createTestKeySet, signToken, validClaims } from '#test/support/jwt.ts';
import { testTokenVerifier } from '#test/support/fixtures/token-verifier.ts';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
});

const TABLE = 'RequestBudgets';
const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const policy: ConcurrencyPolicy = { perOrganization: 3, databasePerOrganization: 2 };

interface StoredSlots {
  requests: Set<string>;
  databaseRequests: Set<string>;
}

/**
 * A DynamoDB stand-in for the slots items, behind aws-sdk-client-mock: it evaluates the three
 * update shapes the adapter sends (take: ADD with room conditions; reclaim and release: DELETE
 * if the item exists) as DynamoDB would, string sets included (a set emptied is removed).
 */
const documents = mockClient(DynamoDBDocumentClient);

type UpdateInput = {
  Key: { pk: string };
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeValues: Record<string, Set<string> | number>;
};

function mockSlots() {
  documents.reset();
  const items = new Map<string, StoredSlots>();
  documents.on(UpdateCommand).callsFake((input: UpdateInput) => {
    const item = items.get(input.Key.pk);
    const values = input.ExpressionAttributeValues;
    const refused = () =>
      new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        $metadata: {},
        ...(item === undefined
          ? {}
          : {
              Item: {
                pk: { S: input.Key.pk },
                ...(item.requests.size > 0 ? { requests: { SS: [...item.requests] } } : {}),
                ...(item.databaseRequests.size > 0 ? { databaseRequests: { SS: [...item.databaseRequests] } } : {}),
              },
            }),
      });
    if (input.UpdateExpression.startsWith('ADD')) {
      const slots = item ?? { requests: new Set<string>(), databaseRequests: new Set<string>() };
      const database = input.UpdateExpression.includes('databaseRequests');
      if (slots.requests.size >= (values[':limit'] as number)) throw refused();
      if (database && slots.databaseRequests.size >= (values[':databaseLimit'] as number)) throw refused();
      for (const slot of values[':slot'] as Set<string>) {
        slots.requests.add(slot);
        if (database) slots.databaseRequests.add(slot);
      }
      items.set(input.Key.pk, slots);
      return {};
    }
    if (!input.UpdateExpression.startsWith('DELETE')) throw new Error(`unexpected update ${input.UpdateExpression}`);
    if (!item) throw refused();
    for (const clause of input.UpdateExpression.slice('DELETE '.length).split(', ')) {
      const [attribute, placeholder] = clause.split(' ') as ['requests' | 'databaseRequests', string];
      for (const slot of values[placeholder] as Set<string>) item[attribute].delete(slot);
    }
    return {};
  });
  return { items };
}

const newDocuments = () => DynamoDBDocumentClient.from(createDynamoDbClients().client);

let leaseCount = 0;
const lease = (orgId: string, options: { database?: boolean; expiresAt?: number } = {}): SlotLease => ({
  id: `lease-${++leaseCount}`,
  orgId,
  expiresAt: options.expiresAt ?? NOW + 10_000,
  database: options.database ?? false,
});

describe('DynamoDbConcurrencySlots (aws-sdk-client-mock)', () => {
  it('takes a slot with one conditional UpdateItem: the slot added to the organization’s sets if each has room', async () => {
    const { items } = mockSlots();
    const slots = new DynamoDbConcurrencySlots(newDocuments(), TABLE);
    const taken = lease('acme', { database: true });

    expect(await slots.take(taken, policy, NOW)).toBe('taken');

    expect(documents).toHaveReceivedCommandTimes(UpdateCommand, 1);
    expect(documents).toHaveReceivedCommandWith(UpdateCommand, {
      TableName: TABLE,
      Key: { pk: 'ORG#acme#CONCURRENCY' },
      UpdateExpression: 'ADD requests :slot, databaseRequests :slot SET #ttl = :ttl',
      ConditionExpression:
        '(attribute_not_exists(requests) OR size(requests) < :limit) AND (attribute_not_exists(databaseRequests) OR size(databaseRequests) < :databaseLimit)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    expect(items.get(concurrencyPartition('acme'))).toEqual({
      requests: new Set([storedSlot(taken)]),
      databaseRequests: new Set([storedSlot(taken)]),
    });
  });

  it('refuses at the limit without a second write: the database routes’ at theirs, every route at the organization’s; another organization is untouched', async () => {
    mockSlots();
    const slots = new DynamoDbConcurrencySlots(newDocuments(), TABLE);
    expect(await slots.take(lease('acme', { database: true }), policy, NOW)).toBe('taken');
    expect(await slots.take(lease('acme', { database: true }), policy, NOW)).toBe('taken');
    documents.resetHistory();

    expect(await slots.take(lease('acme', { database: true }), policy, NOW)).toBe('at-database-limit');
    expect(documents).toHaveReceivedCommandTimes(UpdateCommand, 1);
    // Two of three in flight: one more on another route fits, then none.
    expect(await slots.take(lease('acme'), policy, NOW)).toBe('taken');
    expect(await slots.take(lease('acme'), policy, NOW)).toBe('at-limit');
    expect(await slots.take(lease('globex', { database: true }), policy, NOW)).toBe('taken');
  });

  it('reclaims slots past their deadline (a crashed request’s) and takes one of them: one DELETE, then the take again', async () => {
    const { items } = mockSlots();
    const slots = new DynamoDbConcurrencySlots(newDocuments(), TABLE);
    const crashed = lease('acme', { database: true, expiresAt: NOW + 1_000 });
    const running = lease('acme', { database: true, expiresAt: NOW + 10_000 });
    await slots.take(crashed, policy, NOW);
    await slots.take(running, policy, NOW);
    expect(await slots.take(lease('acme', { database: true }), policy, NOW + 999)).toBe('at-database-limit');
    documents.resetHistory();

    const next = lease('acme', { database: true, expiresAt: NOW + 11_000 });
    expect(await slots.take(next, policy, NOW + 1_000)).toBe('taken');

    expect(documents).toHaveReceivedCommandTimes(UpdateCommand, 3);
    expect(documents).toHaveReceivedNthCommandWith(UpdateCommand, 2, {
      UpdateExpression: 'DELETE requests :expired, databaseRequests :expiredDatabase',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: {
        ':expired': new Set([storedSlot(crashed)]),
        ':expiredDatabase': new Set([storedSlot(crashed)]),
      },
    });
    expect(items.get(concurrencyPartition('acme'))?.databaseRequests).toEqual(
      new Set([storedSlot(running), storedSlot(next)]),
    );
  });

  it('releases with one UpdateItem DELETE from both sets; the slot is free again; releasing twice changes nothing', async () => {
    const { items } = mockSlots();
    const slots = new DynamoDbConcurrencySlots(newDocuments(), TABLE);
    const first = lease('acme', { database: true });
    await slots.take(first, policy, NOW);
    await slots.take(lease('acme', { database: true }), policy, NOW);
    documents.resetHistory();

    await slots.release(first);
    await slots.release(first);

    expect(documents).toHaveReceivedNthCommandWith(UpdateCommand, 1, {
      Key: { pk: 'ORG#acme#CONCURRENCY' },
      UpdateExpression: 'DELETE requests :slot, databaseRequests :slot',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':slot': new Set([storedSlot(first)]) },
    });
    expect(items.get(concurrencyPartition('acme'))?.databaseRequests.size).toBe(1);
    expect(await slots.take(lease('acme', { database: true }), policy, NOW)).toBe('taken');
  });

  it('a release of a slot whose item is gone (reclaimed, or deleted by its TTL) creates nothing', async () => {
    const { items } = mockSlots();
    const slots = new DynamoDbConcurrencySlots(newDocuments(), TABLE);

    await expect(slots.release(lease('acme'))).resolves.toBeUndefined();
    expect(items.size).toBe(0);
  });

  it('a retried take whose first attempt landed counts once: refused for want of room, it finds its own slot in the item (taken)', async () => {
    const { items } = mockSlots();
    const slots = new DynamoDbConcurrencySlots(newDocuments(), TABLE);
    await slots.take(lease('acme', { database: true }), policy, NOW);
    const retried = lease('acme', { database: true });
    // The first attempt landed and its answer was lost: the slot is in the item, the limit reached.
    items.get(concurrencyPartition('acme'))!.requests.add(storedSlot(retried));
    items.get(concurrencyPartition('acme'))!.databaseRequests.add(storedSlot(retried));

    expect(await slots.take(retried, policy, NOW)).toBe('taken');
    expect(items.get(concurrencyPartition('acme'))!.databaseRequests.size).toBe(2);
  });

  it('a take DynamoDB fails is the error of the SDK client (the client maps an unreachable table to DependencyUnavailableError)', async () => {
    documents.reset();
    documents.on(UpdateCommand).rejects(new DependencyUnavailableError('database'));
    const slots = new DynamoDbConcurrencySlots(newDocuments(), TABLE);

    await expect(slots.take(lease('acme'), policy, NOW)).rejects.toBeInstanceOf(DependencyUnavailableError);
  });
});

describe('the slot in the API chain', () => {
  let acme: string;
  let verifyToken: TokenVerifier;
  beforeAll(async () => {
    const keys = await createTestKeySet();
    verifyToken = testTokenVerifier(keys.jwks);
    acme = await signToken(validClaims({ scope: 'users:read', org_id: 'acme' }), { key: keys.es256 });
  });

  const handlerOn = (
    slots: DynamoDbConcurrencySlots,
    handle: () => Promise<ApiResult>,
    limits: ConcurrencyPolicy = policy,
  ) =>
    createApiHandler({
      requiredScope: 'users:read',
      verifyToken,
      concurrency: { slots, policy: limits },
      handle,
    }) as (event: ApiEvent, context: ApiContext) => Promise<ApiResult>;
  const userStatus = () => apiEvent({ method: 'POST', path: '/v1/user-status', headers: bearer(acme) });

  it('holds a database slot while a user-status request runs: the third concurrent one is 429 with the standard body and Retry-After: 1; the slots come back when they end', async () => {
    const { items } = mockSlots();
    let finish: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const handler = handlerOn(new DynamoDbConcurrencySlots(newDocuments(), TABLE), async () => {
      await running;
      return ok({ fine: true });
    });

    const first = handler(userStatus(), lambdaContext() as ApiContext);
    const second = handler(userStatus(), lambdaContext() as ApiContext);
    await vi.waitFor(() => expect(items.get(concurrencyPartition('acme'))?.databaseRequests.size).toBe(2));
    const refused = await handler(userStatus(), lambdaContext() as ApiContext);
    finish();

    expect(refused.statusCode).toBe(429);
    expect(JSON.parse(refused.body ?? '')).toEqual({
      code: 429,
      timestamp: expect.any(String),
      path: '/v1/user-status',
      method: 'POST',
      error: 'TOO_MANY_REQUESTS',
      message: 'the organization already has 2 requests running database statements; retry when one ends',
    });
    expect(refused.headers).toMatchObject({ 'retry-after': '1' });
    expect([(await first).statusCode, (await second).statusCode]).toEqual([200, 200]);
    expect(items.get(concurrencyPartition('acme'))?.requests.size).toBe(0);
    expect((await handler(userStatus(), lambdaContext() as ApiContext)).statusCode).toBe(200);
  });

  it('a route that runs no database statement holds a slot of every route’s limit only', async () => {
    const { items } = mockSlots();
    const handler = handlerOn(new DynamoDbConcurrencySlots(newDocuments(), TABLE), () =>
      Promise.resolve(ok({ during: [...(items.get(concurrencyPartition('acme'))?.requests ?? [])] })),
    );

    const answer = await handler(
      apiEvent({ method: 'GET', path: '/v1/webhooks', headers: bearer(acme) }),
      lambdaContext() as ApiContext,
    );

    expect(JSON.parse(answer.body ?? '').during).toHaveLength(1);
    expect(documents).toHaveReceivedNthCommandWith(UpdateCommand, 1, {
      UpdateExpression: 'ADD requests :slot SET #ttl = :ttl',
    });
    expect(documents).toHaveReceivedNthCommandWith(UpdateCommand, 2, { UpdateExpression: 'DELETE requests :slot' });
  });

  it('the slot expires at the invocation’s deadline (the function’s remaining time) and is given back when the request fails too', async () => {
    mockSlots();
    const handler = handlerOn(new DynamoDbConcurrencySlots(newDocuments(), TABLE), () =>
      Promise.reject(new Error('boom')),
    );
    const startedAt = Date.now();

    const answer = await handler(userStatus(), lambdaContext({ remainingTimeInMillis: 7_000 }) as ApiContext);

    expect(answer.statusCode).toBe(500);
    const slot = [
      ...(documents.commandCalls(UpdateCommand)[0]!.args[0].input.ExpressionAttributeValues![':slot'] as Set<string>),
    ][0]!;
    const expiresAt = Number(slot.split('#')[0]);
    expect(expiresAt).toBeGreaterThanOrEqual(startedAt + 7_000 - 50);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 7_000);
    expect(documents).toHaveReceivedNthCommandWith(UpdateCommand, 2, {
      UpdateExpression: 'DELETE requests :slot, databaseRequests :slot',
      ExpressionAttributeValues: { ':slot': new Set([slot]) },
    });
  });

  it('a release that fails is logged, never the request’s error: the answer stands', async () => {
    documents.reset();
    documents.on(UpdateCommand).resolvesOnce({}).rejects(new DependencyUnavailableError('database'));
    const handler = handlerOn(new DynamoDbConcurrencySlots(newDocuments(), TABLE), () =>
      Promise.resolve(ok({ fine: true })),
    );

    const answer = await handler(userStatus(), lambdaContext() as ApiContext);

    expect(answer.statusCode).toBe(200);
    expect(documents).toHaveReceivedCommandTimes(UpdateCommand, 2);
  });

  it('takes nothing for a request without a valid token (401 before the slot)', async () => {
    mockSlots();
    const handler = handlerOn(new DynamoDbConcurrencySlots(newDocuments(), TABLE), () =>
      Promise.resolve(ok({ fine: true })),
    );

    const answer = await handler(
      apiEvent({ method: 'POST', path: '/v1/user-status', headers: { authorization: 'Bearer nope' } }),
      lambdaContext() as ApiContext,
    );

    expect(answer.statusCode).toBe(401);
    expect(documents).toHaveReceivedCommandTimes(UpdateCommand, 0);
  });
});

describe('configuration', () => {
  it('the contract’s 20 on every route and 4 on the database routes unless set; bad values stop the cold start', () => {
    expect(concurrencyPolicyFrom({})).toEqual(DEFAULT_CONCURRENCY);
    expect(DEFAULT_CONCURRENCY).toEqual({ perOrganization: 20, databasePerOrganization: 4 });
    expect(
      concurrencyPolicyFrom({ CONCURRENCY_PER_ORGANIZATION: '8', DATABASE_CONCURRENCY_PER_ORGANIZATION: ' 2 ' }),
    ).toEqual({ perOrganization: 8, databasePerOrganization: 2 });
    for (const bad of ['0', '-1', '1.5', 'many', '1001']) {
      expect(() => concurrencyPolicyFrom({ DATABASE_CONCURRENCY_PER_ORGANIZATION: bad })).toThrow(
        /DATABASE_CONCURRENCY_PER_ORGANIZATION/,
      );
    }
  });

  it('slots live in the request budget’s table: a Lambda function without it does not start; a plain process builds no limiter', () => {
    expect(() => concurrencySettingsFrom({ AWS_LAMBDA_FUNCTION_NAME: 'fn' })).toThrow(ConfigurationError);
    expect(concurrencySettingsFrom({})).toBeUndefined();
    expect(concurrencySettingsFrom({ REQUEST_BUDGETS_TABLE_NAME: 'T' })).toEqual({
      tableName: 'T',
      policy: DEFAULT_CONCURRENCY,
    });
  });
});

/** A user-status handler whose slots go through the service's own DynamoDB client, and a token of `acme` for it. */
async function userStatusHandlerOnTheService(handle: () => Promise<ApiResult>) {
  const keys = await createTestKeySet();
  const handler = createApiHandler({
    requiredScope: 'users:read',
    verifyToken: testTokenVerifier(keys.jwks),
    concurrency: { slots: new DynamoDbConcurrencySlots(createDynamoDbClients().documents, TABLE), policy },
    handle,
  }) as (event: ApiEvent, context: ApiContext) => Promise<ApiResult>;
  const token = await signToken(validClaims({ scope: 'users:read', org_id: 'acme' }), { key: keys.es256 });
  return { handler, token };
}

describe('an unreachable slots table', () => {
  let closed: Server;
  let endpoint = '';
  beforeAll(async () => {
    documents.restore();
    // A port that was listening and is closed again: every connection is refused.
    closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const address = closed.address();
    endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    await new Promise((resolve) => closed.close(resolve));
  });
  afterAll(() => undefined);
  useAwsEndpoint(() => endpoint, ['DYNAMODB']);

  it('a take ends in DependencyUnavailableError, which the chain answers 503 with Retry-After, the use case never run', async () => {
    const slots = new DynamoDbConcurrencySlots(createDynamoDbClients().documents, TABLE);
    const failure = await runWithDeadline(3_000, () => slots.take(lease('acme'), policy, Date.now())).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(DependencyUnavailableError);

    const handle = vi.fn(() => Promise.resolve(ok({ fine: true })));
    const { handler, token } = await userStatusHandlerOnTheService(handle);

    const answer = await handler(
      apiEvent({ method: 'POST', path: '/v1/user-status', headers: bearer(token) }),
      lambdaContext({ remainingTimeInMillis: 5_000 }) as ApiContext,
    );

    expect(answer.statusCode).toBe(503);
    expect(Number(answer.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(handle).not.toHaveBeenCalled();
  });
});

describe('a release whose attempt hangs', () => {
  let server: HttpServer;
  let endpoint = '';
  beforeAll(async () => {
    documents.restore();
    // DynamoDB answers the take, then never answers again.
    let requests = 0;
    server = createHttpServer((_request, response) => {
      if (requests++ > 0) return;
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  useAwsEndpoint(() => endpoint, ['DYNAMODB']);

  it('holds the answer at most RELEASE_WAIT_MS, then leaves the slot to expire', async () => {
    const { handler, token } = await userStatusHandlerOnTheService(() => Promise.resolve(ok({ fine: true })));
    const startedAt = Date.now();

    const answer = await handler(
      apiEvent({ method: 'POST', path: '/v1/user-status', headers: bearer(token) }),
      lambdaContext({ remainingTimeInMillis: 10_000 }) as ApiContext,
    );

    expect(answer.statusCode).toBe(200);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(RELEASE_WAIT_MS - 20);
    expect(Date.now() - startedAt).toBeLessThan(RELEASE_WAIT_MS + 500);
  });
});
