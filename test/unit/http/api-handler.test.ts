import * as v from 'valibot';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as routeNotFound } from '#functions/route-not-found.ts';
import { RateLimitedError } from '#shared/domain/errors.ts';
import { createApiHandler, createPublicHandler } from '#shared/http/api-handler.ts';
import type { ApiEvent, ApiResult } from '#shared/http/api-types.ts';
import type { TokenVerifier } from '#shared/http/auth.ts';
import { MAX_BODY_BYTES, type ApiContext, type ApiMiddleware } from '#shared/http/middlewares.ts';
import { ok } from '#shared/http/responses.ts';
import { logger } from '#shared/observability/logger.ts';
import { apiEvent, lambdaContext, type ApiEventOptions } from '#test/support/api-event.ts';
import {
  bearer,
  createTestKeySet,
  signToken,
  TEST_ORG_ID,
  validClaims,
  type TestSigningKey,
} from '#test/support/jwt.ts';
import { testTokenVerifier } from '#test/support/fixtures/token-verifier.ts';

// Quiet logs: the logger reads its level once, when shared/observability/logger.ts is first imported.
const previousLogLevel = vi.hoisted(() => {
  const previous = process.env.POWERTOOLS_LOG_LEVEL;
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  return previous;
});

const PATH = '/v1/things';
const bodySchema = v.object({
  name: v.pipe(v.string(), v.trim(), v.minLength(1)),
  count: v.pipe(v.number(), v.integer()),
});

let key: TestSigningKey;
let verifyToken: TokenVerifier;
let writerToken: string;
let readerToken: string;

type Handler = (event: ApiEvent, context: ApiContext) => Promise<ApiResult>;

const invoke = (handler: Handler, event: ApiEvent): Promise<ApiResult> => handler(event, lambdaContext() as ApiContext);

/** A route like the real ones: scope `onboarding:write`, a small body schema, a use case that echoes. */
function echoHandler(overrides: { beforeBody?: ApiMiddleware[]; handle?: () => Promise<ApiResult> } = {}): Handler {
  return createApiHandler({
    requiredScope: 'onboarding:write',
    verifyToken,
    bodySchema,
    ...(overrides.beforeBody ? { beforeBody: overrides.beforeBody } : {}),
    handle:
      overrides.handle ??
      (async ({ body, principal, requestId }) => ok({ body, orgId: principal.tenantKey, requestId })),
  });
}

const post = (options: Omit<ApiEventOptions, 'method' | 'path'> = {}): ApiEvent =>
  apiEvent({
    ...options,
    method: 'POST',
    path: PATH,
    headers: { ...bearer(writerToken), 'content-type': 'application/json', ...options.headers },
  });

const bodyOf = (response: ApiResult): Record<string, unknown> =>
  JSON.parse(response.body ?? 'null') as Record<string, unknown>;

/** A JSON body of exactly `bytes` bytes that the schema accepts. */
function validJsonOfSize(bytes: number): string {
  const shell = JSON.stringify({ name: '', count: 1 });
  return JSON.stringify({ name: 'n'.repeat(bytes - shell.length), count: 1 });
}

