import { BusinessMetric, metrics } from '#shared/observability/metrics.ts';
import * as v from 'valibot';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReportRateLimiter } from '#shared/domain/reports/ports.ts';
import { REPORT_REQUEST_RATE_LIMIT, spendToken } from '#shared/domain/limits/report-rate-limit.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import type { ApiEvent, ApiResult } from '#shared/http/api-types.ts';
import type { TokenVerifier } from '#shared/http/auth.ts';
import type { ApiContext } from '#shared/http/middlewares.ts';
import { limitRate } from '#shared/http/limits/rate-limit.ts';
import { rateLimitHeaders } from '#shared/http/responses.ts';
import { accepted } from '#shared/http/responses.ts';
import { apiEvent, lambdaContext } from '#test/support/api-event.ts';
import { bearer, createTestKeySet, signToken, TEST_ORG_ID, validClaims } from '#test/support/jwt.ts';
import { testTokenVerifier } from '#test/support/fixtures/token-verifier.ts';
import { T0 } from '#test/support/fixtures/defaults.ts';
import { FakeClock } from './fakes.ts';

// Quiet logs: the logger reads its level once, when shared/observability/logger.ts is first imported.
const previousLogLevel = vi.hoisted(() => {
  const previous = process.env.POWERTOOLS_LOG_LEVEL;
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  return previous;
});

const PATH = '/v1/document/api';
const bodySchema = v.object({ userId: v.pipe(v.string(), v.minLength(1), v.maxLength(16)) });

/** A limiter over an in-memory bucket per organization, with the domain's token rules. */
class InMemoryRateLimiter implements ReportRateLimiter {
  readonly buckets = new Map<string, number[]>();
  async spend(orgId: string, now: Date) {
    const decision = spendToken(this.buckets.get(orgId) ?? [], now.getTime(), REPORT_REQUEST_RATE_LIMIT);
    this.buckets.set(orgId, decision.spentAt);
    return decision;
  }
}

let verifyToken: TokenVerifier;
let writerToken: string;
let readerToken: string;
let limiter: InMemoryRateLimiter;
let clock: FakeClock;

const bodyOf = (response: ApiResult) => JSON.parse(response.body ?? 'null') as Record<string, unknown>;
const post = (body: unknown, token = writerToken): ApiEvent =>
  apiEvent({ method: 'POST', path: PATH, headers: { ...bearer(token), 'content-type': 'application/json' }, body });

function reportHandler(handle = vi.fn(async () => accepted({ jobId: 'job-1' }, { location: `${PATH}/job-1` }))) {
  const handler = createApiHandler({
    requiredScope: 'reports:write',
    verifyToken,
    beforeBody: [limitRate(limiter, clock)],
    bodySchema,
    handle,
  });
  return { invoke: (event: ApiEvent) => handler(event, lambdaContext() as ApiContext), handle };
}

/** Spends the organization's ten tokens, one second apart, starting at T0. */
function emptyTheBucket(): void {
  limiter.buckets.set(
    TEST_ORG_ID,
    Array.from({ length: 10 }, (_, i) => T0.getTime() + i * 1000),
  );
}

beforeAll(async () => {
  const keys = await createTestKeySet();
  verifyToken = testTokenVerifier(keys.jwks);
  writerToken = await signToken(validClaims({ scope: 'reports:write' }), { key: keys.es256 });
  readerToken = await signToken(validClaims({ scope: 'reports:read' }), { key: keys.es256 });
});

beforeEach(() => {
  limiter = new InMemoryRateLimiter();
  clock = new FakeClock(T0);
});

afterAll(() => {
  if (previousLogLevel === undefined) delete process.env.POWERTOOLS_LOG_LEVEL;
  else process.env.POWERTOOLS_LOG_LEVEL = previousLogLevel;
});

describe('rateLimitHeaders', () => {
  it('names the limit, the tokens left and the seconds until the next one returns', () => {
    expect(rateLimitHeaders(spendToken([], T0.getTime(), REPORT_REQUEST_RATE_LIMIT))).toEqual({
      'ratelimit-limit': '10',
      'ratelimit-remaining': '9',
      'ratelimit-reset': '600',
    });
  });
});

describe('limitRate in the API handler', () => {
  it('answers a refused request 429 (standard body, Retry-After, RateLimit-*) without running the use case', async () => {
    emptyTheBucket();
    clock.advance(30_000); // the oldest token returns in 570 s
    const { invoke, handle } = reportHandler();
    const counted = vi.spyOn(metrics, 'addMetric');
    const published = vi.spyOn(metrics, 'publishStoredMetrics');

    const response = await invoke(post({ userId: 'user-1' }));

    expect(response.statusCode).toBe(429);
    expect(counted).toHaveBeenCalledWith(BusinessMetric.RateLimitedRequests, 'Count', 1);
    expect(published).toHaveBeenCalledTimes(1);
    expect(bodyOf(response)).toEqual({
      code: 429,
      timestamp: expect.any(String),
      path: PATH,
      method: 'POST',
      error: 'TOO_MANY_REQUESTS',
      message: expect.any(String),
    });
    expect(response.headers).toMatchObject({
      'retry-after': '570',
      'ratelimit-limit': '10',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '570',
    });
    expect(handle).not.toHaveBeenCalled();
  });

  it('refuses before the body is read: a rate-limited invalid body is 429, not 400', async () => {
    emptyTheBucket();
    const { invoke } = reportHandler();

    const response = await invoke(post('{not json'));

    expect(response.statusCode).toBe(429);
  });

  it('runs the use case on an allowed request and puts RateLimit-* on its 2xx response', async () => {
    const { invoke, handle } = reportHandler();

    const response = await invoke(post({ userId: 'user-1' }));

    expect(response.statusCode).toBe(202);
    expect(handle).toHaveBeenCalledTimes(1);
    expect(response.headers).toMatchObject({
      location: `${PATH}/job-1`,
      'ratelimit-limit': '10',
      'ratelimit-remaining': '9',
      'ratelimit-reset': '600',
    });
    expect(response.headers).not.toHaveProperty('retry-after');
  });

  it('counts down the remaining tokens request by request', async () => {
    const { invoke } = reportHandler();

    const remaining: Array<string | undefined> = [];
    for (let i = 0; i < 11; i++) {
      const response = await invoke(post({ userId: 'user-1' }));
      remaining.push(response.headers['ratelimit-remaining']);
      clock.advance(1_000);
    }

    expect(remaining).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0', '0']);
    expect(limiter.buckets.get(TEST_ORG_ID)).toHaveLength(10);
  });

  it('spends a token for an authenticated request whose body is then refused (400)', async () => {
    const { invoke } = reportHandler();

    const response = await invoke(post({ userId: '' }));

    expect(response.statusCode).toBe(400);
    expect(limiter.buckets.get(TEST_ORG_ID)).toEqual([T0.getTime()]);
  });

  it('spends nothing for a request refused by authentication or scope', async () => {
    const { invoke } = reportHandler();

    const unauthenticated = await invoke(apiEvent({ method: 'POST', path: PATH, body: { userId: 'user-1' } }));
    const wrongScope = await invoke(post({ userId: 'user-1' }, readerToken));

    expect(unauthenticated.statusCode).toBe(401);
    expect(wrongScope.statusCode).toBe(403);
    expect(limiter.buckets.size).toBe(0);
  });
});
