import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { generateDemoUsers } from '#local/demo-users.ts';
import { connectAsAdmin } from '#local/seed-demo-data.ts';
import type { LocalUsersDatabase } from '#local/users-postgres.ts';
import { importUserLines } from '#scripts/users-import/import-user-lines.ts';
import { PostgresUserDirectory } from '#shared/adapters/postgres/user-directory.ts';
import { emailKeyOf } from '#shared/adapters/postgres/user-rows.ts';
import { buildUserStatusStatements, walkPays, type SqlStatement } from '#shared/adapters/postgres/user-status-sql.ts';
import { PostgresUserWriter } from '#shared/adapters/postgres/user-writer.ts';
import { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { nameWordsOf } from '#shared/domain/users/user-search.ts';
import type { UserFilter, UserStatusQuery } from '#shared/domain/users/user-status-query.ts';
import { userStatusRequestSchema } from '#shared/schemas/user-status-schemas.ts';
import { parseInput } from '#shared/http/validation.ts';
import { single, summarize, type Budget, type Row } from '#bench/report.ts';
import { callLocalApi } from '#bench/support/local-api.ts';
import type { Measurement } from '#bench/support/measurement.ts';

/**
 * 7. POST /v1/user-status on the local stack's PostgreSQL (Aurora DSQL's stand-in) with one large
 * organization (`--users n`, default 10,000) among n more users in four other organizations.
 *
 * Each query of the bench set is answered through the router and the real handler (which
 * connects as `users_reader`, as in AWS) and, interleaved with it, by its baseline: exactly the
 * statements the handler runs (buildUserStatusStatements' page, then the count unless the page
 * already ends the matches, as PostgresUserStatusReader does), sent with a plain `pg` client as
 * the same role. The engine is the limit, so a query's median may be at most 1.3x its
 * baseline's + 5 ms (router, JWT, validation, the pool and the response on top of the SQL), and
 * at most 150 ms up to 100,000 users, 500 ms at 1,000,000; a `filters.search` query
 * at most 500 ms at any size. Each query is also checked
 * exact once: the API's `total` and page ids against the same statements run directly, and the
 * total against a count made while the users were generated (the filters evaluated in
 * JavaScript on every generated record).
 *
 * Seeding: the other organizations are written with PostgresUserWriter directly; the large one
 * is written as a JSON Lines file first and then imported with importUserLines read from that
 * file, as `npm run users:import` does (4 statements in flight, a pool of 8): that import is
 * timed (budget: 1,000,000 users in 5 minutes, i.e. 0.3 ms a user). Users are the demo
 * generator's, made in chunks of 10,000 with distinct seeds and ids of at most 16 characters.
 * No VACUUM (Aurora DSQL has none) and no manual ANALYZE: the import refreshes the statistics
 * itself. Right after it, with the function warm, the no-filter page with its total is timed ten
 * times: the first at most 1.5x the tenth and at most 150 ms. Then two importers write the same
 * 1,000 users at once, ten rounds, each with a pool of its own: no error, the conflicts retried
 * (counted), every user and its search words there after each round.
 *
 * Also: the worker's user read (PostgresUserDirectory.find, a random id, one connection as
 * `users_reader`, as in Lambda), p50 <= 5 ms. And every query's EXPLAIN (ANALYZE, BUFFERS), page
 * and count, written to bench/results/user-status-plans-<n>.txt (printed too with `--explain`).
 */
const USERS = Number(process.env.BENCH_USERS ?? 10_000);
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const OTHER_ORGANIZATIONS = 4;
/** Users generated and written at a time (generating a million at once would not fit in memory). */
const CHUNK = 10_000;
const WARMUP_ROUNDS = 2;
/** Even (see the timing loop). */
const ROUNDS = 20;
/** The API's median against the same SQL's: at most 1.3x + 5 ms. */
const RATIO_BUDGET: Budget = { on: 'ratio', max: 1.3, plus: 5 };
/** Issue 15: 150 ms at 100,000 users (and, generously, below), 500 ms at 1,000,000, linear between. */
/** A search: 500 ms at any size up to 1,000,000 (its broadest prefixes match a large part of an organization). */
const MAX_SEARCH_MS = 500;
const MAX_QUERY_MS = Math.round(
  USERS <= 100_000 ? 150 : USERS <= 1_000_000 ? 150 + (350 * (USERS - 100_000)) / 900_000 : (500 * USERS) / 1_000_000,
);
/** 1,000,000 users in 5 minutes; at least 10 s (small imports are mostly the validator warming up). */
const IMPORT_MS_PER_USER = 0.3;
const MIN_IMPORT_BUDGET_S = 10;
const FIND_P50_MAX_MS = 5;
/** The first no-filter query after an import against the tenth run of it: at most 1.5x, and 150 ms. */
const FIRST_QUERY_RATIO = 1.5;
const FIRST_QUERY_MAX_MS = 150;
const FIRST_QUERY_RUNS = 10;
/** The write race: two importers of the same users, this many rounds. */
const RACE_USERS = 1_000;
const RACE_ROUNDS = 10;
const FINDS = 500;
const FIND_WARMUP = 50;

const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'results');

