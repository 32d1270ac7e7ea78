import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import fc from 'fast-check';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { apiRoutes } from '#shared/config/api-routes.ts';
import { compileRoutePath } from '#shared/http/route-matcher.ts';
import { SANDBOX_SCOPE } from '#shared/domain/identity/tenant.ts';
import { sandboxTokenFor, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { apiEvent } from '#test/support/api-event.ts';
import { coldStart, lambdaContext } from '#test/support/report-support.ts';
import { answerChecker, type Answer } from './openapi-conformance/answer-checker.ts';
import { inParallel, probe, type Authorize } from './openapi-conformance/probe.ts';
import { operationsOf, requestsOf } from './openapi-conformance/request-cases.ts';

/**
 * Contract §26 against the running local stack: every operation of the document it serves gets
 * valid and hostile requests (test/integration/openapi-conformance/request-cases.ts), and every
 * answer is checked against that document (answer-checker.ts: a declared status, never a 5XX, the
 * body in its status's schema, the declared headers). The requests come from the document alone,
 * so a new operation is covered without touching this file.
 *
 * The generated values are seeded: a failure names its seed and path, and
 * `OPENAPI_CONFORMANCE_SEED=<seed>` replays it; `OPENAPI_CONFORMANCE_RUNS` draws more per operation.
 */

const SEED = Number(process.env.OPENAPI_CONFORMANCE_SEED ?? 26);
const FUZZED_REQUESTS_PER_OPERATION = Number(process.env.OPENAPI_CONFORMANCE_RUNS ?? 30);
const PARALLEL_REQUESTS = 4;

const baseUrl = inject('baseUrl');
const document = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as Record<string, any>;
const checker = answerChecker(document);
const operations = operationsOf(document);
const everyScope = [...new Set(operations.map((operation) => operation.scope).filter((scope) => scope !== undefined))];

/** A token of a fresh organization for each request, so that no request spends another's limits. */
const authorize: Authorize = async (credential, operation) => {
  const scope = operation.scope ?? everyScope[0]!;
  const orgId = uniqueOrg('conformance');
  switch (credential) {
    case 'none':
      return undefined;
    case 'malformed':
      return 'Bearer not.a.token';
    case 'unscoped':
      return `Bearer ${await tokenFor(orgId, { scopes: everyScope.filter((other) => other !== scope) })}`;
    case 'expired':
      return `Bearer ${await tokenFor(orgId, { scopes: [scope], expiresInSeconds: -120 })}`;
    case 'scoped':
      return `Bearer ${await tokenFor(orgId, { scopes: [scope] })}`;
  }
};

describe('every answer of every operation is declared in the served document', () => {
  it('serves a document with operations to check', () => {
    expect(operations.length).toBeGreaterThanOrEqual(apiRoutes.length);
  });

  describe.each(operations.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))(
    '%s',
    (_, operation) => {
      const { hostileCases, fuzzedRequest } = requestsOf(operation, document);

      it('valid requests and each kind of hostile one', async () => {
        const problems: string[] = [];
        await inParallel(hostileCases(SEED), PARALLEL_REQUESTS, async (request) => {
          problems.push(...(await probe(baseUrl, checker, operation, request, authorize)));
        });
        expect(problems).toEqual([]);
      });

      it(`${FUZZED_REQUESTS_PER_OPERATION} requests with a member, query or path value drawn by fast-check`, async () => {
        await fc.assert(
          fc.asyncProperty(fuzzedRequest, async (request) => {
            expect(await probe(baseUrl, checker, operation, request, authorize)).toEqual([]);
          }),
          { seed: SEED, numRuns: FUZZED_REQUESTS_PER_OPERATION },
        );
      });
    },
  );
});

type Handler = (
  event: APIGatewayProxyEventV2,
  context: ReturnType<typeof lambdaContext>,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** An organization's request budget of one request (rate 1 a second), in a fresh container of the operation's function. */
const ONE_REQUEST_BUDGET = { REQUEST_BUDGET_RATE: '1', REQUEST_BUDGET_BURST: '1' };
const BURST = 4;

describe('a burst past the request budget is answered as declared', () => {
  afterEach(() => vi.unstubAllEnvs());

  const authenticated = operations.filter((operation) => operation.scope !== undefined);

  it.each(authenticated.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))(
    '%s',
    async (_, operation) => {
      const route = apiRoutes.find(
        (candidate) => candidate.method === operation.method && candidate.path === operation.path,
      );
      expect(route, 'the route of the operation').toBeDefined();
      const { handler } = await coldStart<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(
        route!.entry.replace(/^functions\//, '').replace(/\.ts$/, ''),
        ONE_REQUEST_BUDGET,
      );
      const [request] = requestsOf(operation, document).hostileCases(SEED);
      // A sandbox-only route answers any other token 404 before its budget is spent.
      const token = route!.sandboxOnly
        ? await sandboxTokenFor(uniqueOrg('conformance-burst'), { scopes: [operation.scope!, SANDBOX_SCOPE] })
        : await tokenFor(uniqueOrg('conformance-burst'), { scopes: [operation.scope!] });
      const [rawPath, rawQuery = ''] = request!.target.split('?');
      const event = () =>
        apiEvent({
          method: operation.method,
          path: rawPath,
          routeKey: `${operation.method} ${operation.path}`,
          headers: { ...request!.headers, authorization: `Bearer ${token}` },
          ...(request!.body === undefined ? {} : { body: request!.body }),
          ...(rawQuery ? { query: Object.fromEntries(new URLSearchParams(rawQuery)) } : {}),
          pathParameters: compileRoutePath(operation.path)(rawPath!) ?? {},
        });
      const answers = await Promise.all(
        Array.from({ length: BURST }, () =>
          (handler as Handler)(event(), lambdaContext(route!.name, 10_000)).then((result): Answer => ({
            status: result.statusCode ?? 200,
            headers: new Headers(result.headers as Record<string, string>),
            text: result.body ?? '',
          })),
        ),
      );
      expect(answers.map((answer) => answer.status)).toContain(429);
      expect(answers.flatMap((answer) => checker.check(operation, answer))).toEqual([]);
    },
  );
});
