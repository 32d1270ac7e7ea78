import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import { fallbackRoute, reportRoutes, userStatusRoutes, type ApiRoute } from '#shared/config/api-routes.ts';
import { createLocalRouter } from '#local/router.ts';
import { single, type Row, type Stat } from '#bench/report.ts';
import { callLocalApi, requestReport, seedOrganization, waitUntilComplete } from '#bench/support/local-api.ts';
import type { Measurement } from '#bench/support/measurement.ts';
import { sleep } from '#bench/support/timing.ts';

/**
 * 8. Load on the local API with autocannon (its own process, loopback only, fixed duration):
 * GET report status of a finished job and POST /v1/user-status, spread over ORGANIZATIONS
 * organizations of 300 users each (each with its own token and finished job), so that no
 * organization goes over its request budget (contract §15: 50 requests/s, burst 100, then 429):
 * the figures are the router's and the handlers', not the budget's. Every non-2XX counts as an
 * error, 429 included, and the 429s get a row of their own.
 * Baseline: a trivial handler behind the same local router on the same route templates (same
 * event building, same context), hit with the very same requests. The figures are of this machine
 * and the emulators, not of Lambda; what they show is the service's share of the router's
 * capacity and that sustained concurrent use produces no errors.
 */
const LOAD = { connections: 10, durationSeconds: 5 };
const ORGANIZATIONS = 40;
const USERS_PER_ORGANIZATION = 300;
/** Organizations seeded (and reports awaited) at once: PostgreSQL and the report worker share the machine. */
const SETUP_CONCURRENCY = 4;

interface Target {
  name: string;
  route: ApiRoute;
  path: (organization: Organization) => string;
  body?: unknown;
}

interface Organization {
  orgId: string;
  token: string;
  jobId: string;
}

/** What autocannon's `requests` option takes (autocannon/README.md, "requests"). */
interface LoadRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface LoadResult {
  requestsPerSecond: Stat;
  latency: Stat;
  errors: number;
  tooManyRequests: number;
  statuses: string;
}

const routeOf = (routes: readonly ApiRoute[], method: string, path: string): ApiRoute => {
  const route = routes.find((candidate) => candidate.method === method && candidate.path === path);
  if (!route) throw new Error(`no route ${method} ${path}`);
  return route;
};

