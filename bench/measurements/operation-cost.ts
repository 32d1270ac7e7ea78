import { REPORT_REQUEST_RATE_LIMIT } from '#shared/domain/limits/report-rate-limit.ts';
import {
  reportPipelineFunctions,
  webhookDeliveryFunction,
  webhookRepublishFunction,
} from '#shared/config/api-routes.ts';
import { single, type Row } from '#bench/report.ts';
import { costAccounting, FUNCTION_NAMES, type FunctionTally } from '#bench/support/cost-accounting.ts';
import { callLocalApi, seedOrganization } from '#bench/support/local-api.ts';
import type { Measurement } from '#bench/support/measurement.ts';
import { sleep } from '#bench/support/timing.ts';
import {
  billedGbSeconds,
  expirationDaysFrom,
  functionSettingsFrom,
  operationCost,
  type FunctionSettings,
  type OperationCounts,
} from '#scripts/cost/operation-cost.ts';
import { readPriceTable } from '#scripts/cost/price-table.ts';
import { synthesizeStage } from '#scripts/cost/stage-template.ts';
import { startWebhookReceiver } from '#test/support/webhook-receiver.ts';

/**
 * 16. Dollars per 1,000 operations, at the prices of docs/cost.md: each operation run on its own
 * stack (BENCH_COST_ACCOUNTING=1), after one warm-up, and everything the functions' invocations
 * caused counted (support/cost-accounting.ts), then priced (scripts/cost/operation-cost.ts) with
 * each function's memory and tracing read from the synthesized template.
 *
 * - an onboarding token with its e-mail: POST /v1/onboarding-token;
 * - a report end to end: POST /v1/document/api, the worker, the report.completed event queued,
 *   GET the job once it is COMPLETE, GET its download URL and the PDF downloaded once, the PDF
 *   stored for the bucket's retention;
 * - a user-status query: POST /v1/user-status on an organization of 1,000 users;
 * - a webhook delivery: the delivery function's invocations for the report.completed events of the
 *   reports above, to a receiver answering 204 at once.
 *
 * The schedules (sweep, republish) are left out: they are the idle cost (measurement 15).
 */
const TOKENS = 20;
const QUERIES = 20;
/** The rate limit's capacity, less the warm-up report. */
const REPORTS = REPORT_REQUEST_RATE_LIMIT.capacity - 1;
const QUERY_ORGANIZATION_USERS = 1_000;
const USER_STATUS_QUERY = { filters: { registration_status: 'active' }, pagination: { limit: 50, offset: 0 } };
const MAX_USD_PER_THOUSAND = { tokens: 0.15, reports: 0.05, userStatus: 0.02, webhooks: 0.01 };
const SCHEDULES = new Set<string>([reportPipelineFunctions.sweep.name, webhookRepublishFunction.name]);