beforeAll(async () => {
  const keys = await createTestKeySet();
  key = keys.es256;
  verifyToken = testTokenVerifier(keys.jwks);
  writerToken = await signToken(validClaims({ scope: 'onboarding:write' }), { key });
  readerToken = await signToken(validClaims({ scope: 'onboarding:read reports:write' }), { key });
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(() => {
  if (previousLogLevel === undefined) delete process.env.POWERTOOLS_LOG_LEVEL;
  else process.env.POWERTOOLS_LOG_LEVEL = previousLogLevel;
});

describe('createApiHandler', () => {
  it('runs the use case with the validated body, the principal and the request id', async () => {
    // Arrange
    const event = post({ body: { name: '  Widget ', count: 3, extra: true }, requestId: 'req-abc' });

    // Act
    const response = await invoke(echoHandler(), event);

    // Assert
    expect(response.statusCode).toBe(200);
    expect(bodyOf(response)).toEqual({ body: { name: 'Widget', count: 3 }, orgId: TEST_ORG_ID, requestId: 'req-abc' });
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it.each([
    { label: '200', event: () => post({ body: { name: 'a', count: 1 } }), status: 200 },
    { label: '400', event: () => post({ body: { name: 'a' } }), status: 400 },
    { label: '401', event: () => post({ headers: { authorization: '' }, body: { name: 'a', count: 1 } }), status: 401 },
    { label: '403', event: () => post({ headers: bearer(readerToken), body: { name: 'a', count: 1 } }), status: 403 },
    { label: '413', event: () => post({ body: 'x'.repeat(MAX_BODY_BYTES + 1) }), status: 413 },
  ])('puts x-request-id = the API Gateway request id on a $label response', async ({ event: makeEvent, status }) => {
    const event = makeEvent();

    const response = await invoke(echoHandler(), event);

    expect(response.statusCode).toBe(status);
    expect(response.headers['x-request-id']).toBe(event.requestContext.requestId);
  });

  it('puts x-request-id on a 500 caused by the use case', async () => {
    const event = post({ body: { name: 'a', count: 1 }, requestId: 'req-500' });

    const response = await invoke(echoHandler({ handle: () => Promise.reject(new Error('boom')) }), event);

    expect(response.statusCode).toBe(500);
    expect(response.headers['x-request-id']).toBe('req-500');
  });

  it('invents a UUID request id when the event carries none (local runs)', async () => {
    const event = post({ body: { name: 'a', count: 1 }, requestId: '' });

    const response = await invoke(echoHandler(), event);

    expect(response.headers['x-request-id']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(bodyOf(response).requestId).toBe(response.headers['x-request-id']);
  });

  it('answers 401 with the standard body, path and method when there is no Authorization header', async () => {
    const event = apiEvent({ method: 'POST', path: PATH, body: { name: 'a', count: 1 } });
    const handle = vi.fn(async () => ok({}));

    const response = await invoke(echoHandler({ handle }), event);

    expect(response.statusCode).toBe(401);
    expect(bodyOf(response)).toEqual({
      code: 401,
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      path: PATH,
      method: 'POST',
      error: 'UNAUTHORIZED',
      message: expect.any(String),
    });
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(handle).not.toHaveBeenCalled();
  });

  it('answers 401 for a token that fails verification', async () => {
    const expired = await signToken(validClaims({ exp: Math.floor(Date.now() / 1000) - 120 }), { key });

    const response = await invoke(echoHandler(), post({ headers: bearer(expired), body: { name: 'a', count: 1 } }));

    expect(response.statusCode).toBe(401);
  });

  it('answers 403 FORBIDDEN to a valid token that lacks the route scope', async () => {
    const handle = vi.fn(async () => ok({}));

    const response = await invoke(
      echoHandler({ handle }),
      post({ headers: bearer(readerToken), body: { name: 'a', count: 1 } }),
    );

    expect(response.statusCode).toBe(403);
    expect(bodyOf(response)).toMatchObject({ code: 403, error: 'FORBIDDEN', path: PATH, method: 'POST' });
    expect(handle).not.toHaveBeenCalled();
  });

  it('answers 403 to a token whose role claim names no role, whatever scopes it carries', async () => {
    const handle = vi.fn(async () => ok({}));
    const roleless = await signToken(validClaims({ scope: 'onboarding:write', role: 'owner' }), { key });

    const response = await invoke(
      echoHandler({ handle }),
      post({ headers: bearer(roleless), body: { name: 'a', count: 1 } }),
    );

    expect(response.statusCode).toBe(403);
    expect(bodyOf(response)).toMatchObject({ code: 403, error: 'FORBIDDEN' });
    expect(handle).not.toHaveBeenCalled();
  });

  it('answers 400 isJson to a malformed JSON body', async () => {
    const response = await invoke(echoHandler(), post({ body: '{"name": "a", "count": ' }));

    expect(response.statusCode).toBe(400);
    expect(bodyOf(response)).toEqual({
      code: 400,
      errors: [expect.objectContaining({ field: 'body', code: 'isJson' })],
    });
  });

  it.each([
    ['an array', '[{"name":"a","count":1}]'],
    ['a string', '"hello"'],
    ['null', 'null'],
    ['a number', '42'],
  ])('answers 400 isJson to a JSON body that is %s, not an object', async (_, body) => {
    const response = await invoke(echoHandler(), post({ body }));

    expect(response.statusCode).toBe(400);
    expect(bodyOf(response)).toEqual({
      code: 400,
      errors: [expect.objectContaining({ field: 'body', code: 'isJson' })],
    });
  });

  it('accepts a JSON body sent without a content-type header', async () => {
    const event = post({ body: { name: 'a', count: 1 } });
    delete event.headers['content-type'];

    const response = await invoke(echoHandler(), event);

    expect(response.statusCode).toBe(200);
  });

  it.each([['application/json; charset=utf-8'], ['Application/JSON'], ['application/merge-patch+json']])(
    'reads a body sent as %s',
    async (contentType) => {
      const response = await invoke(
        echoHandler(),
        post({ body: { name: 'a', count: 1 }, headers: { 'content-type': contentType } }),
      );

      expect(response.statusCode).toBe(200);
    },
  );

  it.each([
    ['text/plain;charset=UTF-8', JSON.stringify({ name: 'a', count: 1 })],
    ['application/x-www-form-urlencoded', 'name=a&count=1'],
    ['application/xml', '<thing/>'],
    ['multipart/form-data; boundary=x', '--x--'],
    ['application/jsonp', JSON.stringify({ name: 'a', count: 1 })],
  ])('answers 415 UNSUPPORTED_MEDIA_TYPE to a body sent as %s, before reading it', async (contentType, body) => {
    const handle = vi.fn(async () => ok({}));

    const response = await invoke(echoHandler({ handle }), post({ body, headers: { 'content-type': contentType } }));

    expect(response.statusCode).toBe(415);
    expect(bodyOf(response)).toMatchObject({ code: 415, error: 'UNSUPPORTED_MEDIA_TYPE', path: PATH, method: 'POST' });
    expect(handle).not.toHaveBeenCalled();
  });

  it('takes a request of another content-type without a body as no body', async () => {
    const response = await invoke(echoHandler(), post({ headers: { 'content-type': 'text/plain' } }));

    expect(response.statusCode).toBe(400);
    expect(bodyOf(response).errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'name', code: 'isNotEmpty' })]),
    );
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
  ])('reports each required member when the body is %s (not isJson)', async (_, body) => {
    const response = await invoke(echoHandler(), post({ body }));

    expect(response.statusCode).toBe(400);
    expect(bodyOf(response)).toEqual({
      code: 400,
      errors: [
        { field: 'name', code: 'isNotEmpty', hint: 'name is required' },
        { field: 'count', code: 'isNotEmpty', hint: 'count is required' },
      ],
    });
  });

  it('answers 413 PAYLOAD_TOO_LARGE to a body of 64 KiB + 1 byte and accepts exactly 64 KiB', async () => {
    const handle = vi.fn(async () => ok({}));
    const handler = echoHandler({ handle });

    const tooLarge = await invoke(handler, post({ body: validJsonOfSize(MAX_BODY_BYTES + 1) }));
    const atLimit = await invoke(handler, post({ body: validJsonOfSize(MAX_BODY_BYTES) }));

    expect(MAX_BODY_BYTES).toBe(65_536);
    expect(tooLarge.statusCode).toBe(413);
    expect(bodyOf(tooLarge)).toMatchObject({ code: 413, error: 'PAYLOAD_TOO_LARGE', path: PATH, method: 'POST' });
    expect(atLimit.statusCode).toBe(200);
    expect(handle).toHaveBeenCalledTimes(1);
  });

  it('counts the body limit in bytes, not characters', async () => {
    const body = JSON.stringify({ name: 'é'.repeat(40_000), count: 1 }); // ~40k characters, ~80k bytes

    const response = await invoke(echoHandler(), post({ body }));

    expect(response.statusCode).toBe(413);
  });

  it('parses a base64-encoded body', async () => {
    const body = Buffer.from(JSON.stringify({ name: 'Zoë Ångström', count: 7 }), 'utf8').toString('base64');

    const response = await invoke(echoHandler(), post({ body, isBase64Encoded: true }));

    expect(response.statusCode).toBe(200);
    expect(bodyOf(response).body).toEqual({ name: 'Zoë Ångström', count: 7 });
  });

  it('applies the body limit to the decoded size of a base64-encoded body', async () => {
    const encode = (json: string) => Buffer.from(json, 'utf8').toString('base64');

    const atLimit = await invoke(
      echoHandler(),
      post({ body: encode(validJsonOfSize(MAX_BODY_BYTES)), isBase64Encoded: true }),
    );
    const overLimit = await invoke(
      echoHandler(),
      post({ body: encode(validJsonOfSize(MAX_BODY_BYTES + 1)), isBase64Encoded: true }),
    );

    expect(atLimit.statusCode).toBe(200);
    expect(overLimit.statusCode).toBe(413);
  });

  it('answers 500 with message "internal error" and no internals when the use case throws', async () => {
    const failure = new Error('ConditionalCheckFailed on arn:aws:dynamodb:eu-west-1:123456789012:table/Secret');
    const logError = vi.spyOn(logger, 'error');

    const response = await invoke(
      echoHandler({ handle: () => Promise.reject(failure) }),
      post({ body: { name: 'a', count: 1 } }),
    );

    expect(response.statusCode).toBe(500);
    expect(bodyOf(response)).toEqual({
      code: 500,
      timestamp: expect.any(String),
      path: PATH,
      method: 'POST',
      error: 'INTERNAL_SERVER_ERROR',
      message: 'internal error',
    });
    expect(response.body).not.toMatch(/arn:aws|Secret|ConditionalCheckFailed|at .*\.ts/);
    expect(logError).toHaveBeenCalledWith('request failed', expect.objectContaining({ error: failure, status: 500 }));
  });

  describe('beforeBody middlewares', () => {
    const rateLimited = (): ApiMiddleware => ({
      before: () => {
        throw new RateLimitedError(42, { 'ratelimit-limit': '10', 'ratelimit-remaining': '0' });
      },
    });

    it('run before the body is read: a rate-limited malformed request is 429, not 400', async () => {
      const response = await invoke(echoHandler({ beforeBody: [rateLimited()] }), post({ body: '{not json' }));

      expect(response.statusCode).toBe(429);
      expect(response.headers).toMatchObject({
        'retry-after': '42',
        'ratelimit-limit': '10',
        'ratelimit-remaining': '0',
      });
      expect(bodyOf(response)).toMatchObject({ code: 429, error: 'TOO_MANY_REQUESTS' });
    });

    it('run before the body size check: a rate-limited oversized request is 429, not 413', async () => {
      const response = await invoke(
        echoHandler({ beforeBody: [rateLimited()] }),
        post({ body: validJsonOfSize(MAX_BODY_BYTES + 10) }),
      );

      expect(response.statusCode).toBe(429);
    });

    it('run after authentication: an unauthenticated request is still 401', async () => {
      const event = apiEvent({ method: 'POST', path: PATH, body: '{not json' });

      const response = await invoke(echoHandler({ beforeBody: [rateLimited()] }), event);

      expect(response.statusCode).toBe(401);
    });

    it('run after the scope check: a token without the scope is 403, not 429', async () => {
      const response = await invoke(
        echoHandler({ beforeBody: [rateLimited()] }),
        post({ headers: bearer(readerToken), body: '{}' }),
      );

      expect(response.statusCode).toBe(403);
    });

    it('see the authenticated principal on the context', async () => {
      const seen: string[] = [];
      const recordOrg: ApiMiddleware = {
        before: (request) => {
          seen.push(request.context.principal.tenantKey);
        },
      };

      const response = await invoke(echoHandler({ beforeBody: [recordOrg] }), post({ body: { name: 'a', count: 1 } }));

      expect(response.statusCode).toBe(200);
      expect(seen).toEqual([TEST_ORG_ID]);
    });
  });

  it('never reads the body of a route without a body schema', async () => {
    const handler = createApiHandler({
      requiredScope: 'onboarding:read',
      verifyToken,
      handle: async ({ body, event }) => ok({ body: body ?? null, raw: event.body ?? null }),
    });
    const event = apiEvent({ method: 'GET', path: PATH, headers: bearer(readerToken), body: '{not json' });

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(bodyOf(response)).toEqual({ body: null, raw: '{not json' });
  });
});

describe('createPublicHandler', () => {
  it('needs no token and still adds x-request-id and maps errors', async () => {
    const handler = createPublicHandler(() => Promise.reject(new Error('secret detail')));
    const event = apiEvent({ method: 'GET', path: '/health', requestId: 'req-public' });

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(500);
    expect(response.headers['x-request-id']).toBe('req-public');
    expect(response.body).not.toContain('secret detail');
  });
});

describe('functions/route-not-found', () => {
  const fallback = (method: string, path: string) =>
    apiEvent({ method, path, routeKey: '$default', requestId: 'req-404' });

  it('answers an unknown path with 404 NOT_FOUND and the standard body', async () => {
    const response = await invoke(routeNotFound, fallback('GET', '/v1/nothing-here'));

    expect(response.statusCode).toBe(404);
    expect(bodyOf(response)).toEqual({
      code: 404,
      timestamp: expect.any(String),
      path: '/v1/nothing-here',
      method: 'GET',
      error: 'NOT_FOUND',
      message: expect.any(String),
    });
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['x-request-id']).toBe('req-404');
  });

  it('answers a known path with the wrong method with 405 and allow: POST', async () => {
    const response = await invoke(routeNotFound, fallback('GET', '/v1/onboarding-token'));

    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(bodyOf(response)).toMatchObject({
      code: 405,
      error: 'METHOD_NOT_ALLOWED',
      path: '/v1/onboarding-token',
      method: 'GET',
    });
  });

  it('answers the other direction too: POST on the list route is 405 with allow: GET', async () => {
    const response = await invoke(routeNotFound, fallback('POST', '/v1/onboarding-tokens'));

    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET');
  });

  it('treats a trailing slash as another path, as API Gateway routes do (404, not 405)', async () => {
    const response = await invoke(routeNotFound, fallback('DELETE', '/v1/onboarding-token/'));

    expect(response.statusCode).toBe(404);
  });

  it('does not match a longer path that merely starts with a known one', async () => {
    const response = await invoke(routeNotFound, fallback('GET', '/v1/onboarding-token/extra'));

    expect(response.statusCode).toBe(404);
  });
});