export default {
  title: '8 local API load',
  async run(context) {
    const stack = await context.localStack();
    const budgetRate = Number(stack.env.REQUEST_BUDGET_RATE);
    context.log(`load: seeding ${ORGANIZATIONS} organizations of ${USERS_PER_ORGANIZATION} users, one report each`);
    const organizations = await mapLimited(
      Array.from({ length: ORGANIZATIONS }, (_, i) => `bench-load-${context.runId}-${i}`),
      SETUP_CONCURRENCY,
      async (orgId): Promise<Organization> => {
        const users = await seedOrganization(context, orgId, USERS_PER_ORGANIZATION);
        const token = await stack.issueToken({ orgId });
        const jobId = await requestReport(stack.baseUrl, users[0]!.id, token);
        await waitUntilComplete(stack.baseUrl, jobId, token, { intervalMs: 100, timeoutMs: 60_000 });
        return { orgId, token, jobId };
      },
    );

    const targets: Target[] = [
      {
        name: 'GET report status',
        route: routeOf(reportRoutes, 'GET', '/v1/document/api/{id}'),
        path: (organization) => `/v1/document/api/${organization.jobId}`,
      },
      {
        name: 'POST user-status',
        route: routeOf(userStatusRoutes, 'POST', '/v1/user-status'),
        path: () => '/v1/user-status',
        body: { filters: { registration_status: 'active' }, pagination: { limit: 20 } },
      },
    ];
    const trivial = await startTrivialRouter(targets.map((target) => target.route));
    try {
      const rows: Row[] = [];
      for (const target of targets) {
        const requests = organizations.map((organization): LoadRequest => ({
          method: target.route.method,
          path: target.path(organization),
          headers: {
            authorization: `Bearer ${organization.token}`,
            ...(target.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(target.body === undefined ? {} : { body: JSON.stringify(target.body) }),
        }));
        // Warm-up: every organization's request once, through the real API.
        for (const request of requests) {
          const { status } = await callLocalApi(stack.baseUrl, request.method, request.path, {
            token: request.headers.authorization!.slice('Bearer '.length),
            body: target.body,
          });
          if (status !== 200) throw new Error(`${target.name} answered ${status} before the load`);
        }
        // Every bucket full again (burst / rate seconds) before the load starts.
        await sleep(2_000);
        const measured = await runLoad(stack.baseUrl, requests);
        const baseline = await runLoad(trivial.baseUrl, requests);
        const perOrganization = measured.requestsPerSecond.median / ORGANIZATIONS;
        context.log(
          `load: ${target.name}: ${measured.requestsPerSecond.median} req/s (${perOrganization.toFixed(1)} per organization, ` +
            `budget ${budgetRate}/s), trivial ${baseline.requestsPerSecond.median} req/s; ` +
            `statuses ${measured.statuses}, trivial ${baseline.statuses}; ${measured.tooManyRequests} x 429`,
        );
        const spread = `${ORGANIZATIONS} organizations, median ${perOrganization.toFixed(1)} req/s each (budget ${budgetRate}/s)`;
        rows.push(
          {
            measurement: this.title,
            subject: `${target.name}: throughput`,
            unit: 'req/s',
            value: measured.requestsPerSecond,
            baseline: { subject: 'trivial handler', value: baseline.requestsPerSecond },
            note: spread,
          },
          {
            measurement: this.title,
            subject: `${target.name}: latency`,
            unit: 'ms',
            value: measured.latency,
            baseline: { subject: 'trivial handler', value: baseline.latency },
            ...(baseline.latency.median === 0
              ? { note: 'autocannon records whole milliseconds; the trivial handler answers within one' }
              : {}),
          },
          {
            measurement: this.title,
            subject: `${target.name}: errors and non-2XX`,
            unit: 'count',
            value: single(measured.errors),
            baseline: { subject: 'trivial handler', value: single(baseline.errors) },
            budget: { on: 'median', max: 0 },
            note: `statuses: ${measured.statuses}`,
          },
          {
            measurement: this.title,
            subject: `${target.name}: 429 (organization request budget)`,
            unit: 'count',
            value: single(measured.tooManyRequests),
            budget: { on: 'median', max: 0 },
            ...(measured.tooManyRequests > 0
              ? { note: `the load went over some organization's budget: spread it over more than ${ORGANIZATIONS}` }
              : {}),
          },
        );
      }
      return rows;
    } finally {
      await new Promise<void>((resolve) => {
        trivial.server.close(() => resolve());
        trivial.server.closeAllConnections();
      });
    }
  },
} satisfies Measurement;

/** `work` over `items`, at most `limit` at a time, results in the items' order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The stack's router on the measured routes' templates, each answered by one trivial handler. */
async function startTrivialRouter(measured: readonly ApiRoute[]): Promise<{ server: Server; baseUrl: string }> {
  const entry = 'bench:trivial';
  const routes: ApiRoute[] = measured.map((route) => ({
    method: route.method,
    path: route.path,
    entry,
    name: 'Trivial',
  }));
  const server = createLocalRouter({
    routes,
    fallback: { entry, name: fallbackRoute.name },
    loadHandler: async () => async () => ({
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"ok":true}',
    }),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * Runs autocannon's API in a child process (its CLI takes one path and one set of headers; the
 * servers under load run in this process, so the load must not): argv[1] is autocannon's entry,
 * argv[2] its options as JSON; the result goes to stdout as JSON.
 */
// Each connection starts at its own organization, evenly apart: started alike they would go through the list in step,
// all ten on one organization at once, past its database concurrency limit (contract §25: 4) though no organization is
// over its budget.
const AUTOCANNON_CHILD = `
const autocannon = require(process.argv[1]);
const options = JSON.parse(process.argv[2]);
const step = Math.max(1, Math.floor(options.requests.length / options.connections));
let connection = 0;
options.setupClient = (client) => {
  const start = (connection++ * step) % options.requests.length;
  client.setRequests([...options.requests.slice(start), ...options.requests.slice(0, start)]);
};
autocannon(options).then(
  (result) => process.stdout.write(JSON.stringify(result)),
  (error) => { console.error(error); process.exit(1); },
);`;

/** One autocannon run: each connection cycles through `requests` (one per organization), from its own starting point. */
async function runLoad(baseUrl: string, requests: readonly LoadRequest[]): Promise<LoadResult> {
  if (!baseUrl.startsWith('http://127.0.0.1:')) throw new Error(`load is for loopback only, not ${baseUrl}`);
  const autocannon = createRequire(import.meta.url).resolve('autocannon');
  const options = {
    url: baseUrl,
    connections: LOAD.connections,
    duration: LOAD.durationSeconds,
    requests,
  };
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['-e', AUTOCANNON_CHILD, autocannon, JSON.stringify(options)],
    { timeout: (LOAD.durationSeconds + 30) * 1000, maxBuffer: 16 * 1024 * 1024 },
  );
  const report = JSON.parse(stdout) as {
    requests: { p50: number };
    latency: { p50: number; p99: number; totalCount: number };
    samples: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats?: Record<string, { count: number | string }>;
  };
  const statusCounts = Object.entries(report.statusCodeStats ?? {}).map(
    ([status, { count }]) => [status, Number(count)] as const,
  );
  return {
    requestsPerSecond: { median: report.requests.p50, n: report.samples },
    latency: { median: report.latency.p50, p99: report.latency.p99, n: report.latency.totalCount },
    errors: report.errors + report.timeouts + report.non2xx,
    tooManyRequests: statusCounts.find(([status]) => status === '429')?.[1] ?? 0,
    statuses: statusCounts.map(([status, count]) => `${count} x ${status}`).join(', ') || 'none',
  };
}