export default {
  title: '16 cost per operation',
  async run(context) {
    const stack = await context.localStack();
    if (!costAccounting.isInstalled) throw new Error('run with BENCH_COST_ACCOUNTING=1 (npm run bench does)');
    const table = readPriceTable();
    context.log('operation cost: synthesizing the stack for the functions’ memory and tracing');
    const template = synthesizeStage({});
    const settings = functionSettingsFrom(template, FUNCTION_NAMES);
    const storedDays = expirationDaysFrom(template, 'expire-reports');
    const call = (token: string, method: string, path: string, body?: unknown) =>
      callLocalApi(stack.baseUrl, method, path, { token, ...(body === undefined ? {} : { body }) }).then((answer) => {
        if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
        return answer.body;
      });

    // Onboarding tokens, each with its e-mail.
    const tokenOrg = await stack.issueToken({ orgId: `bench-cost-tokens-${context.runId}` });
    const createToken = (i: number) =>
      call(tokenOrg, 'POST', '/v1/onboarding-token', {
        email: `cost-${context.runId}-${i}@example.com`,
        first_name: 'Ada',
        last_name: 'Bench',
      });
    await createToken(-1);
    await settle();
    costAccounting.take();
    for (let i = 0; i < TOKENS; i++) await createToken(i);
    // SES's send events reach the counter (CountEmailEvents) through the event destination a little later.
    await settle();
    const tokens = countsOf(costAccounting.take(), settings, { operations: TOKENS, log: context.log });

    // User-status queries.
    const queryOrgId = `bench-cost-users-${context.runId}`;
    await seedOrganization(context, queryOrgId, QUERY_ORGANIZATION_USERS);
    const queryOrg = await stack.issueToken({ orgId: queryOrgId });
    await call(queryOrg, 'POST', '/v1/user-status', USER_STATUS_QUERY);
    costAccounting.take();
    for (let i = 0; i < QUERIES; i++) await call(queryOrg, 'POST', '/v1/user-status', USER_STATUS_QUERY);
    const queries = countsOf(costAccounting.take(), settings, { operations: QUERIES, log: context.log });

    // Reports end to end, each delivered as a report.completed webhook.
    const receiver = await startWebhookReceiver();
    context.onClose(() => receiver.close());
    const reportOrgId = `bench-cost-reports-${context.runId}`;
    const users = await seedOrganization(context, reportOrgId, REPORTS + 1);
    const reportOrg = await stack.issueToken({ orgId: reportOrgId });
    await call(reportOrg, 'POST', '/v1/webhooks', { url: receiver.url, events: ['report.completed'] });
    let download = { bytes: 0, requests: 0 };
    const report = async (n: number) => {
      const { jobId } = await call(reportOrg, 'POST', '/v1/document/api', { userId: users[n]!.id });
      // The delivery of its report.completed says the job is COMPLETE, without polling the API.
      await receiver.waitFor(n + 1);
      const job = await call(reportOrg, 'GET', `/v1/document/api/${jobId as string}`);
      if (job.status !== 'COMPLETE') throw new Error(`report ${jobId as string} is ${job.status as string}`);
      const { url } = await call(reportOrg, 'GET', `/v1/document/api/${jobId as string}/url`);
      const pdf = await fetch(url as string);
      if (!pdf.ok) throw new Error(`downloading report ${jobId as string}: ${pdf.status}`);
      download = { bytes: download.bytes + (await pdf.arrayBuffer()).byteLength, requests: download.requests + 1 };
    };
    await report(0);
    await settle();
    costAccounting.take();
    download = { bytes: 0, requests: 0 };
    for (let n = 1; n <= REPORTS; n++) await report(n);
    await settle();
    const taken = costAccounting.take();
    const deliveries = receiver.received.length - 1;
    const deliveryTallies = new Map([...taken].filter(([name]) => name === webhookDeliveryFunction.name));
    const reportTallies = new Map([...taken].filter(([name]) => name !== webhookDeliveryFunction.name));
    const reports: Counted = {
      ...countsOf(reportTallies, settings, { operations: REPORTS, s3StoredDays: storedDays, log: context.log }),
      s3ReadRequests: download.requests,
      s3BytesOut: download.bytes,
    };
    const webhooks = countsOf(deliveryTallies, settings, { operations: deliveries, log: context.log });

    const rows: Row[] = [];
    for (const [subject, counts, max] of [
      ['onboarding tokens with e-mail, per 1,000', tokens, MAX_USD_PER_THOUSAND.tokens],
      ['reports end to end, per 1,000', reports, MAX_USD_PER_THOUSAND.reports],
      ['user-status queries, per 1,000 (DSQL estimated)', queries, MAX_USD_PER_THOUSAND.userStatus],
      ['webhook deliveries, per 1,000', webhooks, MAX_USD_PER_THOUSAND.webhooks],
    ] as const) {
      const cost = operationCost(counts, table);
      const largest = [...cost.items].sort((a, b) => b.usd - a.usd).filter((item) => item.usd > 0);
      rows.push({
        measurement: this.title,
        subject,
        unit: 'USD',
        value: single(cost.usdPerThousand),
        budget: { on: 'median', max },
        note:
          `${largest.map((item) => `${item.item}${item.estimate ? ' (estimate)' : ''} $${item.usd.toFixed(4)}`).join(', ')}; ` +
          `per operation: ${describe(counts)}`,
      });
    }
    const metrics = new Set([
      ...tokens.metricNames,
      ...reports.metricNames,
      ...queries.metricNames,
      ...webhooks.metricNames,
    ]);
    rows.push({
      measurement: this.title,
      subject: 'custom metrics these operations emit, a month',
      unit: 'USD',
      value: single(metrics.size * (table.prices.get('cloudwatch-custom-metric')!.usd ?? 0)),
      note: `${metrics.size} distinct EMF metrics (name and dimensions), each billed a month once it is emitted: ${[...metrics].join(', ')}`,
    });
    return rows;
  },
} satisfies Measurement;

/** Waits for work that outlives the last awaited answer (the delivery function recording its attempt, the SES event counter). */
async function settle(): Promise<void> {
  await sleep(1_500);
}

type Counted = OperationCounts & { metricNames: ReadonlySet<string> };

