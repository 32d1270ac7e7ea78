import { IdempotencyAlreadyInProgressError, IdempotencyValidationError } from '@aws-lambda-powertools/idempotency';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConflictError,
  DependencyUnavailableError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  EmailQuotaExceededError,
  RateLimitedError,
  UnprocessableError,
} from '#shared/domain/errors.ts';
import { mapErrorToResponse } from '#shared/http/error-mapper.ts';
import {
  MethodNotAllowedError,
  PayloadTooLargeError,
  RouteNotFoundError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from '#shared/http/http-errors.ts';
import { apiEvent } from '#test/support/api-event.ts';

const NOW = new Date('2025-03-04T05:06:07.089Z');
const event = apiEvent({ method: 'POST', path: '/v1/document/api' });

const bodyOf = (response: { body?: string | undefined }): Record<string, unknown> =>
  JSON.parse(response.body ?? 'null') as Record<string, unknown>;

/** The error the real JSON body parser throws for a malformed body. */
async function jsonBodyParserError(body: string): Promise<unknown> {
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]);
  try {
    await parser.before?.({
      event: { headers: {}, body },
      context: {},
      response: undefined,
      error: undefined,
      internal: {},
    } as never);
  } catch (error) {
    return error;
  }
  throw new Error('expected the JSON body parser to reject the body');
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});

afterEach(() => {
  vi.useRealTimers();
});