type Body = { filters?: Record<string, unknown>; pagination?: { limit?: number; offset?: number } };

interface BenchQuery {
  label: string;
  body: Body;
}

/** The bench set, its values taken from a generated user so every equality filter matches. */
function benchQueries(sample: UserRecord): BenchQuery[] {
  const deepOffset = USERS - 1_000;
  return [
    {
      label: '(a) registration_status pending + age 30-49',
      body: { filters: { registration_status: 'pending', age: { gte: 30, lt: 50 } } },
    },
    { label: `(b) city = ${sample.city}`, body: { filters: { city: sample.city } } },
    { label: `(c) last_name = ${sample.last_name}`, body: { filters: { last_name: sample.last_name } } },
    { label: '(d) dob in the first half of 1985', body: { filters: { dob: { gte: '1985-01-01', lt: '1985-07-01' } } } },
    {
      label: `(e) selfie_liveness_score >= 0.8, fmc_score >= 0.8, country = ${sample.country}`,
      body: {
        filters: { selfie_liveness_score: { gte: 0.8 }, fmc_score: { gte: 0.8 }, country: sample.country },
      },
    },
    { label: '(f) email, mixed case', body: { filters: { email: mixedCase(sample.email!) } } },
    {
      label: `(g) created_at in September 2025 + high_level_result = ${sample.high_level_result}`,
      body: {
        filters: {
          created_at: { gte: '2025-09-01T00:00:00.000Z', lt: '2025-10-01T00:00:00.000Z' },
          high_level_result: sample.high_level_result,
        },
      },
    },
    { label: '(h) no filter', body: {} },
    { label: `(i) no filter, offset ${deepOffset.toLocaleString('en')}`, body: { pagination: { offset: deepOffset } } },
    // filters.search (docs/user-status.md "Search"): word starts by the word table, e-mail starts by users_by_email_prefix.
    {
      label: `(j) search "${searchPrefix(sample.last_name!, 3)}" (start of a name word)`,
      body: { filters: { search: searchPrefix(sample.last_name!, 3) } },
    },
    {
      label: `(k) search "${sample.first_name} ${searchPrefix(sample.last_name!, 2)}" (two words)`,
      body: { filters: { search: `${sample.first_name} ${searchPrefix(sample.last_name!, 2)}` } },
    },
    { label: '(l) search "m" (one letter: the broadest)', body: { filters: { search: 'm' } } },
  ];
}

/** The first `length` characters of a word, lower-cased as a person would type them. */
const searchPrefix = (word: string, length: number): string => [...word.toLowerCase()].slice(0, length).join('');

/** The body as the handler parses it (validation, defaults, filters normalised). */
const toQuery = (body: Body): UserStatusQuery => parseInput(userStatusRequestSchema, body);

