import { describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  ApiError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  OnboardingApiClient,
  RateLimitedError,
  ServerError,
  UnauthorizedError,
  UnprocessableEntityError,
  ValidationError,
  type Fetch,
  type UserStatusPage,
} from '#client/index.ts';
import { retryAfterSeconds } from '#client/http-transport.ts';

const BASE_URL = 'http://api.test/';

interface Recorded {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A fetch that records requests and answers from a function of the request. */
function fakeFetch(answer: (request: Recorded) => Response | Promise<Response>) {
  const requests: Recorded[] = [];
  const fetch: Fetch = async (input, init) => {
    const request: Recorded = {
      url: String(input),
      method: init?.method ?? 'GET',
      headers: Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>)),
      body: init?.body === undefined ? undefined : JSON.parse(init.body as string),
    };
    requests.push(request);
    return answer(request);
  };
  return { fetch, requests };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req-42', ...headers },
  });

const standard = (code: number, error: string, extra: Record<string, unknown> = {}) => ({
  code,
  timestamp: '2026-01-01T00:00:00.000Z',
  path: '/v1/document/api',
  method: 'POST',
  error,
  message: 'something',
  ...extra,
});

describe('requests', () => {
  it('sends the bearer token, JSON body and Idempotency-Key, and returns the typed body', async () => {
    const { fetch, requests } = fakeFetch(() =>
      json(201, { onboarding_token: 'x'.repeat(32), expires_at: '2026-01-15T00:00:00.000Z' }),
    );
    const client = new OnboardingApiClient({ baseUrl: BASE_URL, token: 'jwt-1', fetch });

    const token = await client.createOnboardingToken(
      { email: 'a@example.com', first_name: 'A', last_name: 'B' },
      { idempotencyKey: 'k-1' },
    );

    expect(token.onboarding_token).toHaveLength(32);
    expect(requests).toEqual([
      {
        url: 'http://api.test/v1/onboarding-token',
        method: 'POST',
        headers: {
          accept: 'application/json',
          authorization: 'Bearer jwt-1',
          'content-type': 'application/json',
          'idempotency-key': 'k-1',
        },
        body: { email: 'a@example.com', first_name: 'A', last_name: 'B' },
      },
    ]);
  });

  it('asks a token function for the current token on every request, and sends none for the public document', async () => {
    const { fetch, requests } = fakeFetch(() => json(200, { results: [], nextCursor: null }));
    let issued = 0;
    const client = new OnboardingApiClient({ baseUrl: BASE_URL, token: async () => `jwt-${++issued}`, fetch });

    await client.listOnboardingTokens({ limit: 10, cursor: 'abc' });
    await client.listOnboardingTokens();
    await client.getOpenApiDocument();

    expect(requests.map((r) => [r.url, r.headers.authorization])).toEqual([
      ['http://api.test/v1/onboarding-tokens?limit=10&cursor=abc', 'Bearer jwt-1'],
      ['http://api.test/v1/onboarding-tokens', 'Bearer jwt-2'],
      ['http://api.test/v1/openapi.json', undefined],
    ]);
  });

  it('reads Location, RateLimit-* and Idempotent-Replayed of a created report job', async () => {
    const body = { jobId: 'j-1', status: 'PENDING', userId: 'u-1', createdAt: 'c', updatedAt: 'c' };
    const { fetch } = fakeFetch(() =>
      json(202, body, {
        location: '/v1/document/api/j-1',
        'ratelimit-limit': '10',
        'ratelimit-remaining': '7',
        'ratelimit-reset': '420',
        'idempotent-replayed': 'true',
      }),
    );
    const client = new OnboardingApiClient({ baseUrl: BASE_URL, token: 't', fetch });

    await expect(client.createReportJob({ userId: 'u-1' })).resolves.toEqual({
      job: body,
      location: '/v1/document/api/j-1',
      rateLimit: { limit: 10, remaining: 7, resetSeconds: 420 },
      replayed: true,
      requestId: 'req-42',
    });
  });

  it('encodes the job id into the path', async () => {
    const { fetch, requests } = fakeFetch(() => json(404, standard(404, 'NOT_FOUND')));
    const client = new OnboardingApiClient({ baseUrl: BASE_URL, token: 't', fetch });
    await expect(client.getReportDownloadUrl('a/b')).rejects.toBeInstanceOf(NotFoundError);
    expect(requests[0]!.url).toBe('http://api.test/v1/document/api/a%2Fb/url');
  });

  it('erases a user with DELETE /v1/users/{id}, the id encoded, and resolves on 204', async () => {
    const { fetch, requests } = fakeFetch(() => new Response(null, { status: 204, headers: { 'x-request-id': 'r' } }));
    const client = new OnboardingApiClient({ baseUrl: BASE_URL, token: 't', fetch });

    await expect(client.eraseUser('user/1 é')).resolves.toBeUndefined();

    expect(requests).toEqual([
      expect.objectContaining({ method: 'DELETE', url: 'http://api.test/v1/users/user%2F1%20%C3%A9', body: undefined }),
    ]);
  });
});

