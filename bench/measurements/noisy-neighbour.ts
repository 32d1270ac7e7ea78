import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createServer, get, type Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { LOCAL_CONTAINERS_PER_ORGANIZATION } from '#local/local-stack.ts';
import { connectAsAdmin } from '#local/seed-demo-data.ts';
import { containerDynamoDbClients, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { SqsWebhookQueue } from '#shared/adapters/sqs/webhook-queue.ts';
import { eventIdFor, messageIdFor } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { single, summarize, type Row } from '#bench/report.ts';
import { DEFAULT_REQUEST_BUDGET, tokensAvailable } from '#shared/domain/limits/request-budget.ts';
import { refusalOf, type Refusal } from '#bench/support/agent-request.ts';
import { callLocalApi, createApiClient, runTimedPacedRequests, seedOrganization } from '#bench/support/local-api.ts';
import type { Measurement } from '#bench/support/measurement.ts';
import { neighbourRows, sampleRunningStatements } from '#bench/support/running-statements.ts';
import { pacedCalls, pacedSamples, sleep } from '#bench/support/timing.ts';

/**
 * 12. One organization cannot hurt another (contract §15), on the local stack. Organization A
 * floods: 60 `webhook.test` events to its 10 endpoints, which accept the connection and never
 * answer (the API's test route takes 10 a minute; the events it refuses are put on the fast lane
 * directly, as the route would have), 200 requests per second of POST /v1/user-status for
 * FLOOD_SECONDS, and 50 onboarding e-mails to one address. Meanwhile organization B does quiet
 * traffic: 20 user-status queries a second (quiet and under the flood), and a webhook test now and then to a receiver that
 * answers at once. Budgets (contract §19): B's webhook deliveries (from its test's 202 to the receiver) p99 <= 5 s;
 * B's API median over the whole flood at most 1.5 x its quiet median, measured quiet in the same run; no 429 for B.
 * Contract §25 adds: A's user-status statements running at once, sampled from `pg_stat_activity` through the flood, at
 * most its database concurrency limit (4); A's refusals for its requests in flight counted apart from its budget's and
 * quotas'. B's p99 under A's flood is reported here, not budgeted (§25: budgeted only against a deployed stage,
 * `--target`; the local stack shares two cores between organizations where Lambda gives each invocation its own):
 * during A's admitted burst, once A's burst is spent (A's bucket has no token left: A is over budget) and over the whole
 * flood, each against B's quiet p99 (a p99 row's "median" columns carry the two p99s, so its ratio is theirs).
 * Loopback receivers are allowed because the local stack runs the delivery in local mode (WEBHOOK_LOCAL_MODE=true).
 * Before the quiet baseline, a third organization warms the routes the flood uses. Informational rows: probes of the
 * router and DynamoDB Local, the event loop's delay, and A's request budget writes during the flood.
 */
const HANGING_ENDPOINTS = 10;
const TEST_EVENTS = 60;
const FLOOD_SECONDS = 6;
const FLOOD_REQUESTS_PER_SECOND = 200;
const EMAILS_TO_ONE_ADDRESS = 50;
const QUIET_QUERIES = 60;
/** B is the quiet one: a steady 20 queries a second, well inside its budget of 50, quiet and under the flood alike. */
const B_QUERIES_PER_SECOND = 20;
const B_WEBHOOK_TESTS = 8;
const MAX_DELIVERY_MS = 5_000;
const MAX_API_P99_RATIO = 1.5;
const MAX_API_MEDIAN_RATIO = 1.5;
/** All the containers A may hold at once: the local stack's invocations per function and organization. */
const WARM_CONTAINERS = LOCAL_CONTAINERS_PER_ORGANIZATION;
const BUDGET_WRITE_COUNTER = 'benchCountRequestBudgetWrites';

const userStatusQuery = { filters: { registration_status: 'active' }, pagination: { limit: 10, offset: 0 } };
/**
 * A's flooding query: the same users and cost as `userStatusQuery`, plus a bound every user meets, so A's statements
 * read `created_at >= $n` and no other organization's do: `pg_stat_activity` shows no organization (a bound
 * parameter), and this tells A's running statements from B's.
 */
const noisyQuery = {
  filters: { ...userStatusQuery.filters, created_at: { gte: '2000-01-01T00:00:00.000Z' } },
  pagination: userStatusQuery.pagination,
};
const NOISY_STATEMENTS = '%created_at >= $%';

/** `200 x 310, 429 x 962`: how often each status was answered. */
function histogram(statuses: number[]): string {
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status} x ${n}`)
    .join(', ');
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

export default {
  title: '12 noisy neighbour',
  async run(context) {
    const stack = await context.localStack();
    const noisy = `bench-noisy-${context.runId}`;
    const quiet = `bench-quiet-${context.runId}`;
    await seedOrganization(context, noisy, 50);
    await seedOrganization(context, quiet, 50);
    const noisyToken = await stack.issueToken({ orgId: noisy });
    const quietToken = await stack.issueToken({ orgId: quiet });
    // Each organization is its own client with its own keep-alive connections, as two customers are; the probe too.
    const clients = new Map([noisyToken, quietToken, 'probe'].map((key) => [key, createApiClient()]));
    context.onClose(async () => {
      for (const client of clients.values()) client.destroy();
    });
    // A connection the flooded router drops counts as status 0 (for A: noted; for B: a failure of the run).
    const call = (token: string, method: string, path: string, body?: unknown) =>
      callLocalApi(stack.baseUrl, method, path, {
        token,
        client: clients.get(token)!,
        ...(body === undefined ? {} : { body }),
      }).catch(() => ({
        status: 0,
        body: {} as Record<string, any>,
      }));

    // A's receivers accept and never answer; B's answers at once and notes when each test arrived.
    const hanging = await listen(() => undefined);
    const arrivals = new Map<string, number>();
    const answering = await listen((request, response) => {
      request.resume();
      request.on('end', () => {
        const messageId = String(request.headers['webhook-id']);
        if (!arrivals.has(messageId)) arrivals.set(messageId, performance.now());
        response.writeHead(204).end();
      });
    });
    context.onClose(async () => {
      for (const { server } of [hanging, answering]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
    const register = async (token: string, url: string): Promise<string> => {
      const created = await call(token, 'POST', '/v1/webhooks', { url, events: ['report.completed'] });
      if (created.status !== 201) throw new Error(`registering a webhook answered ${created.status}`);
      return created.body.id as string;
    };
    const noisyEndpoints: string[] = [];
    for (let i = 0; i < HANGING_ENDPOINTS; i++) noisyEndpoints.push(await register(noisyToken, `${hanging.url}/${i}`));
    const quietEndpoint = await register(quietToken, answering.url);

    // Warm containers: a third organization calls each route of the flood WARM_CONTAINERS times at once, twice, so
    // the measurement starts from warm functions, as a service in steady use has (a cold start in AWS is another
    // container's, on another machine; locally its module loading would block the stack's event loop mid-flood).
    const warm = `bench-warm-${context.runId}`;
    await seedOrganization(context, warm, 10);
    const warmToken = await stack.issueToken({ orgId: warm });
    clients.set(warmToken, createApiClient());
    const warmEndpoint = await register(warmToken, answering.url);
    for (let round = 0; round < 2; round++)
      await Promise.all(
        Array.from({ length: WARM_CONTAINERS }, (_, i) =>
          Promise.all([
            call(warmToken, 'POST', '/v1/user-status', userStatusQuery),
            call(warmToken, 'POST', '/v1/onboarding-token', {
              email: `warm-${round}-${i}@example.com`,
              first_name: 'W',
              last_name: 'U',
            }),
            round === 0 ? call(warmToken, 'POST', `/v1/webhooks/${warmEndpoint}/test`) : undefined,
          ]),
        ),
      );

    const quietQuery = async (): Promise<{ ms: number; status: number }> => {
      const startedAt = performance.now();
      const answer = await call(quietToken, 'POST', '/v1/user-status', userStatusQuery);
      return { ms: performance.now() - startedAt, status: answer.status };
    };
    /** Runs `query` every 1 / B_QUERIES_PER_SECOND s (one at a time) until `more()` says stop. */
    const paced = (more: (count: number) => boolean, each: (answer: { ms: number; status: number }) => void) =>
      pacedCalls(B_QUERIES_PER_SECOND, quietQuery, more, each);
    const baseline = await pacedSamples(B_QUERIES_PER_SECOND, quietQuery, { warmup: 10, runs: QUIET_QUERIES });

    const getPublicRoute = (agent: Agent | false) =>
      new Promise<void>((resolve) =>
        get(`${stack.baseUrl}/v1/openapi.json`, { agent }, (response) => {
          response.resume();
          response.on('end', resolve);
        }).on('error', () => resolve()),
      );
    await getPublicRoute(clients.get('probe')!);

    // Writes to the request budget table during the flood, per organization: the functions run in this process
    // and share one DynamoDB client, whose stack this counts on (a lease is one UpdateItem).
    const budgetWrites = new Map<string, number>();
    const functionsDocuments = containerDynamoDbClients().documents;
    functionsDocuments.middlewareStack.add(
      (next) => (args) => {
        const input = args.input as { TableName?: string; Key?: { pk?: string | { S?: string } } };
        if (input.TableName === stack.env.REQUEST_BUDGETS_TABLE_NAME) {
          const pk = input.Key?.pk;
          const orgId = String(typeof pk === 'object' ? pk.S : pk).replace(/^ORG#/, '');
          budgetWrites.set(orgId, (budgetWrites.get(orgId) ?? 0) + 1);
        }
        return next(args);
      },
      { step: 'initialize', name: BUDGET_WRITE_COUNTER },
    );
    context.onClose(() => Promise.resolve(void functionsDocuments.middlewareStack.remove(BUDGET_WRITE_COUNTER)));

    const admin = connectAsAdmin(stack.usersDatabase, 1);
    context.onClose(() => admin.close());

    context.log('noisy neighbour: flooding');
    const noisyStatuses: number[] = [];
    /** Which limit refused each of A's 429s. */
    const noisyRefusals: Refusal[] = [];
    const noteAnswer = (answer: { status: number; body: Record<string, any> }) => {
      noisyStatuses.push(answer.status);
      const refusal = refusalOf(answer);
      if (refusal) noisyRefusals.push(refusal);
    };
    const flood: Array<Promise<void>> = [];
    const noted = (promise: Promise<{ status: number; body: Record<string, any> }>) =>
      flood.push(promise.then(noteAnswer));
    // 1. 60 test events to the hanging endpoints.
    const queue = new SqsWebhookQueue(createSqsClient(), stack.env.WEBHOOK_QUEUE_URL!);
    for (let i = 0; i < TEST_EVENTS; i++) {
      const endpointId = noisyEndpoints[i % HANGING_ENDPOINTS]!;
      flood.push(
        call(noisyToken, 'POST', `/v1/webhooks/${endpointId}/test`).then(async (answer) => {
          noteAnswer(answer);
          if (answer.status === 202) return;
          const timestamp = new Date().toISOString();
          await queue.publishEvent({
            eventId: eventIdFor('bench-test', noisy, String(i), timestamp),
            orgId: noisy,
            type: 'webhook.test',
            timestamp,
            data: { endpointId, url: `${hanging.url}/${i % HANGING_ENDPOINTS}` },
            endpointId,
          });
        }),
      );
    }
    // 2. 50 e-mail requests to one address.
    for (let i = 0; i < EMAILS_TO_ONE_ADDRESS; i++) {
      noted(
        call(noisyToken, 'POST', '/v1/onboarding-token', {
          email: 'flood@example.com',
          first_name: 'A',
          last_name: 'B',
        }),
      );
    }
    // 3. 200 user-status requests a second, fired without waiting for answers, from a thread of their own: in AWS
    // the flood's client is another machine, and here its work would otherwise share the stack's event loop.
    const floodStarts = performance.now();
    const floodEnds = floodStarts + FLOOD_SECONDS * 1000;
    const firing = runTimedPacedRequests({
      baseUrl: stack.baseUrl,
      token: noisyToken,
      method: 'POST',
      path: '/v1/user-status',
      body: noisyQuery,
      perSecond: FLOOD_REQUESTS_PER_SECOND,
      seconds: FLOOD_SECONDS,
    }).then((answers) => {
      for (const answer of answers) {
        noisyStatuses.push(answer.status);
        if (answer.refusal) noisyRefusals.push(answer.refusal);
      }
    });
    const runningA = sampleRunningStatements(admin, NOISY_STATEMENTS, () => performance.now() < floodEnds);

    // B, meanwhile: its steady queries, and a webhook test now and then.
    /** Each of B's queries under the flood: its time, and when it ended (ms after the flood began). */
    const underFlood: Array<{ ms: number; at: number }> = [];
    const quietStatuses: number[] = [];
    const queries = paced(
      () => performance.now() < floodEnds,
      ({ ms, status }) => {
        underFlood.push({ ms, at: performance.now() - floodStarts });
        quietStatuses.push(status);
      },
    );
    const sentAt = new Map<string, number>();
    const tests = (async () => {
      for (let i = 0; i < B_WEBHOOK_TESTS; i++) {
        const answer = await call(quietToken, 'POST', `/v1/webhooks/${quietEndpoint}/test`);
        quietStatuses.push(answer.status);
        if (answer.status === 202)
          sentAt.set(messageIdFor(answer.body.eventId as string, quietEndpoint), performance.now());
        await sleep((FLOOD_SECONDS * 1000) / B_WEBHOOK_TESTS);
      }
    })();
    // Where B's time goes: the router itself (a public route, no token, no database) and DynamoDB Local, probed
    // ten times a second during the flood. Informational rows: in AWS neither is shared this way.
    const documents = await context.localDocuments();
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const routerProbe: number[] = [];
    const newConnectionProbe: number[] = [];
    const dynamoDbProbe: number[] = [];
    // When A's burst is spent: the first probe that finds no token in A's bucket (GCRA: `tat` at least
    // `(burst - 1) / rate` ahead), in ms after the flood began.
    const budgetPolicy = {
      ratePerSecond: Number(stack.env.REQUEST_BUDGET_RATE ?? DEFAULT_REQUEST_BUDGET.ratePerSecond),
      burst: Number(stack.env.REQUEST_BUDGET_BURST ?? DEFAULT_REQUEST_BUDGET.burst),
    };
    let burstSpentAt: number | undefined;
    // A loop of its own: the other probes may take seconds each under the flood.
    const bucketWatch = (async () => {
      while (burstSpentAt === undefined && performance.now() < floodEnds) {
        const bucket = await documents
          .send(new GetCommand({ TableName: stack.env.REQUEST_BUDGETS_TABLE_NAME!, Key: { pk: `ORG#${noisy}` } }))
          .catch(() => undefined);
        const tat = bucket?.Item?.tat as number | undefined;
        if (tat !== undefined && tokensAvailable(tat, Date.now(), budgetPolicy) < 1)
          burstSpentAt = performance.now() - floodStarts;
        await sleep(50);
      }
    })();
    const probes = (async () => {
      while (performance.now() < floodEnds) {
        let startedAt = performance.now();
        await getPublicRoute(clients.get('probe')!);
        routerProbe.push(performance.now() - startedAt);
        startedAt = performance.now();
        await getPublicRoute(false);
        newConnectionProbe.push(performance.now() - startedAt);
        startedAt = performance.now();
        await documents
          .send(
            new GetCommand({ TableName: stack.env.ONBOARDING_TOKENS_TABLE_NAME!, Key: { pk: 'probe', sk: 'probe' } }),
          )
          .catch(() => undefined);
        dynamoDbProbe.push(performance.now() - startedAt);
        await sleep(100);
      }
    })();
    await Promise.all([firing, queries, tests, probes, bucketWatch]);
    const samplesOfA = await runningA;
    const floodBudgetWrites = { noisy: budgetWrites.get(noisy) ?? 0, quiet: budgetWrites.get(quiet) ?? 0 };
    loopDelay.disable();
    await Promise.all(flood);
    const waitUntil = performance.now() + 15_000;
    while (arrivals.size < sentAt.size && performance.now() < waitUntil) await sleep(100);

    const p99 = (samples: number[]) => summarize(samples, { p99: true }).p99!;
    const underFloodMs = underFlood.map(({ ms }) => ms);
    // B's queries by when they were sent: during A's admitted burst, or once it was spent. If the watch never saw
    // A's bucket dry (it sends at 4x its rate, so it is dry within a second or two), the second half of the flood.
    const spentAt = burstSpentAt ?? (FLOOD_SECONDS * 1000) / 2;
    const duringBurstMs = underFlood.filter(({ ms, at }) => at - ms < spentAt).map(({ ms }) => ms);
    const afterBurstMs = underFlood.filter(({ ms, at }) => at - ms >= spentAt).map(({ ms }) => ms);
    // Where in the flood B's answers beyond the budget fell, second by second: A's burst (its 60 tests, 50 e-mails
    // and 100 admitted queries) comes at the start, its steady 200 a second after.
    const slowerThanBudget = MAX_API_P99_RATIO * p99(baseline);
    const slowBySecond = Array.from(
      { length: FLOOD_SECONDS },
      (_, second) =>
        underFlood.filter(({ ms, at }) => ms > slowerThanBudget && Math.floor((at - ms) / 1000) === second).length,
    );
    const deliveries = [...sentAt].map(([messageId, at]) => (arrivals.get(messageId) ?? Number.POSITIVE_INFINITY) - at);
    const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;
    const concurrencyRefusals = noisyRefusals.filter((refusal) => refusal === 'concurrency').length;
    context.log(
      `noisy neighbour: A answered ${noisyStatuses.length} (${histogram(noisyStatuses)}), B ${quietStatuses.length} requests (${histogram(quietStatuses)}), ` +
        `${arrivals.size}/${sentAt.size} B deliveries`,
    );
    return [
      {
        measurement: this.title,
        subject: 'org B webhook delivery while A’s endpoints hang (test 202 to receipt)',
        unit: 'ms',
        value: summarize(deliveries, { p99: true }),
        budget: { on: 'p99', max: MAX_DELIVERY_MS },
      },
      neighbourRows.quietMedianUnderFlood(
        { measurement: this.title, subject: 'org B API median over A’s whole flood' },
        { quietMs: baseline, underFloodMs, floodSeconds: FLOOD_SECONDS },
        MAX_API_MEDIAN_RATIO,
      ),
      // Contract §25: B's p99 under A's flood is reported locally, budgeted against a deployed stage (`--target`).
      {
        measurement: this.title,
        subject: 'org B API p99 once A’s burst is spent (reported locally, contract §25; median column: p99)',
        unit: 'ms',
        value: single(p99(afterBurstMs.length > 0 ? afterBurstMs : underFloodMs.slice(-1))),
        baseline: { subject: 'org B quiet p99, same run', value: single(p99(baseline)) },
        note:
          (burstSpentAt === undefined
            ? `A’s bucket was never seen dry: the flood's second half, ${afterBurstMs.length} queries`
            : `A’s burst spent ${(burstSpentAt / 1000).toFixed(2)} s into the flood; ${afterBurstMs.length} queries after it`) +
          `; answers over 1.5x the quiet p99 by second of the flood in which they were sent: ${slowBySecond.join(', ')}`,
      },
      {
        measurement: this.title,
        subject: 'org B API p99 during A’s admitted burst (informational, median column: p99)',
        unit: 'ms',
        value: single(duringBurstMs.length > 0 ? p99(duringBurstMs) : 0),
        baseline: { subject: 'org B quiet p99, same run', value: single(p99(baseline)) },
        note: `${duringBurstMs.length} queries; the local stack shares two cores where Lambda gives each invocation its own`,
      },
      neighbourRows.quietP99UnderFlood(
        {
          measurement: this.title,
          subject: 'org B API p99 over A’s whole flood (reported locally, contract §25; median column: p99)',
        },
        { quietMs: baseline, underFloodMs },
        MAX_API_P99_RATIO,
      ),
      neighbourRows.statementsAtOnce(
        {
          measurement: this.title,
          subject: 'org A’s user-status statements running at once during its flood (pg_stat_activity, most sampled)',
        },
        samplesOfA,
        Number(stack.env.DATABASE_CONCURRENCY_PER_ORGANIZATION ?? 4),
      ),
      neighbourRows.quietRefused(
        { measurement: this.title, subject: 'org B requests answered 429 or not at all' },
        quietStatuses,
      ),
      {
        measurement: this.title,
        subject: 'the local router, a public route on a kept-alive connection, under the flood (informational)',
        unit: 'ms',
        value: summarize(routerProbe, { p99: true }),
      },
      {
        measurement: this.title,
        subject: 'the local router, a public route on a new connection, under the flood (informational)',
        unit: 'ms',
        value: summarize(newConnectionProbe, { p99: true }),
      },
      {
        measurement: this.title,
        subject: 'event loop delay of the process hosting the router and functions, under the flood (informational)',
        unit: 'ms',
        value: { median: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, n: loopDelay.count },
        note: `longest stall ${(loopDelay.max / 1e6).toFixed(0)} ms`,
      },
      {
        measurement: this.title,
        subject: 'DynamoDB Local GetItem under the flood (informational)',
        unit: 'ms',
        value: summarize(dynamoDbProbe, { p99: true }),
      },
      {
        measurement: this.title,
        subject: 'request budget writes of org A during its flood (informational)',
        unit: 'count',
        value: single(floodBudgetWrites.noisy),
        note:
          `over ${FLOOD_SECONDS} s in which ${count(noisyStatuses, 200)} of A's queries were let through ` +
          `(leases of up to 10 tokens); B: ${floodBudgetWrites.quiet} writes`,
      },
      {
        measurement: this.title,
        subject: 'org A requests answered 429 (its own budget and quotas)',
        unit: 'count',
        value: single(count(noisyStatuses, 429) - concurrencyRefusals),
        note: `of ${noisyStatuses.length} requests from A (${count(noisyStatuses, 0)} connections dropped)`,
      },
      {
        measurement: this.title,
        subject: 'org A requests answered 429 for its requests in flight (contract §25)',
        unit: 'count',
        value: single(concurrencyRefusals),
        note: `of ${noisyStatuses.length} requests from A; no RateLimit-*, Retry-After: 1`,
      },
    ] satisfies Row[];
  },
} satisfies Measurement;