/** `DuNg.dAnG@ExAmPlE.CoM` for `dung.dang@example.com`: the filter must fold case. */
const mixedCase = (email: string): string =>
  [...email].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c.toLowerCase())).join('');

/** `count` users from `start` of an organization: a seed per chunk and organization, ids `<prefix><7 digits>`. */
function generateChunk(orgId: string, seedBase: number, idPrefix: string, start: number, count: number): UserRecord[] {
  const users = generateDemoUsers({
    orgId,
    count,
    seed: seedBase + start / CHUNK,
    organizationName: `Benchmark ${orgId}`,
  });
  return users.map((user, offset) => ({ ...user, id: `${idPrefix}${String(start + offset).padStart(7, '0')}` }));
}

interface PreparedQuery extends BenchQuery {
  parsed: UserStatusQuery;
  statements: { page: SqlStatement; count: SqlStatement; walkPage?: SqlStatement };
  /** Matches among the generated users, counted in JavaScript. */
  generatedMatches: number;
}

export default {
  title: '7 user-status queries',
  async run(context) {
    if (USERS > 10_000_000 - 1) throw new Error('ids have 7 digits: at most 9,999,999 users');
    const stack = await context.localStack();
    const orgId = `bench-users-${context.runId}`;
    const users = `${USERS.toLocaleString('en')} users`;
    // As `users:import` connects: the superuser, a pool of 8.
    const admin = connectAsAdmin(stack.usersDatabase, 8);
    context.onClose(() => admin.close());

    // 1. The other organizations, through the writer.
    const othersStarted = performance.now();
    await seedOtherOrganizations(admin, context.runId, (written) =>
      context.log(`user status: other organizations, ${written} of ${USERS} users written`),
    );
    const othersSeconds = (performance.now() - othersStarted) / 1000;
    context.log(
      `user status: ${USERS} users of ${OTHER_ORGANIZATIONS} other organizations in ${othersSeconds.toFixed(1)} s`,
    );

    // 2. The large organization as a JSON Lines file (not timed), counting each query's matches.
    await mkdir(context.workDir, { recursive: true });
    const file = path.join(context.workDir, 'bench-users.jsonl');
    const generateStarted = performance.now();
    const queries = await writeUserLines(file, orgId, (written) =>
      context.log(`user status: ${written} of ${USERS} lines generated`),
    );
    context.log(`user status: ${file} written in ${((performance.now() - generateStarted) / 1000).toFixed(1)} s`);

    // 3. The import, timed.
    const importStarted = performance.now();
    let lastLogged = 0;
    const rejected: string[] = [];
    const counts = await importUserLines({
      lines: createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity }),
      orgId,
      database: admin,
      writer: { concurrency: 4 },
      onRejected: ({ lineNumber, problems }) => void rejected.push(`line ${lineNumber}: ${problems.join('; ')}`),
      onProgress: ({ imported }) => {
        if (imported - lastLogged >= 100_000) {
          lastLogged = imported;
          context.log(`user status: ${imported} of ${USERS} imported`);
        }
      },
    });
    const importSeconds = (performance.now() - importStarted) / 1000;
    await rm(file, { force: true });
    if (counts.imported !== USERS || counts.rejected !== 0)
      throw new Error(
        `the import stored ${counts.imported} of ${USERS} users, ${counts.rejected} rejected (${rejected.slice(0, 3).join(' / ')})`,
      );
    context.log(`user status: ${USERS} users imported in ${importSeconds.toFixed(1)} s`);

    // The baseline's connection and the worker's pool: both users_reader, as the handler's pool.
    const direct = new pg.Client(clientConfig(stack.usersDatabase));
    await direct.connect();
    context.onClose(() => direct.end());
    const readerPool = readerDatabase(stack.usersDatabase);
    context.onClose(() => readerPool.close());
    const token = await stack.issueToken({ orgId, scopes: ['users:read'] });

    // 4. The first query after the import, with the function warm: no VACUUM, no manual step (the
    // import refreshed the statistics itself). Warmed by a query that reads none of the pages the
    // no-filter query reads (an e-mail no user has), then the no-filter page with its total, ten times.
    const noFilterMs = await firstQueriesAfterImport(stack.baseUrl, token);
    const hugePages = (await direct.query<{ huge_pages_status: string }>('SHOW huge_pages_status')).rows[0]!
      .huge_pages_status;
    context.log(
      `user status: first no-filter query after the import ${noFilterMs[0]!.toFixed(1)} ms, tenth ${noFilterMs[9]!.toFixed(1)} ms`,
    );

    // 4b. Two importers of the same users at once: every conflict retried, none an error.
    const race = await importRace(stack.usersDatabase, context.runId);
    context.log(`user status: import race: ${race.errors.length} errors, ${race.retries} conflicts retried`);

    const prepared = queries.map((query): PreparedQuery => {
      const parsed = toQuery(query.body);
      const window = { offset: parsed.offset, limit: parsed.limit, fields: parsed.resultKeys };
      return { ...query, parsed, statements: buildUserStatusStatements(orgId, parsed.filters, window) };
    });

    /** One answer through the API, as ids and total. */
    const viaService = async (query: PreparedQuery): Promise<{ ids: string[]; total: number }> => {
      const { status, body } = await callLocalApi(stack.baseUrl, 'POST', '/v1/user-status', {
        token,
        body: query.body,
      });
      if (status !== 200) throw new Error(`${query.label}: ${status} ${JSON.stringify(body).slice(0, 300)}`);
      return {
        ids: (body.results as Array<{ id: string }>).map((result) => result.id),
        total: body.pagination.total as number,
      };
    };
    /** The same statements as PostgresUserStatusReader, on the plain client; `alwaysCount` for the exactness check. */
    const viaSql = async (query: PreparedQuery, alwaysCount = false): Promise<{ ids: string[]; total: number }> => {
      const { page, count, walkPage } = query.statements;
      if (walkPage) {
        // A search alone: counted first, the count picks the page's statement (PostgresUserStatusReader).
        const total = (await direct.query<{ total: number }>(count.text, count.values)).rows[0]!.total;
        const chosen = walkPays(total, query.parsed) ? walkPage : page;
        const rows = total === 0 ? [] : (await direct.query<{ id: string }>(chosen.text, chosen.values)).rows;
        return { ids: rows.map((row) => row.id), total };
      }
      const rows = (await direct.query<{ id: string }>(page.text, page.values)).rows;
      const pageEndsMatches = rows.length > 0 && rows.length < query.parsed.limit;
      const total =
        pageEndsMatches && !alwaysCount
          ? query.parsed.offset + rows.length
          : (await direct.query<{ total: number }>(count.text, count.values)).rows[0]!.total;
      return { ids: rows.map((row) => row.id), total };
    };

    // 5. Exactness, once per query.
    const exactness = new Map<PreparedQuery, { exact: boolean; note: string }>();
    for (const query of prepared) {
      const service = await viaService(query);
      const sql = await viaSql(query, true);
      const idsEqual = service.ids.length === sql.ids.length && service.ids.every((id, i) => id === sql.ids[i]);
      const exact = idsEqual && service.total === sql.total && sql.total === query.generatedMatches;
      exactness.set(query, {
        exact,
        note:
          `total ${service.total.toLocaleString('en')} (same SQL directly: ${sql.total.toLocaleString('en')}, ` +
          `generated data: ${query.generatedMatches.toLocaleString('en')}); page of ${service.ids.length} ids ` +
          `${idsEqual ? 'equal to' : 'DIFFERENT from'} the direct SQL's${exact ? '' : ' [NOT EXACT]'}`,
      });
    }

    // 6. Timing. At 1,000,000 users a query reads thousands of pages the 128 MB of shared buffers
    // do not keep, so what ran just before matters: a query right after itself is faster (its pages
    // still cached). So a round runs every query through the service, then every query directly
    // (or the other way round, alternating), in the same rotating order in both halves: each
    // execution follows the same other query in both paths, and an even number of rounds gives
    // each half the first place equally often. Load on the shared machine hits both alike.
    const serviceMs = prepared.map((): number[] => []);
    const sqlMs = prepared.map((): number[] => []);
    for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
      const keep = round >= WARMUP_ROUNDS;
      const order = prepared.map((_, k) => (k + round) % prepared.length);
      const halves: Array<[number[][], (query: PreparedQuery) => Promise<unknown>]> = [
        [serviceMs, viaService],
        [sqlMs, (query) => viaSql(query)],
      ];
      if (round % 2 === 1) halves.reverse();
      for (const [samples, subject] of halves) {
        for (const index of order) {
          const startedAt = performance.now();
          await subject(prepared[index]!);
          const elapsed = performance.now() - startedAt;
          if (keep) samples[index]!.push(elapsed);
        }
      }
      if (USERS >= 100_000) context.log(`user status: round ${round + 1} of ${WARMUP_ROUNDS + ROUNDS} done`);
    }

    // 7. The worker's read of one user.
    const directory = new PostgresUserDirectory(readerPool);
    const findMs: number[] = [];
    for (let i = 0; i < FIND_WARMUP + FINDS; i++) {
      const userId = `u-${String(Math.floor(Math.random() * USERS)).padStart(7, '0')}`;
      const startedAt = performance.now();
      const user = await directory.find(orgId, userId);
      const elapsed = performance.now() - startedAt;
      if (user?.id !== userId) throw new Error(`user ${userId} was not found`);
      if (i >= FIND_WARMUP) findMs.push(elapsed);
    }

    // 8. The plans the timings rest on.
    const plans = await explainAll(direct, prepared);
    const plansFile = path.join(resultsDir, `user-status-plans-${USERS}.txt`);
    await mkdir(resultsDir, { recursive: true });
    await writeFile(plansFile, plans);
    context.log(`user status: plans written to ${plansFile}`);
    if (EXPLAIN) process.stderr.write(`\n${plans}\n`);

    const notExact = prepared.filter((query) => !exactness.get(query)!.exact);
    return [
      {
        measurement: this.title,
        subject: `import of ${users} (importUserLines, JSON Lines file, 4 statements in flight)`,
        unit: 's',
        value: single(importSeconds),
        budget: { on: 'median', max: Math.max(MIN_IMPORT_BUDGET_S, Math.round(USERS * IMPORT_MS_PER_USER) / 1000) },
        note: `${Math.round(USERS / importSeconds).toLocaleString('en')} users/s (budget: 1,000,000 users in 5 min, 3,333 users/s)`,
      },
      {
        measurement: this.title,
        subject: `import rate (${users})`,
        unit: 'users/s',
        value: single(USERS / importSeconds),
      },
      {
        measurement: this.title,
        subject: `seed of ${users} in ${OTHER_ORGANIZATIONS} other organizations (PostgresUserWriter, generation included)`,
        unit: 's',
        value: single(othersSeconds),
      },
      {
        measurement: this.title,
        subject: `first no-filter page with total after the import, function warm (${users})`,
        unit: 'ms',
        value: single(noFilterMs[0]!),
        baseline: { subject: 'the tenth run of the same query', value: single(noFilterMs[9]!) },
        budget: [
          { on: 'ratio', max: FIRST_QUERY_RATIO },
          { on: 'median', max: FIRST_QUERY_MAX_MS },
        ],
        note: `runs 1-10: ${noFilterMs.map((ms) => ms.toFixed(0)).join(', ')} ms; the import ran ANALYZE, nothing else did; shared buffers on huge pages: ${hugePages}`,
      },
      {
        measurement: this.title,
        subject: `import race: two importers of the same ${RACE_USERS.toLocaleString('en')} users, ${RACE_ROUNDS} rounds, errors`,
        unit: 'count',
        value: single(race.errors.length),
        budget: { on: 'median', max: 0 },
        note:
          race.errors.length > 0
            ? race.errors.slice(0, 3).join(' / ')
            : `${race.retries} conflicts retried; every round left ${RACE_USERS.toLocaleString('en')} users with their words`,
      },
      {
        measurement: this.title,
        subject: `import race: conflicts retried (${RACE_ROUNDS} rounds of two importers)`,
        unit: 'count',
        value: single(race.retries),
        note: 'statements and transactions run again after a 40001 (repeatable read, as DSQL)',
      },
      ...prepared.map((query, index): Row => ({
        measurement: this.title,
        subject: `${query.label} (${users})`,
        unit: 'ms',
        value: summarize(serviceMs[index]!, { p99: true }),
        baseline: { subject: 'the same SQL, plain pg client', value: summarize(sqlMs[index]!, { p99: true }) },
        budget: [
          RATIO_BUDGET,
          { on: 'median', max: query.parsed.filters.some((f) => f.kind === 'search') ? MAX_SEARCH_MS : MAX_QUERY_MS },
        ],
        note: exactness.get(query)!.note,
      })),
      {
        measurement: this.title,
        subject: `queries not exact (total or page ids differ; ${users})`,
        unit: 'count',
        value: single(notExact.length),
        budget: { on: 'median', max: 0 },
        ...(notExact.length > 0 ? { note: notExact.map((query) => query.label).join('; ') } : {}),
      },
      {
        measurement: this.title,
        subject: `worker user read: PostgresUserDirectory.find, random id (${users})`,
        unit: 'ms',
        value: summarize(findMs, { p99: true }),
        budget: { on: 'median', max: FIND_P50_MAX_MS },
      },
    ];
  },
} satisfies Measurement;

