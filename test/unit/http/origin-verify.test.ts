import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createLocalJWKSet, type JWTVerifyGetKey } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoDbRequestBudgetBuckets } from '#shared/adapters/dynamodb/limits/request-budget-buckets.ts';
import { ConfigurationError } from '#shared/config/load-config.ts';
import { ORIGIN_VERIFY_HEADER, originVerifySecretsFrom } from '#shared/config/origin-verify.ts';
import { LeasedRequestBudget } from '#shared/domain/limits/request-budget.ts';
import { createApiHandler, createPublicHandler } from '#shared/http/api-handler.ts';
import type { ApiEvent, ApiResult } from '#shared/http/api-types.ts';
import type { ApiContext } from '#shared/http/middlewares.ts';
import { ok } from '#shared/http/responses.ts';
import { logger } from '#shared/observability/logger.ts';
import { apiEvent, lambdaContext } from '#test/support/api-event.ts';
import { bearer, createTestKeySet, signToken, validClaims } from '#test/support/jwt.ts';
import { testTokenVerifier } from '#test/support/fixtures/token-verifier.ts';

const previousLogLevel = vi.hoisted(() => {
  const previous = process.env.POWERTOOLS_LOG_LEVEL;
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  return previous;
});

const CURRENT = 'c'.repeat(20) + 'urrent-origin-secret-0001';
const PREVIOUS = 'p'.repeat(20) + 'revious-origin-secret-002';
const PATH = '/v1/things';

const dynamoDb = mockClient(DynamoDBDocumentClient);
let jwks: JWTVerifyGetKey;
let keySet: ReturnType<typeof vi.fn<JWTVerifyGetKey>>;
let token: string;

beforeAll(async () => {
  const keys = await createTestKeySet();
  jwks = createLocalJWKSet(keys.jwks);
  token = await signToken(validClaims({ scope: 'onboarding:read' }), { key: keys.es256 });
});

beforeEach(() => {
  dynamoDb.reset();
  // A lease write that returns no state is spent as is (the budget's own rule for such answers).
  dynamoDb.on(UpdateCommand).resolves({});
  keySet = vi.fn<JWTVerifyGetKey>((header, input) => jwks(header, input));
});

afterAll(() => {
  vi.restoreAllMocks();
  if (previousLogLevel === undefined) delete process.env.POWERTOOLS_LOG_LEVEL;
  else process.env.POWERTOOLS_LOG_LEVEL = previousLogLevel;
});

/** A route as the real ones are built: a real token verifier on a spied key set, a real budget on a mocked DynamoDB. */
function route(originVerifySecrets?: readonly string[]) {
  const budget = new LeasedRequestBudget(
    new DynamoDbRequestBudgetBuckets(
      DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
      'RequestBudgets',
    ),
    { ratePerSecond: 50, burst: 100 },
  );
  const handler = createApiHandler({
    requiredScope: 'onboarding:read',
    verifyToken: testTokenVerifier(keySet),
    requestBudget: budget,
    ...(originVerifySecrets ? { originVerifySecrets } : {}),
    handle: async () => ok({ done: true }),
  });
  return (event: ApiEvent): Promise<ApiResult> => handler(event, lambdaContext() as ApiContext);
}

const get = (headers: Record<string, string> = {}) =>
  apiEvent({ method: 'GET', path: PATH, headers: { ...bearer(token), ...headers } });

const bodyOf = (response: ApiResult) => JSON.parse(response.body ?? 'null') as Record<string, unknown>;

