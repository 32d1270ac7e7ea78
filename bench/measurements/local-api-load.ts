import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import { fallbackRoute, type ApiRoute } from '#shared/config/api-routes.ts';
import { createLocalRouter } from '#local/router.ts';
import { single, type Row, type Stat } from '#bench/report.ts';
import { callLocalApi, requestReport, seedOrganization, waitUntilComplete } from '#bench/support/local-api.ts';
import type { Measurement } from '#bench/support/measurement.ts';

/**
 * 8. Load on the local API with autocannon (its own process, loopback only, fixed duration):
 * GET report status of a finished job and POST /v1/user-status on a 300-user organization.
 * Baseline: a trivial handler behind the same local router (same event building, same context),
 * hit with the same method, body and headers. The figures are of this machine and the emulators,
 * not of Lambda; what they show is the service's share of the router's capacity and that
 * sustained concurrent use produces no errors.
 */
const LOAD = { connections: 10, durationSeconds: 5 };
const WARMUP_REQUESTS = 20;

interface Target {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

interface LoadResult {
  requestsPerSecond: Stat;
  latency: Stat;
  errors: number;
}

export default {
  title: '8 local API load',
  async run(context) {
    const stack = await context.localStack();
    const orgId = `bench-load-${context.runId}`;
    const users = await seedOrganization(context, orgId, 300);
    const token = await stack.issueToken({ orgId });
    const jobId = await requestReport(stack.baseUrl, users[0]!.id, token);
    await waitUntilComplete(stack.baseUrl, jobId, token, { intervalMs: 50, timeoutMs: 30_000 });

    const trivial = await startTrivialRouter();
    try {
      const targets: Target[] = [
        { name: 'GET report status', method: 'GET', path: `/v1/document/api/${jobId}` },
        {
          name: 'POST user-status',
          method: 'POST',
          path: '/v1/user-status',
          body: { filters: { registration_status: 'active' }, pagination: { limit: 20 } },
        },
      ];
      const rows: Row[] = [];
      for (const target of targets) {
        for (let i = 0; i < WARMUP_REQUESTS; i++) {
          const { status } = await callLocalApi(stack.baseUrl, target.method, target.path, {
            token,
            body: target.body,
          });
          if (status !== 200) throw new Error(`${target.name} answered ${status} before the load`);
        }
        const measured = await runLoad(`${stack.baseUrl}${target.path}`, target, token);
        const baseline = await runLoad(`${trivial.baseUrl}/bench/trivial`, target, token);
        context.log(
          `load: ${target.name}: ${measured.requestsPerSecond.median} req/s, trivial ${baseline.requestsPerSecond.median} req/s`,
        );
        rows.push(
          {
            measurement: this.title,
            subject: `${target.name}: throughput`,
            unit: 'req/s',
            value: measured.requestsPerSecond,
            baseline: { subject: 'trivial handler', value: baseline.requestsPerSecond },
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

/** The stack's router, with one trivial handler for every path and method. */
async function startTrivialRouter(): Promise<{ server: Server; baseUrl: string }> {
  const entry = 'bench:trivial';
  const routes: ApiRoute[] = (['GET', 'POST'] as const).map((method) => ({
    method,
    path: '/bench/trivial',
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

/** One autocannon run in its own process (asynchronously: the servers under load run in this one). */
async function runLoad(url: string, target: Target, token: string): Promise<LoadResult> {
  if (!url.startsWith('http://127.0.0.1:')) throw new Error(`load is for loopback only, not ${url}`);
  const autocannon = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  const args = [
    autocannon,
    '--json',
    '--no-progress',
    '-c',
    String(LOAD.connections),
    '-d',
    String(LOAD.durationSeconds),
  ];
  args.push('-m', target.method, '-H', `authorization=Bearer ${token}`);
  if (target.body !== undefined) args.push('-H', 'content-type=application/json', '-b', JSON.stringify(target.body));
  const { stdout } = await promisify(execFile)(process.execPath, [...args, url], {
    timeout: (LOAD.durationSeconds + 30) * 1000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const report = JSON.parse(stdout) as {
    requests: { p50: number };
    latency: { p50: number; p99: number; totalCount: number };
    samples: number;
    errors: number;
    timeouts: number;
    non2xx: number;
  };
  return {
    requestsPerSecond: { median: report.requests.p50, n: report.samples },
    latency: { median: report.latency.p50, p99: report.latency.p99, n: report.latency.totalCount },
    errors: report.errors + report.timeouts + report.non2xx,
  };
}
