import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { childProcessIds } from '#local/users-postgres.ts';
import { percentile, single, summarize, type Row } from '#bench/report.ts';
import { callLocalApi, requestReport, seedOrganization, waitUntilComplete } from '#bench/support/local-api.ts';
import type { Measurement } from '#bench/support/measurement.ts';
import { sleep } from '#bench/support/timing.ts';

/**
 * 13. Soak: mixed traffic at a steady rate on the local stack for `--soak-minutes` (default 10),
 * paced open-loop (a request is sent on schedule whether or not earlier ones answered, as
 * independent clients do), over loopback with fetch. The mix, per second: 8 report status reads,
 * 6 user-status queries (5 filters in turn), 2 token lists, 2 report lists, one onboarding token
 * created (a new address each), and a report requested every 5 s, spread over organizations so no
 * quota or rate limit is reached (the e-mail quota is 1,000 an hour per organization, the report
 * limit 10 per 10 minutes). Per minute: p50 and p99 of every answer, the count of 5XX and of
 * other non-2XX answers, and the resident memory of the stack's Node.js process (router,
 * functions, pollers, and the SQS, S3 and SES emulators it runs in-process) and, for the record,
 * of DynamoDB Local's JVM and PostgreSQL.
 *
 * A 15 s warm-up at the same rate comes first, not counted, so the functions' cold starts are not
 * minute 1's. Memory is sampled after a full garbage collection (the bench runs its processes with
 * --expose-gc). Budgets: no 5XX; the last minute's p99 at most 1.2x the first's; the Node.js
 * process's resident memory at the end at most 1.1x its first minute's. DynamoDB Local runs in memory and keeps every
 * item written, so its growth is the soak's data, not a leak: reported, not budgeted.
 */

const REQUESTS_PER_SECOND = 20;
const WARM_UP_MS = 15_000;
const REPORTS_EVERY_MS = 5_000;
const REPORT_USERS_PER_ORG = 10;
/** At most this many report requests per organization in the soak (the limit is 10 per 10 minutes). */
const REPORTS_PER_ORG = 5;
const USER_STATUS_FILTERS = [
  { registration_status: 'active' },
  { city: 'Berlin' },
  { age: { gte: 30 } },
  { country: 'DE', fmc_score: { gte: 50 } },
  {},
];

interface Sample {
  minute: number;
  ms: number;
  status: number;
  route: string;
}

/** Resident set size in MB of a process, from /proc (Linux); 0 where there is none. */
function residentMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? 0 : Number(kb) / 1024;
  } catch {
    return 0;
  }
}

