import { performance } from 'node:perf_hooks';
import { single, summarize, type Row } from './report.ts';
import { callLocalApi, createApiClient, runTimedPacedRequests } from './support/local-api.ts';
import { neighbourRows } from './support/running-statements.ts';
import type { PacedAnswer } from './support/paced-requests-worker.ts';
import { pacedCalls, pacedSamples, sleep } from './support/timing.ts';

/**
 * `npm run bench -- --target <api-url> --token-a <jwt> --token-b <jwt>`: the request parts of
 * measurements 12 (noisy neighbour) and 17 (expensive queries) against a deployed stage, no local
 * stack (contract §25). Organization B's steady 20 user-status queries a second, measured quiet
 * first, then under each of A's floods: 200 cheap queries a second, then 50 deep-offset queries a
 * second on a filter no index serves. Budgets per flood: B's median and B's p99 within 1.5x of
 * its quiet figures (locally the p99 is only reported: two cores run both organizations there),
 * no 429 for B. A's answers are reported, its refusals for requests in flight apart from the
 * others (its budget, the edge). There is no `pg_stat_activity` to sample: DSQL runs A's
 * statements. Every request it sends is counted (`requestsSent`).
 */

const B_QUERIES_PER_SECOND = 20;
const B_WARMUP = 5;
const MAX_B_MEDIAN_RATIO = 1.5;
const MAX_B_P99_RATIO = 1.5;
/** A's budget (50 a second, bursts of 100) refills in 2 s, and its slots come back as its last answers arrive. */
const BETWEEN_FLOODS_MS = 3_000;

const cheapQuery = { filters: { registration_status: 'active' }, pagination: { limit: 10, offset: 0 } };

/** The two floods, as measurements 12 and 17 send them. */
const FLOODS = [
  { title: '12 noisy neighbour (target)', what: 'cheap queries', perSecond: 200, body: cheapQuery },
  {
    title: '17 expensive queries (target)',
    what: 'deep-offset unindexed queries',
    perSecond: 50,
    body: { filters: { fmc_score: { gte: 0 } }, pagination: { limit: 50, offset: 99_000 } },
  },
] as const;

export interface TargetPlan {
  baseUrl: string;
  tokenA: string;
  tokenB: string;
  /** How long each flood lasts; B's quiet baseline is as many queries as it sends under one flood. */
  seconds: number;
  log(message: string): void;
}

/** A's requests per flood, and B's, for `seconds`: what one run sends (two checks, B's warm-up and baseline, the floods). */
export function requestsSent(seconds: number): { a: number; b: number } {
  const bPerPhase = Math.ceil(B_QUERIES_PER_SECOND * seconds);
  return {
    a: 1 + FLOODS.reduce((sum, flood) => sum + Math.ceil(flood.perSecond * seconds), 0),
    b: 1 + B_WARMUP + bPerPhase * (1 + FLOODS.length),
  };
}

/** The rows of both floods; throws (one line) when the stage cannot be reached or refuses a token. */
export async function measureTarget(plan: TargetPlan): Promise<Row[]> {
  const baseUrl = plan.baseUrl.replace(/\/+$/, '');
  const clientB = createApiClient(baseUrl);
  try {
    for (const [name, token] of [
      ['A', plan.tokenA],
      ['B', plan.tokenB],
    ] as const) {
      const answer = await callLocalApi(baseUrl, 'POST', '/v1/user-status', { token, body: cheapQuery }).catch(
        (error: unknown) => {
          throw new Error(`cannot reach ${baseUrl}: ${(error as { code?: string }).code ?? String(error)}`);
        },
      );
      if (answer.status !== 200)
        throw new Error(`organization ${name}'s token was refused: POST /v1/user-status answered ${answer.status}`);
    }

    const queryB = async (): Promise<{ ms: number; status: number }> => {
      const startedAt = performance.now();
      const answer = await callLocalApi(baseUrl, 'POST', '/v1/user-status', {
        token: plan.tokenB,
        client: clientB,
        body: cheapQuery,
      }).catch(() => ({ status: 0 }));
      return { ms: performance.now() - startedAt, status: answer.status };
    };
    const perPhase = Math.ceil(B_QUERIES_PER_SECOND * plan.seconds);
    plan.log(`target: B quiet, ${perPhase} queries`);
    const quiet = await pacedSamples(B_QUERIES_PER_SECOND, queryB, { warmup: B_WARMUP, runs: perPhase });

    const rows: Row[] = [];
    for (const [index, flood] of FLOODS.entries()) {
      if (index > 0) await sleep(BETWEEN_FLOODS_MS);
      plan.log(`target: A floods, ${flood.perSecond} ${flood.what} a second for ${plan.seconds} s`);
      const floodA = runTimedPacedRequests({
        baseUrl,
        token: plan.tokenA,
        method: 'POST',
        path: '/v1/user-status',
        body: flood.body,
        perSecond: flood.perSecond,
        seconds: plan.seconds,
      });
      const underFlood: Array<{ ms: number; status: number }> = [];
      await pacedCalls(
        B_QUERIES_PER_SECOND,
        queryB,
        (count) => count < perPhase,
        (answer) => void underFlood.push(answer),
      );
      rows.push(...floodRows(flood, quiet, underFlood, await floodA, plan.seconds));
    }
    return rows;
  } finally {
    clientB.destroy();
  }
}

function floodRows(
  flood: (typeof FLOODS)[number],
  quiet: number[],
  underFlood: ReadonlyArray<{ ms: number; status: number }>,
  answersA: readonly PacedAnswer[],
  seconds: number,
): Row[] {
  const ms = underFlood.map((answer) => answer.ms);
  const p99 = (samples: readonly number[]) => summarize(samples, { p99: true }).p99!;
  const countA = (status: number) => answersA.filter((answer) => answer.status === status).length;
  const inFlight = answersA.filter((answer) => answer.refusal === 'concurrency').length;
  return [
    neighbourRows.quietMedianUnderFlood(
      { measurement: flood.title, subject: `org B API median under A’s ${flood.what} at ${flood.perSecond}/s` },
      { quietMs: quiet, underFloodMs: ms, floodSeconds: seconds },
      MAX_B_MEDIAN_RATIO,
    ),
    {
      measurement: flood.title,
      subject: `org B API p99 under A’s ${flood.what} (median column: p99)`,
      unit: 'ms',
      value: single(p99(ms)),
      baseline: { subject: 'org B quiet p99, same run', value: single(p99(quiet)) },
      budget: { on: 'ratio', max: MAX_B_P99_RATIO },
      note: 'contract §25: budgeted against a deployed stage, reported locally (bench 12 and 17)',
    },
    neighbourRows.quietRefused(
      { measurement: flood.title, subject: `org B requests answered 429 or not at all, under A’s ${flood.what}` },
      underFlood.map(({ status }) => status),
    ),
    {
      measurement: flood.title,
      subject: 'org A requests refused for its requests in flight (429, contract §25; informational)',
      unit: 'count',
      value: single(inFlight),
      note:
        `of ${answersA.length}: ${countA(200)} x 200, ${countA(429) - inFlight} x 429 by another limit ` +
        `(its budget, the edge), ${countA(503)} x 503, ${countA(0)} dropped`,
    },
  ];
}