// ---------------------------------------------------------------------------------------------
// The first query after the import, and the import race

/** Ten runs of the no-filter query, after two that warm the function without reading its pages. */
async function firstQueriesAfterImport(baseUrl: string, token: string): Promise<number[]> {
  for (let i = 0; i < 2; i++) {
    const { status } = await callLocalApi(baseUrl, 'POST', '/v1/user-status', {
      token,
      body: { filters: { email: 'nobody@bench.invalid' } },
    });
    if (status !== 200) throw new Error(`warm-up query: ${status}`);
  }
  const runs: number[] = [];
  for (let i = 0; i < FIRST_QUERY_RUNS; i++) {
    const startedAt = performance.now();
    const { status } = await callLocalApi(baseUrl, 'POST', '/v1/user-status', { token, body: {} });
    runs.push(performance.now() - startedAt);
    if (status !== 200) throw new Error(`no-filter query: ${status}`);
  }
  return runs;
}

/**
 * RACE_ROUNDS rounds of two importers (importUserLines, each with a pool of its own, as two
 * `users:import` processes) writing the same RACE_USERS users of one organization at once, each
 * round's records changed so every row is written again. After each round every user must be
 * stored once with the words of the name it kept.
 */
async function importRace(
  usersDatabase: LocalUsersDatabase,
  runId: string,
): Promise<{ errors: string[]; retries: number }> {
  const orgId = `bench-race-${runId}`;
  const importers = [connectAsAdmin(usersDatabase, 4), connectAsAdmin(usersDatabase, 4)];
  const errors: string[] = [];
  try {
    for (let round = 0; round < RACE_ROUNDS; round++) {
      const users = generateChunk(orgId, 7_000 + round, 'r-', 0, RACE_USERS);
      const lines = users.map((user) => JSON.stringify(user));
      const outcomes = await Promise.allSettled(
        importers.map((database) =>
          importUserLines({ lines: linesOf(lines), orgId, database, writer: { concurrency: 4 } }),
        ),
      );
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') errors.push(`round ${round + 1}: ${(outcome.reason as Error).message}`);
        else if (outcome.value.imported !== RACE_USERS || outcome.value.rejected !== 0)
          errors.push(`round ${round + 1}: imported ${outcome.value.imported}, rejected ${outcome.value.rejected}`);
      }
      const [stored] = await importers[0]!.query<{ users: number; without_words: number }>(
        `SELECT count(*)::int AS users,
                count(*) FILTER (WHERE name IS NOT NULL AND NOT EXISTS (
                  SELECT 1 FROM user_name_words w WHERE w.org_id = u.org_id AND w.user_id = u.id))::int AS without_words
           FROM users u WHERE org_id = $1`,
        [orgId],
      );
      if (stored!.users !== RACE_USERS || stored!.without_words !== 0)
        errors.push(`round ${round + 1}: ${stored!.users} users stored, ${stored!.without_words} without their words`);
    }
    return { errors, retries: importers.reduce((sum, database) => sum + database.conflictRetries, 0) };
  } finally {
    await Promise.all(importers.map((database) => database.close()));
  }
}