describe('errors', () => {
  const cases: Array<[number, unknown, new (...args: any[]) => ApiError]> = [
    [
      400,
      { code: 400, errors: [{ field: 'firstName', code: 'isNotEmpty', hint: 'first_name is required' }] },
      ValidationError,
    ],
    [401, standard(401, 'UNAUTHORIZED'), UnauthorizedError],
    [403, standard(403, 'FORBIDDEN'), ForbiddenError],
    [404, standard(404, 'NOT_FOUND'), NotFoundError],
    [409, standard(409, 'CONFLICT', { jobId: 'j-open' }), ConflictError],
    [422, standard(422, 'UNPROCESSABLE_ENTITY', { status: 'PENDING' }), UnprocessableEntityError],
    [429, standard(429, 'TOO_MANY_REQUESTS'), RateLimitedError],
    [500, standard(500, 'INTERNAL_SERVER_ERROR'), ServerError],
    [503, standard(503, 'SERVICE_UNAVAILABLE'), ServerError],
  ];

  it.each(cases)('%i is a typed exception carrying the body and the request id', async (status, body, ErrorClass) => {
    const { fetch } = fakeFetch(() =>
      json(status, body, status === 429 || status === 503 ? { 'retry-after': '17' } : {}),
    );
    const client = new OnboardingApiClient({ baseUrl: BASE_URL, token: 't', fetch });

    const error = await client.createReportJob({ userId: 'u-1' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status, body, requestId: 'req-42', method: 'POST', path: '/v1/document/api' });
    expect((error as ApiError).message).toContain('req-42');
    if (status === 429 || status === 503) expect((error as ApiError).retryAfterSeconds).toBe(17);
  });

  it('exposes the validation problems, the standard error name and the open job of a 409', async () => {
    const problems = [{ field: 'userId', code: 'isNotEmpty', hint: 'userId is required' }];
    const client400 = new OnboardingApiClient({
      baseUrl: BASE_URL,
      fetch: fakeFetch(() => json(400, { code: 400, errors: problems })).fetch,
    });
    const validation = (await client400.createReportJob({ userId: '' }).catch((e: unknown) => e)) as ValidationError;
    expect(validation.errors).toEqual(problems);
    expect(validation.message).toContain('userId isNotEmpty: userId is required');

    const client409 = new OnboardingApiClient({
      baseUrl: BASE_URL,
      fetch: fakeFetch(() => json(409, standard(409, 'CONFLICT', { jobId: 'j-open' }))).fetch,
    });
    const conflict = (await client409.createReportJob({ userId: 'u' }).catch((e: unknown) => e)) as ConflictError;
    expect(conflict.openJobId).toBe('j-open');
    expect(conflict.error).toBe('CONFLICT');
  });

  it('keeps a body that is not the contract’s (a gateway’s text) and still types the error by status', async () => {
    const { fetch } = fakeFetch(() => new Response('Bad Gateway', { status: 502 }));
    const client = new OnboardingApiClient({ baseUrl: BASE_URL, token: 't', fetch });
    const error = (await client.getReportJob('j').catch((e: unknown) => e)) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.body).toBe('Bad Gateway');
    expect(error.requestId).toBeUndefined();
  });

  it('reports an unreachable API as ApiConnectionError with the cause, and an abort as the signal’s reason', async () => {
    const refused = new OnboardingApiClient({
      baseUrl: BASE_URL,
      fetch: async () => {
        throw new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') });
      },
    });
    const error = await refused.getReportJob('j').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect((error as Error).message).toContain('GET http://api.test/v1/document/api/j');

    const reason = new Error('cancelled');
    const aborting = new OnboardingApiClient({
      baseUrl: BASE_URL,
      fetch: async () => {
        throw new DOMException('aborted', 'AbortError');
      },
    });
    await expect(aborting.getReportJob('j', { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds(null, now)).toBeUndefined();
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
  });
});

describe('queryUserStatus', () => {
  const records = Array.from({ length: 7 }, (_, i) => ({ id: `u-${i}` }));
  const pagedFetch = () =>
    fakeFetch((request) => {
      const { limit = 50, offset = 0 } =
        (request.body as { pagination?: { limit?: number; offset?: number } }).pagination ?? {};
      const page: UserStatusPage = {
        results: records.slice(offset, offset + limit),
        pagination: { limit, offset, total: records.length },
      };
      return json(200, page);
    });

  it('iterates every page, from the given offset, with the given page size and the same filters', async () => {
    const { fetch, requests } = pagedFetch();
    const client = new OnboardingApiClient({ baseUrl: BASE_URL, token: 't', fetch });

    const pages: UserStatusPage[] = [];
    for await (const page of client.queryUserStatus({
      filters: { is_deleted: false },
      result_keys: ['id'],
      pagination: { limit: 3, offset: 1 },
    })) {
      pages.push(page);
    }

    expect(pages.map((page) => page.results.map((r) => r.id))).toEqual([
      ['u-1', 'u-2', 'u-3'],
      ['u-4', 'u-5', 'u-6'],
    ]);
    expect(requests.map((r) => r.body)).toEqual([
      { filters: { is_deleted: false }, result_keys: ['id'], pagination: { limit: 3, offset: 1 } },
      { filters: { is_deleted: false }, result_keys: ['id'], pagination: { limit: 3, offset: 4 } },
    ]);
  });

  it('yields one empty page when nothing matches, and records one by one on request', async () => {
    const empty = new OnboardingApiClient({
      baseUrl: BASE_URL,
      fetch: fakeFetch(() => json(200, { results: [], pagination: { limit: 50, offset: 0, total: 0 } })).fetch,
    });
    const pages = [];
    for await (const page of empty.queryUserStatus()) pages.push(page);
    expect(pages).toHaveLength(1);

    const client = new OnboardingApiClient({ baseUrl: BASE_URL, token: 't', fetch: pagedFetch().fetch });
    const ids: unknown[] = [];
    for await (const record of client.userStatusRecords({ pagination: { limit: 2 } })) ids.push(record.id);
    expect(ids).toEqual(records.map((r) => r.id));
  });

  it('stops requesting when the consumer stops iterating', async () => {
    const { fetch, requests } = pagedFetch();
    const client = new OnboardingApiClient({ baseUrl: BASE_URL, token: 't', fetch });
    for await (const page of client.queryUserStatus({ pagination: { limit: 2 } })) {
      expect(page.results).toHaveLength(2);
      break;
    }
    expect(requests).toHaveLength(1);
  });
});