/** The operations' counts from the functions' tallies (the schedules' left out). */
function countsOf(
  tallies: ReadonlyMap<string, FunctionTally>,
  settings: ReadonlyMap<string, FunctionSettings>,
  options: { operations: number; s3StoredDays?: number; log: (line: string) => void },
): Counted {
  const chosen = [...tallies].filter(([name]) => !SCHEDULES.has(name));
  for (const [name, tally] of chosen) {
    const durations = [...tally.durationsMs].sort((a, b) => a - b);
    options.log(
      `operation cost: ${name}: ${tally.invocations} invocations (median ${durations[Math.floor(durations.length / 2)]?.toFixed(0) ?? '-'} ms, ` +
        `slowest ${durations.at(-1)?.toFixed(0) ?? '-'} ms, ${settings.get(name)?.memoryMb ?? '?'} MB), ` +
        `${tally.dynamoDbReadUnits} RRU, ${tally.dynamoDbWriteUnits} WRU (by request ${JSON.stringify(Object.fromEntries(tally.capacityUnits))}), ` +
        JSON.stringify(Object.fromEntries(tally.requests)),
    );
  }
  const sum = (pick: (tally: FunctionTally, name: string) => number) =>
    chosen.reduce((total, [name, tally]) => total + pick(tally, name), 0);
  const requests = (prefix: string, matching: RegExp = /./) =>
    sum((tally) =>
      [...tally.requests]
        .filter(([key]) => key.startsWith(prefix) && matching.test(key.slice(prefix.length)))
        .reduce((total, [, count]) => total + count, 0),
    );
  const setting = (name: string) => {
    const found = settings.get(name);
    if (!found) throw new Error(`no settings for ${name}`);
    return found;
  };
  return {
    operations: options.operations,
    apiRequests: sum((tally) => tally.apiRequests),
    lambdaInvocations: sum((tally) => tally.invocations),
    lambdaGbSeconds: sum((tally, name) =>
      tally.durationsMs.reduce((total, ms) => total + billedGbSeconds(ms, setting(name).memoryMb), 0),
    ),
    tracedInvocations: sum((tally, name) => (setting(name).traced ? tally.invocations : 0)),
    dynamoDbReadUnits: sum((tally) => tally.dynamoDbReadUnits),
    dynamoDbWriteUnits: sum((tally) => tally.dynamoDbWriteUnits),
    sqsRequests: requests('SQS.'),
    sqsMessagesConsumed: sum((tally) => tally.sqsRecords),
    s3WriteRequests: requests('S3.', /^(Put|Copy|Post|List|CreateMultipart|UploadPart|CompleteMultipart)/),
    s3ReadRequests: requests('S3.', /^(Get|Head)/),
    s3BytesStored: sum((tally) => tally.s3BytesStored),
    s3StoredDays: options.s3StoredDays ?? 0,
    s3BytesOut: 0,
    sesEmails: sum((tally) => tally.sesEmails),
    kmsRequests: sum((tally) => tally.kmsRequests),
    kmsSignRequests: sum((tally) => tally.kmsSignRequests),
    logBytes: sum((tally) => tally.logBytes),
    metricValues: sum((tally) => tally.metricValues),
    sqlStatements: sum((tally) => tally.sqlStatements),
    metricNames: new Set(chosen.flatMap(([, tally]) => [...tally.metrics])),
  };
}

function describe(counts: OperationCounts): string {
  const per = (value: number) => Number((value / counts.operations).toPrecision(3));
  return [
    `${per(counts.apiRequests)} API requests`,
    `${per(counts.lambdaInvocations)} invocations, ${per(counts.lambdaGbSeconds * 1000)} GB-ms`,
    `DynamoDB ${per(counts.dynamoDbReadUnits)} RRU / ${per(counts.dynamoDbWriteUnits)} WRU`,
    `${per(counts.sqsRequests)} SQS requests + ${per(counts.sqsMessagesConsumed)} messages consumed`,
    `S3 ${per(counts.s3WriteRequests)} PUT / ${per(counts.s3ReadRequests)} GET, ${Math.round(per(counts.s3BytesStored) / 1024)} KB stored`,
    `${per(counts.sesEmails)} e-mails`,
    `${per(counts.kmsRequests)} KMS + ${per(counts.kmsSignRequests)} KMS Sign`,
    `${per(counts.sqlStatements)} SQL statements`,
    `${per(counts.metricValues)} EMF values, ${Math.round(per(counts.logBytes))} log bytes`,
  ].join(', ');
}
