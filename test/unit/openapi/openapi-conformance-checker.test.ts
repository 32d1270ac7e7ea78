import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import openApiDocument from '#openapi.json' with { type: 'json' };
import { answerChecker, type Answer } from '#test/integration/openapi-conformance/answer-checker.ts';
import { inParallel, probe, type Authorize } from '#test/integration/openapi-conformance/probe.ts';
import { operationsOf, requestsOf } from '#test/integration/openapi-conformance/request-cases.ts';
import { completeReportJobBody } from '#test/support/fixtures/report-jobs.ts';

/**
 * The conformance tier's own test (test/integration/openapi-conformance.test.ts): its checker
 * refuses what the contract forbids, and its probe, run against a stand-in server, catches a route
 * that answers a status the document does not declare.
 */

const document = openApiDocument as Record<string, any>;
const checker = answerChecker(document);
const GET_JOB = { method: 'GET', path: '/v1/document/api/{id}' };
const DELETE_ENDPOINT = { method: 'DELETE', path: '/v1/webhooks/{id}' };
const at = '2026-01-01T00:00:00.000Z';
const completeJob = completeReportJobBody();
const standardError = (code: number, error: string) => ({
  code,
  timestamp: at,
  path: '/v1/document/api/x',
  method: 'GET',
  error,
  message: 'm',
});

function answer(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: new Headers({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-request-id': 'r-1',
      ...headers,
    }),
    text: body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body),
  };
}

describe('the answer checker', () => {
  it('passes a declared status whose body and headers are the declared ones', () => {
    expect(checker.check(GET_JOB, answer(200, completeJob))).toEqual([]);
    expect(checker.check(GET_JOB, answer(404, standardError(404, 'NOT_FOUND')))).toEqual([]);
    expect(
      checker.check(
        GET_JOB,
        answer(429, standardError(429, 'TOO_MANY_REQUESTS'), { 'retry-after': '1', 'ratelimit-limit': '100' }),
      ),
    ).toEqual([]);
    expect(checker.check(DELETE_ENDPOINT, answer(204, undefined, { 'content-type': '' }))).toEqual([]);
  });

  it('refuses a status the operation does not declare (418)', () => {
    expect(checker.check(GET_JOB, answer(418, { teapot: true }))).toEqual([
      expect.stringContaining('GET /v1/document/api/{id} answered 418: an undeclared status'),
    ]);
  });

  it('refuses a 5XX even where it is declared', () => {
    expect(checker.check(GET_JOB, answer(500, standardError(500, 'INTERNAL_SERVER_ERROR')))).toEqual([
      expect.stringContaining('a 5XX'),
    ]);
  });

  it.each([
    ['a required member missing', { ...completeJob, sha256: undefined }],
    ['a member the schema does not name', { ...completeJob, surprise: true }],
    ['a member of the wrong type', { ...completeJob, sizeBytes: '10' }],
    ['another status’s body', standardError(404, 'NOT_FOUND')],
  ])('refuses a body outside its status’s schema: %s', (_, body) => {
    expect(checker.check(GET_JOB, answer(200, body))).not.toEqual([]);
  });

  it('refuses a body that is not JSON, or not said to be', () => {
    expect(checker.check(GET_JOB, answer(200, '<html></html>'))).toEqual([
      expect.stringContaining('the body is not JSON'),
    ]);
    expect(checker.check(GET_JOB, answer(200, completeJob, { 'content-type': 'text/plain' }))).toEqual([
      expect.stringContaining('content-type "text/plain"'),
    ]);
  });

  it('refuses a body where the status declares none', () => {
    expect(checker.check(DELETE_ENDPOINT, answer(204, { deleted: true }))).toEqual([
      expect.stringContaining('a body where none is declared'),
    ]);
  });

  it('refuses a missing required header and a header value outside its schema', () => {
    const withoutRetryAfter = answer(429, standardError(429, 'TOO_MANY_REQUESTS'));
    expect(checker.check(GET_JOB, withoutRetryAfter)).toEqual([
      expect.stringContaining('header Retry-After is missing'),
    ]);
    const badRemaining = answer(429, standardError(429, 'TOO_MANY_REQUESTS'), {
      'retry-after': '1',
      'ratelimit-remaining': '-3',
    });
    expect(checker.check(GET_JOB, badRemaining)).toEqual([expect.stringContaining('header ratelimit-remaining')]);
  });

  it('refuses an operation the document does not have', () => {
    expect(checker.check({ method: 'PATCH', path: '/v1/document/api/{id}' }, answer(200, {}))).toEqual([
      expect.stringContaining('is not an operation of the document'),
    ]);
  });
});

describe('the probe against a stand-in server', () => {
  let server: Server;
  let baseUrl: string;
  /** What the stand-in answers every request with. */
  let status = 418;
  const operation = operationsOf(document).find(
    (candidate) => candidate.method === 'DELETE' && candidate.path === DELETE_ENDPOINT.path,
  )!;
  const authorize: Authorize = async (credential) => (credential === 'none' ? undefined : 'Bearer stand-in');

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response
          .writeHead(status, {
            'content-type': 'application/json; charset=utf-8',
            'cache-control': 'no-store',
            'x-request-id': 'stand-in',
          })
          .end(JSON.stringify({ ...standardError(status, 'NOT_FOUND'), code: status }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function problemsOfEveryCase(): Promise<string[][]> {
    const cases = requestsOf(operation, document).hostileCases(26);
    const problems: string[][] = [];
    await inParallel(cases, 4, async (request) => {
      problems.push(await probe(baseUrl, checker, operation, request, authorize));
    });
    expect(problems).toHaveLength(cases.length);
    return problems;
  }

  it('catches a route that answers an undeclared 418, on every request sent to it', async () => {
    status = 418;
    for (const problems of await problemsOfEveryCase())
      expect(problems).toEqual([expect.stringMatching(/answered 418: an undeclared status/)]);
  });

  it('finds nothing wrong with the same route answering its declared 404', async () => {
    status = 404;
    for (const problems of await problemsOfEveryCase()) expect(problems).toEqual([]);
  });
});
