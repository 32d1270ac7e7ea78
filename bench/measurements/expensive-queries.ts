import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { generateDemoUsers } from '#local/demo-users.ts';
import { LOCAL_CONTAINERS_PER_ORGANIZATION } from '#local/local-stack.ts';
import { connectAsAdmin } from '#local/seed-demo-data.ts';
import { PostgresUserWriter } from '#shared/adapters/postgres/user-writer.ts';
import { single, summarize, type Row } from '#bench/report.ts';
import { callLocalApi, createApiClient, runTimedPacedRequests, seedOrganization } from '#bench/support/local-api.ts';
import type { Measurement } from '#bench/support/measurement.ts';
import { neighbourRows, sampleRunningStatements } from '#bench/support/running-statements.ts';
import { pacedCalls, pacedSamples, sleep } from '#bench/support/timing.ts';

/**
 * 17. Expensive queries pay for themselves (contract §19), on a local stack of its own with the
 * contract's request budget (50 a second, burst 100). Organization A, 100,000 users, sends
 * deep-offset queries on a filter no index serves (`fmc_score`, offset 99,000: the page walks
 * nearly every row of A and the count reads them all) at its full rate, 50 a second, for
 * FLOOD_SECONDS; each costs 1 unit plus 1 per 100 ms of database time, charged as its statements
 * run, and once A's budget is spent its running statements are cut off (429).
 * Organization B, meanwhile, sends its steady 20 cheap queries a second, as measured quiet before
 * the flood. Budgets (contract §19): A's first 429 from its request budget within 5 s of the
 * flood's start. Budgets (contract §25): A's statements running at once, sampled from
 * `pg_stat_activity`, never more than its database concurrency limit (4); no 429 for B; B's median
 * over the whole flood within 1.5x of its quiet median. B's p99, over the queries it sent after
 * A's first budget 429 and over the whole flood, is reported, not budgeted (§25: budgeted only
 * against a deployed stage, `--target`). A's answers, its concurrency refusals apart from its
 * budget's, and how long its admitted queries took, are reported.
 *
 * The local stack runs at most 15 invocations of a function at once, at most 10 of them one
 * organization's (Lambda gives each invocation its own), and two cores: at most 4 of A's queries
 * run at once (its database requests in flight), the rest are refused at once, and B's queries
 * share the two cores with A's statements. The log shows, per second of the flood, A's answers and
 * B's slowest.
 */
const A_USERS = 100_000;
/** Users generated and written at a time, each chunk with its own seed. */
const CHUNK = 10_000;
const FLOOD_SECONDS = 10;
/** A's full rate: the contract's budget rate. */
const A_QUERIES_PER_SECOND = 50;
const B_QUERIES_PER_SECOND = 20;
const QUIET_QUERIES = 60;
const MAX_REFUSAL_MS = 5_000;
const MAX_B_P99_RATIO = 1.5;
const MAX_B_MEDIAN_RATIO = 1.5;
/** As in measurement 12: all the containers A may hold at once. */
const WARM_CONTAINERS = LOCAL_CONTAINERS_PER_ORGANIZATION;

const expensiveQuery = {
  filters: { fmc_score: { gte: 0 } },
  pagination: { limit: 50, offset: A_USERS - 1_000 },
};
const cheapQuery = { filters: { registration_status: 'active' }, pagination: { limit: 10, offset: 0 } };

const epochNow = () => performance.timeOrigin + performance.now();