async function* linesOf(lines: readonly string[]): AsyncIterable<string> {
  for (const line of lines) {
    yield line;
    // Lets the other importer's batches interleave with this one's, as two processes would.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

// ---------------------------------------------------------------------------------------------
// Seeding

/** USERS users over the other organizations (ids `o<k>-<7 digits>`), generated and written chunk by chunk. */
async function seedOtherOrganizations(
  database: PostgresUsersDatabase,
  runId: string,
  progress: (written: number) => void,
): Promise<void> {
  let written = 0;
  for (let k = 0; k < OTHER_ORGANIZATIONS; k++) {
    const orgId = `bench-other-${k + 1}-${runId}`;
    const size = Math.floor(USERS / OTHER_ORGANIZATIONS) + (k < USERS % OTHER_ORGANIZATIONS ? 1 : 0);
    const writer = new PostgresUserWriter<number>({ database, orgId, concurrency: 4 });
    for (let start = 0; start < size; start += CHUNK) {
      // Generated records are valid by construction (the demo generator's tests); written as they are.
      for (const user of generateChunk(orgId, 100_000 * (k + 1), `o${k + 1}-`, start, Math.min(CHUNK, size - start)))
        await writer.put(user, 0);
      written += Math.min(CHUNK, size - start);
      if (written % 100_000 === 0 || written === USERS) progress(written);
    }
    await writer.close();
  }
}

/**
 * The large organization's users as JSON Lines (ids `u-<7 digits>`), chunk by chunk; returns the
 * bench queries, their values taken from a user of the first chunk, each with how many generated
 * users it matches.
 */
async function writeUserLines(
  file: string,
  orgId: string,
  progress: (written: number) => void,
): Promise<Array<BenchQuery & { generatedMatches: number }>> {
  const out = createWriteStream(file, { encoding: 'utf8' });
  let queries: Array<BenchQuery & { generatedMatches: number; filters: readonly UserFilter[] }> | undefined;
  for (let start = 0; start < USERS; start += CHUNK) {
    const chunk = generateChunk(orgId, 1_000, 'u-', start, Math.min(CHUNK, USERS - start));
    queries ??= benchQueries(pickSample(chunk)).map((query) => ({
      ...query,
      generatedMatches: 0,
      filters: toQuery(query.body).filters,
    }));
    for (const user of chunk) {
      for (const query of queries) if (matchesAll(user, query.filters)) query.generatedMatches++;
    }
    if (!out.write(`${chunk.map((user) => JSON.stringify(user)).join('\n')}\n`)) await once(out, 'drain');
    if ((start + CHUNK) % 100_000 === 0) progress(start + CHUNK);
  }
  out.end();
  await once(out, 'finish');
  return queries!.map(({ filters: _filters, ...query }) => query);
}

/** A generated user (past the hand-written ones) with every field the bench filters use. */
function pickSample(chunk: readonly UserRecord[]): UserRecord {
  const sample = chunk
    .slice(Math.min(100, chunk.length - 1))
    .find(
      (user) =>
        user.city &&
        user.last_name &&
        user.email &&
        user.country &&
        user.high_level_result &&
        user.selfie_liveness_score !== undefined,
    );
  if (!sample) throw new Error('no generated user has every field the bench filters use');
  return sample;
}

/** The filters' meaning (docs/user-status.md), evaluated in JavaScript: an independent count of the matches. */
function matchesAll(user: UserRecord, filters: readonly UserFilter[]): boolean {
  return filters.every((filter) => {
    if (filter.kind === 'search') return matchesSearch(user, filter);
    const value: unknown = user[filter.field];
    if (value === undefined || value === null) return false;
    if (filter.kind === 'boolean') return value === filter.value;
    if (filter.kind === 'equals')
      return filter.values.includes(filter.field === 'email' ? emailKeyOf(value as string) : (value as string));
    return Object.entries(filter.bounds).every(([op, bound]) => {
      const [a, b] = [value as number | string, bound as number | string];
      return op === 'gt' ? a > b : op === 'gte' ? a >= b : op === 'lt' ? a < b : op === 'lte' ? a <= b : a === b;
    });
  });
}

/** `filters.search` read plainly: the id, the start of the e-mail key, or every term starting a word of the name. */
function matchesSearch(user: UserRecord, filter: Extract<UserFilter, { kind: 'search' }>): boolean {
  if (user.id === filter.text) return true;
  const emailPrefix = emailKeyOf(filter.text.normalize('NFC'));
  if (!/\s/.test(emailPrefix) && user.email !== undefined && emailKeyOf(user.email).startsWith(emailPrefix))
    return true;
  const words = nameWordsOf(user.name);
  return filter.terms.every((term) => words.some((word) => word.startsWith(term)));
}

// ---------------------------------------------------------------------------------------------
// Connections and plans

function clientConfig(database: LocalUsersDatabase): pg.ClientConfig {
  return {
    host: database.host,
    port: database.port,
    database: 'postgres',
    user: database.reader.user,
    password: database.reader.password,
    application_name: 'bench-direct-sql',
  };
}

/** A users_reader pool of one connection, as a function has in Lambda. */
function readerDatabase(database: LocalUsersDatabase): PostgresUsersDatabase {
  const { host, port, reader } = database;
  return PostgresUsersDatabase.withPassword({ host, port, ...reader, maxConnections: 1 });
}

/** EXPLAIN (ANALYZE, BUFFERS) of every query's page and count statements, with their bound values. */
async function explainAll(client: pg.Client, queries: readonly PreparedQuery[]): Promise<string> {
  const setting = async (name: string) => (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name];
  const version = (await client.query<{ version: string }>('SELECT version()')).rows[0]!.version;
  const out: string[] = [
    `User-status query plans, ${USERS.toLocaleString('en')} users in the organization + ${USERS.toLocaleString('en')} in ${OTHER_ORGANIZATIONS} others, after the import's ANALYZE (no VACUUM)`,
    `${version}; shared_buffers ${await setting('shared_buffers')}, work_mem ${await setting('work_mem')}, ` +
      `jit ${await setting('jit')}, max_parallel_workers_per_gather ${await setting('max_parallel_workers_per_gather')}, ` +
      `huge_pages_status ${await setting('huge_pages_status')}`,
  ];
  const explain = async (statement: SqlStatement): Promise<string> =>
    (
      await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.values)
    ).rows
      .map((row) => row['QUERY PLAN'])
      .join('\n');
  for (const query of queries) {
    out.push('', `=== ${query.label}`, `body: ${JSON.stringify(query.body)}`);
    for (const kind of ['page', 'count', 'walkPage'] as const) {
      const statement = query.statements[kind];
      if (statement === undefined) continue;
      out.push(
        `--- ${kind}: ${statement.text}`,
        `values: ${JSON.stringify(statement.values)}`,
        await explain(statement),
      );
    }
  }
  return `${out.join('\n')}\n`;
}