describe('mapErrorToResponse: standard error body', () => {
  it.each([
    { error: new UnauthorizedError('invalid bearer token'), status: 401, name: 'UNAUTHORIZED' },
    { error: new ForbiddenError('token lacks the reports:write scope'), status: 403, name: 'FORBIDDEN' },
    { error: new NotFoundError('user not found'), status: 404, name: 'NOT_FOUND' },
    { error: new RouteNotFoundError('no route for GET /nope'), status: 404, name: 'NOT_FOUND' },
    { error: new MethodNotAllowedError(['POST']), status: 405, name: 'METHOD_NOT_ALLOWED' },
    { error: new ConflictError('an open job exists'), status: 409, name: 'CONFLICT' },
    { error: new PayloadTooLargeError('request body exceeds 65536 bytes'), status: 413, name: 'PAYLOAD_TOO_LARGE' },
    {
      error: new UnsupportedMediaTypeError('the request body must be JSON'),
      status: 415,
      name: 'UNSUPPORTED_MEDIA_TYPE',
    },
    { error: new UnprocessableError('report is not ready'), status: 422, name: 'UNPROCESSABLE_ENTITY' },
    { error: new RateLimitedError(30), status: 429, name: 'TOO_MANY_REQUESTS' },
  ])('maps $error.name to $status $name with the standard body', ({ error, status, name }) => {
    // Act
    const { response, unexpected } = mapErrorToResponse(error, event);

    // Assert
    expect(response.statusCode).toBe(status);
    expect(bodyOf(response)).toEqual({
      code: status,
      timestamp: NOW.toISOString(),
      path: '/v1/document/api',
      method: 'POST',
      error: name,
      message: error.message,
    });
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(unexpected).toBe(false);
  });

  it('adds ConflictError details to the standard body', () => {
    const { response } = mapErrorToResponse(
      new ConflictError('an open job exists for this user', { jobId: 'job-1' }),
      event,
    );

    expect(response.statusCode).toBe(409);
    expect(bodyOf(response)).toMatchObject({
      code: 409,
      error: 'CONFLICT',
      message: 'an open job exists for this user',
      jobId: 'job-1',
    });
    expect(Object.keys(bodyOf(response))).toEqual(['code', 'timestamp', 'path', 'method', 'error', 'message', 'jobId']);
  });

  it('adds UnprocessableError details to the standard body', () => {
    const { response } = mapErrorToResponse(
      new UnprocessableError('report failed', { errorCode: 'RENDER_FAILED' }),
      event,
    );

    expect(bodyOf(response)).toMatchObject({ code: 422, error: 'UNPROCESSABLE_ENTITY', errorCode: 'RENDER_FAILED' });
  });

  it('never lets details replace a standard member', () => {
    const details = {
      code: '200',
      error: 'OK',
      message: 'fine',
      path: '/elsewhere',
      method: 'GET',
      timestamp: 'never',
      jobId: 'j',
    };

    const { response } = mapErrorToResponse(new ConflictError('an open job exists', details), event);

    expect(bodyOf(response)).toEqual({
      code: 409,
      timestamp: NOW.toISOString(),
      path: '/v1/document/api',
      method: 'POST',
      error: 'CONFLICT',
      message: 'an open job exists',
      jobId: 'j',
    });
  });

  it('answers 429 with retry-after and the rate-limit headers', () => {
    const headers = { 'ratelimit-limit': '10', 'ratelimit-remaining': '0', 'ratelimit-reset': '120' };

    const { response } = mapErrorToResponse(new RateLimitedError(120, headers), event);

    expect(response.statusCode).toBe(429);
    expect(response.headers).toMatchObject({ 'retry-after': '120', ...headers });
  });

  it('answers an exceeded e-mail quota 429 with the standard body, retry-after and that quota’s headers', () => {
    const decision = { allowed: false, limit: 5, remaining: 0, resetSeconds: 2400, retryAfterSeconds: 2400 };

    const { response, unexpected } = mapErrorToResponse(new EmailQuotaExceededError(decision, 'recipient'), event);

    expect(response.statusCode).toBe(429);
    expect(unexpected).toBe(false);
    expect(response.headers).toMatchObject({
      'retry-after': '2400',
      'ratelimit-limit': '5',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '2400',
    });
    expect(bodyOf(response)).toMatchObject({
      code: 429,
      error: 'TOO_MANY_REQUESTS',
      message: 'at most 5 onboarding e-mails an hour to one address',
    });
  });

  it('answers 405 with an allow header listing the allowed methods', () => {
    const { response } = mapErrorToResponse(new MethodNotAllowedError(['GET', 'POST']), event);

    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, POST');
  });

  it('answers 401 with a Bearer www-authenticate challenge', () => {
    const { response } = mapErrorToResponse(new UnauthorizedError('missing bearer token'), event);

    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it('maps an Idempotency-Key reused with another body to 422', () => {
    const { response } = mapErrorToResponse(
      new IdempotencyValidationError('Payload does not match stored record'),
      event,
    );

    expect(response.statusCode).toBe(422);
    expect(bodyOf(response)).toMatchObject({
      error: 'UNPROCESSABLE_ENTITY',
      message: expect.stringContaining('Idempotency-Key'),
    });
  });

  it('maps a request whose Idempotency-Key is still in progress to 409', () => {
    const { response } = mapErrorToResponse(new IdempotencyAlreadyInProgressError('in progress'), event);

    expect(response.statusCode).toBe(409);
    expect(bodyOf(response)).toMatchObject({ error: 'CONFLICT' });
  });
});

describe('mapErrorToResponse: validation body', () => {
  it('answers 400 with {code: 400, errors} and no standard members', () => {
    const problems = [
      { field: 'email', code: 'isEmail', hint: 'email must be a valid e-mail address' },
      { field: 'firstName', code: 'isNotEmpty', hint: 'first_name is required' },
    ];

    const { response, unexpected } = mapErrorToResponse(new InvalidInputError(problems), event);

    expect(response.statusCode).toBe(400);
    expect(bodyOf(response)).toEqual({ code: 400, errors: problems });
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(unexpected).toBe(false);
  });

  it('answers 400 isJson for the JSON body parser error on a malformed body', async () => {
    const parserError = await jsonBodyParserError('{"email": ');

    const { response } = mapErrorToResponse(parserError, event);

    expect(response.statusCode).toBe(400);
    expect(bodyOf(response)).toEqual({
      code: 400,
      errors: [{ field: 'body', code: 'isJson', hint: expect.any(String) }],
    });
    expect(response.body).not.toContain('Unexpected end of JSON');
  });
});

describe('mapErrorToResponse: unexpected failures', () => {
  it('answers 500 INTERNAL_SERVER_ERROR without the original message or stack', () => {
    const error = new TypeError(
      'Cannot read properties of undefined (table arn:aws:dynamodb:eu-west-1:123456789012:table/Jobs)',
    );

    const { response, unexpected } = mapErrorToResponse(error, event);

    expect(response.statusCode).toBe(500);
    expect(bodyOf(response)).toEqual({
      code: 500,
      timestamp: NOW.toISOString(),
      path: '/v1/document/api',
      method: 'POST',
      error: 'INTERNAL_SERVER_ERROR',
      message: 'internal error',
    });
    expect(response.body).not.toContain('arn:aws');
    expect(response.body).not.toContain('TypeError');
    expect(response.body).not.toContain('error-mapper.test');
    expect(unexpected).toBe(true);
  });

  it('answers 500 for a thrown non-Error value', () => {
    const { response, unexpected } = mapErrorToResponse('boom', event);

    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('boom');
    expect(unexpected).toBe(true);
  });

  // Adapters (shared/adapters/aws-clients.ts) wrap the SDK's outage errors; the mapper sees the domain error.
  it.each([
    {
      label: 'an SDK throttling error',
      error: wrapped(
        Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
          name: 'ThrottlingException',
          $fault: 'client',
          $retryable: { throttling: true },
          $metadata: { httpStatusCode: 400 },
        }),
      ),
    },
    {
      label: 'a provisioned throughput error by name alone',
      error: wrapped(
        Object.assign(new Error('The level of configured provisioned throughput for the table was exceeded.'), {
          name: 'ProvisionedThroughputExceededException',
        }),
      ),
    },
    {
      label: 'an SDK server fault',
      error: wrapped(
        Object.assign(new Error('Internal server error on arn:aws:s3:::bucket'), {
          name: 'InternalError',
          $fault: 'server',
        }),
      ),
    },
    {
      label: 'a refused connection',
      error: wrapped(
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), {
          code: 'ECONNREFUSED',
          syscall: 'connect',
        }),
      ),
    },
    { label: 'a DependencyUnavailableError', error: new DependencyUnavailableError('DynamoDB') },
  ])('answers 503 with retry-after for $label, naming no internals', ({ error }) => {
    const { response, unexpected } = mapErrorToResponse(error, event);

    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(bodyOf(response)).toMatchObject({
      code: 503,
      error: 'SERVICE_UNAVAILABLE',
      path: '/v1/document/api',
      method: 'POST',
    });
    const cause = (error.cause ?? error) as Error;
    expect(response.body).not.toContain(cause.message);
    expect(response.body).not.toContain(cause.name);
    expect(response.body).not.toContain('127.0.0.1');
    expect(unexpected).toBe(true);
  });

  it('does not treat an ordinary SDK client fault as a dependency outage', () => {
    const error = Object.assign(new Error('Requested resource not found'), {
      name: 'ResourceNotFoundException',
      $fault: 'client',
    });

    const { response } = mapErrorToResponse(error, event);

    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('ResourceNotFoundException');
  });
});

describe('dependency failures hidden inside other errors', () => {
  const event = { rawPath: '/v1/onboarding-token', requestContext: { http: { method: 'POST' } } } as never;

  it('answers 503 for an unavailable table wrapped by another library (e.g. Powertools idempotency)', () => {
    const throttled = wrapped(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    const wrappedByLibrary = new Error('Failed to update record state', { cause: throttled });

    expect(mapErrorToResponse(wrappedByLibrary, event).response.statusCode).toBe(503);
  });

  it('answers 500 for a raw SDK outage error: only adapters decide what an outage is', () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $fault: 'client' });

    expect(mapErrorToResponse(throttled, event).response.statusCode).toBe(500);
  });

  it('still answers 500 for a transaction cancelled by a failed condition nobody handled', () => {
    const cancelled = Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
    });

    expect(mapErrorToResponse(cancelled, event).response.statusCode).toBe(500);
  });
});

function wrapped(sdkError: Error): DependencyUnavailableError {
  return new DependencyUnavailableError('database', { cause: sdkError });
}