export default {
  title: '17 expensive queries',
  async run(context) {
    const stack = await context.localStack();
    const noisy = `bench-expensive-${context.runId}`;
    const quiet = `bench-cheap-${context.runId}`;
    const admin = connectAsAdmin(stack.usersDatabase, 8);
    context.onClose(() => admin.close());
    const writer = new PostgresUserWriter<number>({ database: admin, orgId: noisy, concurrency: 4 });
    for (let start = 0; start < A_USERS; start += CHUNK) {
      const users = generateDemoUsers({
        orgId: noisy,
        count: CHUNK,
        seed: 5_000 + start / CHUNK,
        organizationName: 'A',
      });
      for (const [offset, user] of users.entries())
        await writer.put({ ...user, id: `e-${String(start + offset).padStart(7, '0')}` }, 0);
    }
    await writer.close();
    context.log(`expensive queries: ${A_USERS} users of A written`);
    await seedOrganization(context, quiet, 1_000);
    const noisyToken = await stack.issueToken({ orgId: noisy, scopes: ['users:read'] });
    const quietToken = await stack.issueToken({ orgId: quiet, scopes: ['users:read'] });
    const quietClient = createApiClient();
    context.onClose(() => Promise.resolve(quietClient.destroy()));

    // Warm containers, from a third organization, as in measurement 12: the flood meets warm functions.
    const warm = `bench-expensive-warm-${context.runId}`;
    await seedOrganization(context, warm, 10);
    const warmToken = await stack.issueToken({ orgId: warm, scopes: ['users:read'] });
    for (let round = 0; round < 2; round++)
      await Promise.all(
        Array.from({ length: WARM_CONTAINERS }, () =>
          callLocalApi(stack.baseUrl, 'POST', '/v1/user-status', { token: warmToken, body: cheapQuery }),
        ),
      );
    // A's query, once, from A itself: what one of them costs with nothing else running (and A's data read once).
    const soloStarted = performance.now();
    const solo = await callLocalApi(stack.baseUrl, 'POST', '/v1/user-status', {
      token: noisyToken,
      body: expensiveQuery,
    });
    const soloMs = performance.now() - soloStarted;
    if (solo.status !== 200) throw new Error(`A's query alone answered ${solo.status}`);
    // A's bucket refills before the flood (its one query may have cost several units).
    await sleep(3_000);

    const quietQuery = async (): Promise<{ ms: number; status: number; sentAt: number }> => {
      const sentAt = epochNow();
      const startedAt = performance.now();
      const answer = await callLocalApi(stack.baseUrl, 'POST', '/v1/user-status', {
        token: quietToken,
        client: quietClient,
        body: cheapQuery,
      }).catch(() => ({ status: 0 }));
      return { ms: performance.now() - startedAt, status: answer.status, sentAt };
    };
    /** B's steady pace, one query at a time, until `more()` says stop. */
    const paced = (more: (count: number) => boolean, each: (answer: Awaited<ReturnType<typeof quietQuery>>) => void) =>
      pacedCalls(B_QUERIES_PER_SECOND, quietQuery, more, each);
    const baseline = await pacedSamples(B_QUERIES_PER_SECOND, quietQuery, { warmup: 10, runs: QUIET_QUERIES });

    context.log('expensive queries: A floods');
    const floodSentFrom = epochNow();
    const floodEnds = performance.now() + FLOOD_SECONDS * 1000;
    const flood = runTimedPacedRequests({
      baseUrl: stack.baseUrl,
      token: noisyToken,
      method: 'POST',
      path: '/v1/user-status',
      body: expensiveQuery,
      perSecond: A_QUERIES_PER_SECOND,
      seconds: FLOOD_SECONDS,
    });
    const underFlood: Array<{ ms: number; status: number; sentAt: number }> = [];
    // A's statements alone filter on fmc_score: B's cheap query and the warm-up never do.
    const aRunning = sampleRunningStatements(admin, '%fmc_score%', () => performance.now() < floodEnds);
    await paced(
      () => performance.now() < floodEnds,
      (answer) => void underFlood.push(answer),
    );
    const answers = await flood;
    const runningA = await aRunning;
    // The flood begins with A's first request: the load generator (a worker thread) takes a moment to start.
    const floodStarts = Math.min(floodSentFrom + FLOOD_SECONDS * 1000, ...answers.map((answer) => answer.sentAt));

    // A's budget refuses with RateLimit-*, its requests in flight without (contract §25): the message tells them apart.
    const budgetRefusals = answers.filter((answer) => answer.status === 429 && answer.refusal !== 'concurrency');
    const concurrencyRefusals = answers.filter((answer) => answer.refusal === 'concurrency');
    const firstAnswerAt = (of: typeof answers) =>
      of.length > 0 ? Math.min(...of.map((answer) => answer.answeredAt)) : Number.POSITIVE_INFINITY;
    const firstRefusedAt = firstAnswerAt(budgetRefusals);
    const firstConcurrencyRefusalAt = firstAnswerAt(concurrencyRefusals);
    const admitted = answers.filter((answer) => answer.status === 200);
    const afterRefusal = underFlood.filter((answer) => answer.sentAt >= firstRefusedAt).map(({ ms }) => ms);
    const underFloodMs = underFlood.map(({ ms }) => ms);
    const p99 = (samples: number[]) => summarize(samples, { p99: true }).p99!;
    const count = (status: number) => answers.filter((answer) => answer.status === status).length;
    const lastAdmittedAnswer =
      admitted.length > 0 ? Math.max(...admitted.map((answer) => answer.answeredAt)) : floodStarts;
    context.log(
      `expensive queries: A ${answers.length} requests (${count(200)} x 200, ${budgetRefusals.length} x 429 budget, ` +
        `${concurrencyRefusals.length} x 429 in flight, ${count(503)} x 503, ${count(0)} dropped), first budget 429 ` +
        `${(firstRefusedAt - floodStarts).toFixed(0)} ms in; B ${underFlood.length} queries`,
    );
    context.log(`expensive queries, by second of the flood: ${floodTimeline(floodStarts, answers, underFlood)}`);
    return [
      {
        measurement: this.title,
        subject: `org A (${A_USERS.toLocaleString('en')} users, deep-offset unindexed queries at ${A_QUERIES_PER_SECOND}/s) first refused by its request budget (429), after its flood began`,
        unit: 'ms',
        value: single(firstRefusedAt - floodStarts),
        budget: { on: 'median', max: MAX_REFUSAL_MS },
        note:
          `${answers.length} requests: ${count(200)} admitted, ${budgetRefusals.length} refused by the budget, ` +
          `${concurrencyRefusals.length} for requests in flight, ${count(503)} x 503, ${count(0)} dropped; ` +
          `the last admitted one answered ${((lastAdmittedAnswer - floodStarts) / 1000).toFixed(1)} s in`,
      },
      {
        measurement: this.title,
        subject: 'org A requests refused for its requests in flight (429, contract §25; informational)',
        unit: 'count',
        value: single(concurrencyRefusals.length),
        note: Number.isFinite(firstConcurrencyRefusalAt)
          ? `the first ${(firstConcurrencyRefusalAt - floodStarts).toFixed(0)} ms into the flood; no RateLimit-*, Retry-After: 1`
          : 'none',
      },
      neighbourRows.statementsAtOnce(
        {
          measurement: this.title,
          subject: 'org A’s statements running at once during its flood (pg_stat_activity, most sampled)',
        },
        runningA,
        Number(stack.env.DATABASE_CONCURRENCY_PER_ORGANIZATION ?? 4),
      ),
      // Contract §25: B's p99 under A's flood is reported locally, where two cores run both organizations' statements,
      // and budgeted against a deployed stage (`--target`).
      {
        measurement: this.title,
        subject: 'org B API p99 once A’s budget refuses it (reported locally, contract §25; median column: p99)',
        unit: 'ms',
        value: single(p99(afterRefusal.length > 0 ? afterRefusal : underFlood.map(({ ms }) => ms))),
        baseline: { subject: 'org B quiet p99, same run', value: single(p99(baseline)) },
        note:
          afterRefusal.length > 0
            ? `${afterRefusal.length} of B's ${underFlood.length} queries were sent after A's first budget 429`
            : `${Number.isFinite(firstRefusedAt) ? "A's first budget 429 came after B's last query" : 'A’s budget never refused it'}: ` +
              `B's whole flood, ${underFlood.length} queries`,
      },
      neighbourRows.quietMedianUnderFlood(
        { measurement: this.title, subject: 'org B API median over A’s whole expensive flood' },
        { quietMs: baseline, underFloodMs, floodSeconds: FLOOD_SECONDS },
        MAX_B_MEDIAN_RATIO,
      ),
      neighbourRows.quietP99UnderFlood(
        {
          measurement: this.title,
          subject: 'org B API p99 over A’s whole expensive flood (reported locally, contract §25; median column: p99)',
        },
        { quietMs: baseline, underFloodMs },
        MAX_B_P99_RATIO,
      ),
      neighbourRows.quietRefused(
        { measurement: this.title, subject: 'org B requests answered 429 or not at all, under A’s expensive flood' },
        underFlood.map(({ status }) => status),
      ),
      {
        measurement: this.title,
        subject: 'org A’s admitted deep-offset queries, answer time (informational)',
        unit: 'ms',
        value:
          admitted.length > 0
            ? summarize(
                admitted.map((answer) => answer.answeredAt - answer.sentAt),
                { p99: true },
              )
            : single(0),
        baseline: { subject: 'the same query alone, before the flood', value: single(soloMs) },
        note: 'each charged 1 unit + 1 per 100 ms of database time, as it runs',
      },
      {
        measurement: this.title,
        subject: `PostgreSQL processes running A's statements at once during the flood, on ${availableParallelism()} cores (informational)`,
        unit: 'count',
        value: summarize(
          runningA.map(({ processes }) => processes),
          { p99: true },
        ),
        note:
          'backends and their parallel workers, sampled every 50 ms; A’s budget (50 units a second, 1 per 100 ms of ' +
          'database time) buys up to 5 statement-seconds a second, which B shares the cores with',
      },
    ] satisfies Row[];
  },
} satisfies Measurement;