export default {
  title: '13 soak',
  async run(context) {
    const minutes = Number(process.env.BENCH_SOAK_MINUTES ?? '10');
    if (!Number.isFinite(minutes) || minutes < 1) throw new Error('--soak-minutes must be at least 1');
    const stack = await context.localStack();
    const mainOrg = `bench-soak-${context.runId}`;
    const users = await seedOrganization(context, mainOrg, 300);
    const token = await stack.issueToken({ orgId: mainOrg });
    const finishedJob = await requestReport(stack.baseUrl, users[0]!.id, token);
    await waitUntilComplete(stack.baseUrl, finishedJob, token, { intervalMs: 50, timeoutMs: 30_000 });
    // One report about each kind of user the soak's reports are about (every organization gets the same
    // REPORT_USERS_PER_ORG generated users), before minute 1: the worker reads and parses each font a
    // report needs once per process (the CJK files are 5-10 MB), and the first report in a new script
    // would otherwise show as a one-time step in the resident memory, in whichever minute it came.
    const warmUpOrg = `${mainOrg}-fonts`;
    const warmUpToken = await stack.issueToken({ orgId: warmUpOrg });
    const warmUpUsers = await seedOrganization(context, warmUpOrg, REPORT_USERS_PER_ORG);
    for (const user of warmUpUsers) {
      const jobId = await requestReport(stack.baseUrl, user.id, warmUpToken);
      await waitUntilComplete(stack.baseUrl, jobId, warmUpToken, { intervalMs: 50, timeoutMs: 30_000 });
    }

    const reportCount = Math.ceil((minutes * 60_000) / REPORTS_EVERY_MS);
    const reportOrgs = await Promise.all(
      Array.from({ length: Math.ceil(reportCount / REPORTS_PER_ORG) }, async (_, i) => {
        const orgId = `${mainOrg}-r${i}`;
        const orgUsers = await seedOrganization(context, orgId, REPORT_USERS_PER_ORG);
        return { orgId, userIds: orgUsers.map((user) => user.id), token: await stack.issueToken({ orgId }) };
      }),
    );
    context.log(`soak: ${minutes} min at ${REQUESTS_PER_SECOND} req/s, ${reportOrgs.length} report organizations`);

    let samples: Sample[] = [];
    const memory: Array<{
      minute: number;
      nodeMb: number;
      heapMb: number;
      dynamoDbMb: number;
      postgresMb: number;
      sesEmails: number;
      sesEmailsMb: number;
    }> = [];
    // The SES emulator runs in this process and keeps every e-mail it was sent (its inbox): part of the heap below.
    const { getStoreReadonly } = (await import('aws-ses-v2-local/dist/store.js')) as {
      getStoreReadonly: () => { emails: readonly unknown[] };
    };
    const postgresMb = () =>
      [stack.usersDatabase.processId, ...childProcessIds(stack.usersDatabase.processId)].reduce(
        (sum, pid) => sum + residentMb(pid),
        0,
      );
    let startedAt = performance.now();
    let endsAt = startedAt + WARM_UP_MS;
    let sent = 0;
    let reportsRequested = 0;
    let tokensCreated = 0;
    const inFlight = new Set<Promise<void>>();
    /** After a full collection where the process allows one (the bench's processes run with --expose-gc). */
    const sampleMemory = (minute: number) => {
      (globalThis as { gc?: () => void }).gc?.();
      memory.push({
        minute,
        nodeMb: process.memoryUsage().rss / 2 ** 20,
        heapMb: process.memoryUsage().heapUsed / 2 ** 20,
        dynamoDbMb: residentMb(stack.databaseProcessId),
        postgresMb: postgresMb(),
        sesEmails: getStoreReadonly().emails.length,
        sesEmailsMb: JSON.stringify(getStoreReadonly().emails).length / 2 ** 20,
      });
    };

    const send = (route: string, call: () => Promise<{ status: number }>) => {
      const sentAt = performance.now();
      const minute = Math.floor((sentAt - startedAt) / 60_000);
      const done = call()
        .then(
          ({ status }) => status,
          () => 0, // no answer at all: counted as an error
        )
        .then((status) => void samples.push({ minute, ms: performance.now() - sentAt, status, route }))
        .finally(() => inFlight.delete(done));
      inFlight.add(done);
    };

    const nextRequest = (i: number) => {
      const slot = i % REQUESTS_PER_SECOND;
      if (slot < 8)
        return send('GET report', () =>
          callLocalApi(stack.baseUrl, 'GET', `/v1/document/api/${finishedJob}`, { token }),
        );
      if (slot < 14)
        return send('POST user-status', () =>
          callLocalApi(stack.baseUrl, 'POST', '/v1/user-status', {
            token,
            body: { filters: USER_STATUS_FILTERS[i % USER_STATUS_FILTERS.length], pagination: { limit: 20 } },
          }),
        );
      if (slot < 16)
        return send('GET tokens', () =>
          callLocalApi(stack.baseUrl, 'GET', '/v1/onboarding-tokens?limit=20', { token }),
        );
      if (slot < 18)
        return send('GET reports', () => callLocalApi(stack.baseUrl, 'GET', '/v1/document/api?limit=20', { token }));
      if (slot < 19)
        return send('POST token', () =>
          callLocalApi(stack.baseUrl, 'POST', '/v1/onboarding-token', {
            token,
            body: { email: `soak-${tokensCreated++}@example.com`, first_name: 'Soak', last_name: 'Test' },
          }),
        );
      return send('GET report', () => callLocalApi(stack.baseUrl, 'GET', `/v1/document/api/${finishedJob}`, { token }));
    };

    // A warm-up at the same rate, not counted: every function's cold start happens here, not in minute 1.
    let warmingUp = true;
    let nextMemoryAt = Number.POSITIVE_INFINITY;
    for (;;) {
      const now = performance.now();
      if (now >= endsAt && warmingUp) {
        await Promise.race([Promise.allSettled([...inFlight]), sleep(15_000)]);
        warmingUp = false;
        samples = [];
        startedAt = performance.now();
        endsAt = startedAt + minutes * 60_000;
        nextMemoryAt = startedAt + 60_000;
        sent = 0;
        continue;
      }
      if (now >= endsAt) break;
      while (sent < ((now - startedAt) / 1000) * REQUESTS_PER_SECOND) nextRequest(sent++);
      while (reportsRequested < (now - startedAt) / REPORTS_EVERY_MS) {
        const org = reportOrgs[reportsRequested % reportOrgs.length]!;
        const userId = org.userIds[Math.floor(reportsRequested / reportOrgs.length) % org.userIds.length]!;
        reportsRequested++;
        send('POST report', () =>
          callLocalApi(stack.baseUrl, 'POST', '/v1/document/api', { token: org.token, body: { userId } }),
        );
      }
      if (now >= nextMemoryAt) {
        sampleMemory(memory.length);
        const last = memory.at(-1)!;
        context.log(
          `soak: minute ${last.minute + 1}: ${samples.filter((s) => s.minute === last.minute).length} answers, ` +
            `node ${last.nodeMb.toFixed(0)} MB, DynamoDB Local ${last.dynamoDbMb.toFixed(0)} MB, PostgreSQL ${last.postgresMb.toFixed(0)} MB`,
        );
        nextMemoryAt += 60_000;
      }
      await sleep(5);
    }
    if (memory.length < minutes) sampleMemory(memory.length);
    await Promise.race([Promise.allSettled([...inFlight]), sleep(15_000)]);

    const rows: Row[] = [];
    const perMinute = Array.from({ length: minutes }, (_, minute) => samples.filter((s) => s.minute === minute));
    const serverErrors = samples.filter((s) => s.status === 0 || s.status >= 500);
    const otherNon2xx = samples.filter((s) => s.status >= 300 && s.status < 500);
    for (const [minute, answered] of perMinute.entries()) {
      if (answered.length === 0) continue;
      const at = memory[minute];
      rows.push({
        measurement: '13 soak',
        subject: `minute ${minute + 1}: every answer`,
        unit: 'ms',
        value: summarize(
          answered.map((s) => s.ms),
          { p99: true },
        ),
        note:
          `${answered.length} answers, ${answered.filter((s) => s.status === 0 || s.status >= 500).length} 5XX, ` +
          `${answered.filter((s) => s.status >= 300 && s.status < 500).length} other non-2XX; p99 by route: ` +
          [...new Set(answered.map((s) => s.route))]
            .map(
              (route) =>
                `${route} ${percentile(
                  answered.filter((s) => s.route === route).map((s) => s.ms),
                  99,
                ).toFixed(0)} ms`,
            )
            .join(', ') +
          (at
            ? `; RSS node ${at.nodeMb.toFixed(0)} MB, DynamoDB Local ${at.dynamoDbMb.toFixed(0)} MB, PostgreSQL ${at.postgresMb.toFixed(0)} MB`
            : ''),
      });
    }
    const firstP99 = percentile(
      perMinute[0]!.map((s) => s.ms),
      99,
    );
    const lastP99 = percentile(
      perMinute.at(-1)!.map((s) => s.ms),
      99,
    );
    rows.push(
      {
        measurement: '13 soak',
        subject: 'answers that were 5XX or none',
        unit: 'count',
        value: single(serverErrors.length),
        budget: { on: 'median', max: 0 },
        note: `of ${samples.length}; ${otherNon2xx.length} other non-2XX (${[...new Set(otherNon2xx.map((s) => `${s.route} ${s.status}`))].join(', ') || 'none'})`,
      },
      {
        measurement: '13 soak',
        subject: `p99 of minute ${minutes}`,
        unit: 'ms',
        value: single(lastP99),
        baseline: { subject: 'p99 of minute 1', value: single(firstP99) },
        budget: { on: 'ratio', max: 1.2 },
      },
    );
    if (memory.length > 0) {
      const first = memory[0]!;
      const last = memory.at(-1)!;
      rows.push(
        {
          measurement: '13 soak',
          subject: `Node.js process RSS after minute ${last.minute + 1}`,
          unit: 'KB',
          value: single(Math.round(last.nodeMb * 1024)),
          baseline: { subject: 'after minute 1', value: single(Math.round(first.nodeMb * 1024)) },
          budget: { on: 'ratio', max: 1.1 },
        },
        {
          // Told apart from RSS: the V8 heap in use after a full collection (the service's objects and the in-process
          // emulators' stores), without the allocator's retained pages.
          measurement: '13 soak',
          subject: `Node.js V8 heap used after minute ${last.minute + 1} (after a full collection)`,
          unit: 'KB',
          value: single(Math.round(last.heapMb * 1024)),
          baseline: { subject: 'after minute 1', value: single(Math.round(first.heapMb * 1024)) },
          note:
            `heap used by minute: ${memory.map((at) => at.heapMb.toFixed(0)).join(', ')} MB; of it, the SES ` +
            `emulator's inbox: ${last.sesEmails} e-mails, ${last.sesEmailsMb.toFixed(1)} MB of JSON after minute ` +
            `${last.minute + 1} (${first.sesEmails}, ${first.sesEmailsMb.toFixed(1)} MB after minute 1)`,
        },
        {
          measurement: '13 soak',
          subject: `DynamoDB Local + PostgreSQL RSS after minute ${last.minute + 1}`,
          unit: 'KB',
          value: single(Math.round((last.dynamoDbMb + last.postgresMb) * 1024)),
          baseline: {
            subject: 'after minute 1',
            value: single(Math.round((first.dynamoDbMb + first.postgresMb) * 1024)),
          },
          note: `DynamoDB Local ${first.dynamoDbMb.toFixed(0)} -> ${last.dynamoDbMb.toFixed(0)} MB (every item written, in memory), PostgreSQL ${first.postgresMb.toFixed(0)} -> ${last.postgresMb.toFixed(0)} MB`,
        },
      );
    }
    return rows;
  },
} satisfies Measurement;