describe('with the edge on (origin-verify values configured)', () => {
  it.each([
    { label: 'no origin-verify header', headers: {} as Record<string, string> },
    { label: 'an empty header', headers: { [ORIGIN_VERIFY_HEADER]: '' } },
    { label: 'a wrong value of the same length', headers: { [ORIGIN_VERIFY_HEADER]: CURRENT.replace(/.$/, 'X') } },
    { label: 'a prefix of the value', headers: { [ORIGIN_VERIFY_HEADER]: CURRENT.slice(0, -1) } },
  ])(
    'refuses a request with $label: 403 in the standard body, before any key-set fetch or DynamoDB call',
    async ({ headers }) => {
      const response = await route([CURRENT])(get(headers));

      expect(response.statusCode).toBe(403);
      expect(bodyOf(response)).toEqual({
        code: 403,
        timestamp: expect.any(String),
        path: PATH,
        method: 'GET',
        error: 'FORBIDDEN',
        message: 'requests must come through the API’s edge',
      });
      expect(response.headers['x-request-id']).toEqual(expect.any(String));
      expect(keySet).not.toHaveBeenCalled();
      expect(dynamoDb.calls()).toHaveLength(0);
    },
  );

  it.each([
    { label: 'the current value', value: CURRENT },
    { label: 'the previous value (mid-rotation)', value: PREVIOUS },
  ])('lets a request carrying $label through to the token check and the budget', async ({ value }) => {
    const response = await route([CURRENT, PREVIOUS])(get({ [ORIGIN_VERIFY_HEADER]: value }));

    expect(response.statusCode).toBe(200);
    expect(keySet).toHaveBeenCalledTimes(1);
    expect(dynamoDb.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('refuses the previous value once it is no longer configured', async () => {
    const response = await route([CURRENT])(get({ [ORIGIN_VERIFY_HEADER]: PREVIOUS }));

    expect(response.statusCode).toBe(403);
    expect(keySet).not.toHaveBeenCalled();
  });

  it('checks the origin before the token: no token and no header is 403, not 401', async () => {
    const response = await route([CURRENT])(apiEvent({ method: 'GET', path: PATH }));

    expect(response.statusCode).toBe(403);
  });

  it('never logs the presented or the configured value', async () => {
    const lines: string[] = [];
    for (const level of ['debug', 'info', 'warn', 'error'] as const) {
      vi.spyOn(logger, level).mockImplementation((...args: unknown[]) => {
        lines.push(JSON.stringify(args));
      });
    }
    const presented = 'x'.repeat(CURRENT.length);

    await route([CURRENT])(get({ [ORIGIN_VERIFY_HEADER]: presented }));

    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).not.toContain(presented);
      expect(line).not.toContain(CURRENT);
    }
  });

  it('guards the public routes too', async () => {
    const handler = createPublicHandler(() => ok({ public: true }), [CURRENT]);
    const call = (headers: Record<string, string>) =>
      handler(apiEvent({ method: 'GET', path: '/v1/openapi.json', headers }), lambdaContext() as ApiContext);

    expect((await call({})).statusCode).toBe(403);
    expect((await call({ [ORIGIN_VERIFY_HEADER]: CURRENT })).statusCode).toBe(200);
  });
});

describe('with the edge off (no origin-verify values)', () => {
  it('answers a request without the header as before', async () => {
    const response = await route()(get());

    expect(response.statusCode).toBe(200);
    expect(keySet).toHaveBeenCalledTimes(1);
    expect(dynamoDb.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('ignores a header it was not told to check', async () => {
    const response = await route()(get({ [ORIGIN_VERIFY_HEADER]: 'anything' }));

    expect(response.statusCode).toBe(200);
  });
});

describe('originVerifySecretsFrom', () => {
  it('is off when ORIGIN_VERIFY_SECRETS is unset or empty', () => {
    expect(originVerifySecretsFrom({})).toBeUndefined();
    expect(originVerifySecretsFrom({ ORIGIN_VERIFY_SECRETS: '' })).toBeUndefined();
  });

  it('accepts the current value, and the previous one when given', () => {
    expect(originVerifySecretsFrom({ ORIGIN_VERIFY_SECRETS: JSON.stringify({ current: CURRENT }) })).toEqual([CURRENT]);
    expect(
      originVerifySecretsFrom({ ORIGIN_VERIFY_SECRETS: JSON.stringify({ current: CURRENT, previous: '' }) }),
    ).toEqual([CURRENT]);
    expect(
      originVerifySecretsFrom({ ORIGIN_VERIFY_SECRETS: JSON.stringify({ current: CURRENT, previous: PREVIOUS }) }),
    ).toEqual([CURRENT, PREVIOUS]);
  });

  it.each([
    { label: 'not JSON', raw: CURRENT },
    { label: 'no current value', raw: JSON.stringify({ previous: PREVIOUS }) },
    { label: 'a short current value', raw: JSON.stringify({ current: 'short' }) },
    { label: 'a short previous value', raw: JSON.stringify({ current: CURRENT, previous: 'short' }) },
  ])('stops the cold start on $label, naming the variable but not its content', ({ raw }) => {
    const load = () => originVerifySecretsFrom({ ORIGIN_VERIFY_SECRETS: raw });

    expect(load).toThrow(ConfigurationError);
    expect(load).toThrow(/ORIGIN_VERIFY_SECRETS/);
    try {
      load();
    } catch (error) {
      expect((error as Error).message).not.toContain(CURRENT);
      expect((error as Error).message).not.toContain('short');
    }
  });
});