/**
 * Per second of the flood (by send time): A's answers (200 / 429 and their median answer time)
 * and B's slowest answer, for the log: where the time went.
 */
function floodTimeline(
  floodStarts: number,
  answers: ReadonlyArray<{ status: number; sentAt: number; answeredAt: number }>,
  quiet: ReadonlyArray<{ ms: number; sentAt: number }>,
): string {
  const second = (at: number) => Math.floor((at - floodStarts) / 1000);
  const median = (values: number[]) => (values.length === 0 ? 0 : values.sort((a, b) => a - b)[values.length >> 1]!);
  const parts: string[] = [];
  for (let s = 0; s < FLOOD_SECONDS; s++) {
    const of = answers.filter((answer) => second(answer.sentAt) === s);
    const took = (status: number) =>
      of.filter((answer) => answer.status === status).map((answer) => answer.answeredAt - answer.sentAt);
    const ok = took(200);
    const refused = took(429);
    const b = quiet.filter((answer) => second(answer.sentAt) === s).map(({ ms }) => ms);
    parts.push(
      `${s}s A ${ok.length}x200 (${median(ok).toFixed(0)} ms) ${refused.length}x429 (${median(refused).toFixed(0)} ms), ` +
        `B ${b.length} max ${Math.max(0, ...b).toFixed(0)} ms`,
    );
  }
  return parts.join('; ');
}
