import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { DecryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import pg from 'pg';
import { generateDemoUsers } from '#local/demo-users.ts';
import { apiRoutes, fallbackRoute, type ApiRoute } from '#shared/config/api-routes.ts';
import { toUserRowValues, USER_ROW_COLUMNS } from '#shared/adapters/postgres/user-rows.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { DEFAULT_RESULT_KEYS } from '#shared/domain/users/user-status-query.ts';
import { apiEvent, lambdaContext, type ApiEventOptions } from '#test/support/api-event.ts';
import { bearer, signToken, TEST_ORG_ID, validClaims } from '#test/support/jwt.ts';
import { issuedTokenRecord, tokenItem } from '#test/support/fixtures/onboarding-tokens.ts';
import { SANDBOX_SCOPE } from '#shared/domain/identity/tenant.ts';
import { completeReportJob, reportJobItem } from '#test/support/fixtures/report-jobs.ts';
import { webhookDelivery, webhookEndpoint, webhookEndpointItem } from '#test/support/fixtures/webhooks.ts';
import { DynamoDbRequestBudgetBuckets } from '#shared/adapters/dynamodb/limits/request-budget-buckets.ts';
import { DEFAULT_REQUEST_BUDGET, LeasedRequestBudget, leaseSize } from '#shared/domain/limits/request-budget.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { spendRequestBudget } from '#shared/http/limits/request-budget.ts';
import { measuringDatabaseTime } from '#shared/support/database-time.ts';
import type { ApiMiddleware } from '#shared/http/middlewares.ts';
import { summarize, type Row } from '#bench/report.ts';
import { lambdaEnvironment } from '#bench/support/lambda-environment.ts';
import type { Measurement } from '#bench/support/measurement.ts';

/**
 * 3. Request overhead in-process: each API handler (its real module, middleware chain and use
 * case) called warm with a realistic HTTP API v2 event, every AWS client mocked with
 * aws-sdk-client-mock to answer at once with realistic items, and the SES request the token
 * handler signs itself (no client to mock) answered at once by the SDK's HTTP handler, after
 * signing. What is left is what the function itself spends per request: routing through middy,
 * JWT verification, parsing and validation, the use case, and writing the response. Baseline: a
 * trivial handler without middy, called alike.
 *
 * The users database (PostgreSQL; Aurora DSQL in AWS) is faked at the same depth as the AWS
 * clients. aws-sdk-client-mock replaces a client's `send`: the adapter code runs, the wire does
 * not. Here `pg.Pool.prototype.connect` hands out an in-process client whose `query` answers
 * canned rows at once, so the handlers' own PostgresUsersDatabase (deadline, connection
 * handling), the statement building (buildUserStatusStatements) and the row mapping all run,
 * while pg's protocol encoding, the server's work and the round trip do not: for QueryUserStatus
 * those are measurement 7, against a real PostgreSQL. A real database here would time the
 * server, not the function. A statement the fake does not know fails the route, so a handler
 * that starts running other SQL is noticed.
 */
const WARMUP = 300;
const RUNS = 2_000;
const P50_MAX_MS = 1;
/**
 * A route that makes many SDK calls gets 0.18 ms a call when that is more than 1 ms: each call
 * runs the client's middleware stack in-process (~0.1-0.15 ms here, mocked or not), while in
 * Lambda the same call is a 3-10 ms round trip, so the in-process share stays under a few percent.
 * Today that is the routes that spend an e-mail quota or open a report job and record an audit
 * event (7-9 calls).
 */
const P50_MAX_MS_PER_SDK_CALL = 0.18;
/**
 * Routes with a budget of their own. EraseUser is a workflow, not one call: it reads the user,
 * holds the report slot, lists the organization's jobs and tokens and deletes what is the user's
 * (about a dozen SDK calls and two statements here), so its overhead is held to 5 ms. The whole
 * erasure of a user with 20 reports is budgeted end to end in measurement 11 (2 s).
 */
const P50_MAX_MS_BY_ROUTE: Readonly<Record<string, number>> = { EraseUser: 5 };

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

interface Scenario {
  event: Omit<ApiEventOptions, 'method' | 'path' | 'routeKey'> & { path?: string };
  status: number;
}

const JOB_ID = '6f1c2a3e-9b7d-4c8e-a1f2-3b4c5d6e7f80';
const NOW = new Date().toISOString();
const completedJob = reportJobItem(
  completeReportJob({
    jobId: JOB_ID,
    orgId: TEST_ORG_ID,
    userId: 'demo-user-1',
    createdAt: NOW,
    startedAt: NOW,
    completedAt: NOW,
    sizeBytes: 41_234,
  }),
);
const users = generateDemoUsers({ orgId: TEST_ORG_ID, count: 60 });
const TOKEN_ID = randomUUID();
const tokenItems = Array.from({ length: 21 }, (_, i) =>
  tokenItem(
    issuedTokenRecord({
      orgId: TEST_ORG_ID,
      tokenId: i === 0 ? TOKEN_ID : randomUUID(),
      email: `user${i}@example.com`,
      createdAt: NOW,
    }),
  ),
);
const ENDPOINT_ID = randomUUID();
const endpointItem = webhookEndpointItem(
  webhookEndpoint({
    orgId: TEST_ORG_ID,
    endpointId: ENDPOINT_ID,
    url: 'https://93.184.216.34/hooks',
    createdAt: NOW,
  }),
);
const webhookDeliveryItems = Array.from({ length: 25 }, (_, i) =>
  webhookDelivery({
    orgId: TEST_ORG_ID,
    endpointId: ENDPOINT_ID,
    messageId: `msg_${i}`,
    createdAt: NOW,
    lastAttemptAt: NOW,
  }),
);
/** A users row as pg returns it: a column per field (NULL where the record has none), the screening as JSON text. */
function rowOf(user: UserRecord): Record<string, unknown> {
  const values = toUserRowValues(TEST_ORG_ID, user);
  return Object.fromEntries(USER_ROW_COLUMNS.map((column, i) => [column, values[i]]));
}
/** What PostgresUserDirectory selects (the report routes): every field column. */
const userRow = Object.fromEntries(
  Object.entries(rowOf(users[0]!)).filter(([column]) => column !== 'org_id' && column !== 'email_key'),
);
/** A user-status page: 50 matches with the default result keys, a full page, so the count runs too. */
const pageRows = users
  .slice(0, 50)
  .map(rowOf)
  .map((row) => Object.fromEntries(DEFAULT_RESULT_KEYS.map((key) => [key, row[key]])));
const MATCHES = 140;

/** Per route name; a route not listed (a new one) is called with its path and a token, and must answer 2XX. */
const scenarios: Record<string, Scenario> = {
  CreateOnboardingToken: {
    event: { body: { email: 'zoe@example.com', first_name: 'Zoë', last_name: 'Ångström' } },
    status: 201,
  },
  ListOnboardingTokens: { event: { query: { limit: '20' } }, status: 200 },
  ImportSandboxUsers: {
    event: { body: { users: [{ id: 'added-1', name: 'Added One', created_at: '2024-05-01T10:00:00Z' }] } },
    status: 201,
  },
  TriggerSandboxEvent: { event: { body: { type: 'webhook.test' } }, status: 202 },
  ExpireSandboxOnboardingToken: {
    event: { path: `/v1/sandbox/onboarding-tokens/${TOKEN_ID}/expire`, pathParameters: { tokenId: TOKEN_ID } },
    status: 200,
  },
  CreateReportJob: { event: { body: { userId: users[0]!.id } }, status: 202 },
  GetReportJob: { event: { path: `/v1/document/api/${JOB_ID}`, pathParameters: { id: JOB_ID } }, status: 200 },
  GetReportDownloadUrl: {
    event: { path: `/v1/document/api/${JOB_ID}/url`, pathParameters: { id: JOB_ID } },
    status: 200,
  },
  RedeemOnboardingToken: { event: { body: { onboarding_token: 'A'.repeat(32) } }, status: 200 },
  RevokeOnboardingToken: {
    event: { path: `/v1/onboarding-tokens/${TOKEN_ID}`, pathParameters: { tokenId: TOKEN_ID } },
    status: 204,
  },
  ResendOnboardingToken: {
    event: { path: `/v1/onboarding-tokens/${TOKEN_ID}/resend`, pathParameters: { tokenId: TOKEN_ID } },
    status: 201,
  },
  EraseUser: {
    event: { path: `/v1/users/${users[0]!.id}`, pathParameters: { id: users[0]!.id } },
    status: 204,
  },
  QueryUserStatus: {
    event: {
      body: { filters: { registration_status: 'active', age: { gte: 18 } }, pagination: { limit: 50, offset: 0 } },
    },
    status: 200,
  },
  CreateWebhookEndpoint: {
    // An IP literal: the SSRF guard checks it without a DNS lookup.
    event: { body: { url: 'https://93.184.216.34/hooks', events: ['report.completed', 'report.failed'] } },
    status: 201,
  },
  ListWebhookEndpoints: { event: {}, status: 200 },
  DeleteWebhookEndpoint: {
    event: { path: `/v1/webhooks/${ENDPOINT_ID}`, pathParameters: { id: ENDPOINT_ID } },
    status: 204,
  },
  TestWebhookEndpoint: {
    event: { path: `/v1/webhooks/${ENDPOINT_ID}/test`, pathParameters: { id: ENDPOINT_ID } },
    status: 202,
  },
  ListWebhookDeliveries: {
    event: { path: `/v1/webhooks/${ENDPOINT_ID}/deliveries`, pathParameters: { id: ENDPOINT_ID } },
    status: 200,
  },
  [fallbackRoute.name]: { event: { path: '/v1/no-such-thing' }, status: 404 },
};

function mockAwsClients(): Array<{ calls(): unknown[]; resetHistory(): void }> {
  const documents = mockClient(DynamoDBDocumentClient);
  documents.onAnyCommand().resolves({});
  documents
    .on(GetCommand)
    .callsFake((input: { Key: { sk: string } }) =>
      input.Key.sk === 'JOB'
        ? { Item: completedJob }
        : input.Key.sk.startsWith('TOKENID#') || input.Key.sk.startsWith('TOKENHASH#')
          ? { Item: { tokenSk: tokenItems[0]!.sk } }
          : input.Key.sk.startsWith('TOKEN#')
            ? { Item: tokenItems[0] }
            : input.Key.sk.startsWith('ENDPOINT#')
              ? { Item: endpointItem }
              : {},
    );
  documents.on(QueryCommand).callsFake((input: { ExpressionAttributeValues?: Record<string, unknown> }) => {
    const prefix = input.ExpressionAttributeValues?.[':prefix'];
    // The pending webhook events (an erasure looks for those naming its person): none, as while SQS is up.
    if (String(input.ExpressionAttributeValues?.[':pk']).startsWith('PENDING_EVENTS#')) return { Items: [] };
    if (prefix === 'ENDPOINT#') return { Items: [endpointItem] };
    if (prefix === 'DELIVERY#') return { Items: webhookDeliveryItems };
    return { Items: tokenItems };
  });
  const dynamoDb = mockClient(DynamoDBClient);
  dynamoDb.onAnyCommand().resolves({});
  const sqs = mockClient(SQSClient);
  sqs.onAnyCommand().resolves({ MessageId: randomUUID() });
  const s3 = mockClient(S3Client);
  s3.onAnyCommand().resolves({});
  const ses = mockClient(SESv2Client);
  ses.onAnyCommand().resolves({ MessageId: 'benchmark-message' });
  const kms = mockClient(KMSClient);
  kms.onAnyCommand().resolves({ CiphertextBlob: new Uint8Array(184) });
  // The sandbox listener's secret is opened to be answered: a 32-byte data key.
  kms.on(DecryptCommand).resolves({ Plaintext: new Uint8Array(32).fill(7) });
  return [documents, dynamoDb, sqs, s3, ses, kms];
}

/**
 * Every pg pool hands out one in-process client that answers the users statements the API runs
 * with canned rows, at once (see the comment at the top). Set before any handler is loaded.
 */
function fakeUsersDatabase(): void {
  const answer = (text: string): Array<Record<string, unknown>> => {
    if (text.startsWith('SELECT count(*)::integer AS total FROM users WHERE org_id = $1')) return [{ total: MATCHES }];
    if (/^SELECT .+ FROM users u JOIN \(SELECT id FROM users WHERE org_id = \$1/.test(text)) return pageRows;
    if (/^SELECT [a-z0-9_, ]+ FROM users WHERE org_id = \$1 AND id = \$2$/.test(text)) return [userRow];
    // The erasure deletes in a transaction.
    if (text === 'BEGIN' || text === 'COMMIT' || text === 'ROLLBACK') return [];
    if (text === 'DELETE FROM users WHERE org_id = $1 AND id = $2') return [];
    if (text === 'DELETE FROM user_name_words WHERE org_id = $1 AND user_id = $2') return [];
    // The sandbox's import writes its records and their name words in one transaction.
    if (/^INSERT INTO (users|user_name_words) /.test(text)) return [];
    if (/^SELECT id, created_at, name FROM users WHERE org_id = \$1 AND id IN \(.+\) FOR UPDATE$/.test(text)) return [];
    if (/^DELETE FROM user_name_words WHERE org_id = \$1 AND user_id IN \(/.test(text)) return [];
    throw new Error(`the fake users database does not know this statement: ${text.slice(0, 200)}`);
  };
  const client = {
    query: (config: { text: string }) => Promise.resolve({ rows: answer(config.text) }),
    release: () => undefined,
    on: () => client,
    off: () => client,
  };
  pg.Pool.prototype.connect = (() => Promise.resolve(client)) as unknown as typeof pg.Pool.prototype.connect;
}

export default {
  title: '3 request overhead',
  async run(context) {
    const { env, signingKey } = await lambdaEnvironment();
    Object.assign(process.env, env, { AWS_LAMBDA_LOG_LEVEL: 'WARN' });
    const mocks = mockAwsClients();
    fakeUsersDatabase();
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const token = await signToken(validClaims({ exp }), { key: signingKey });
    // A sandbox-only route answers any other token 404; its rows are the sandbox's overhead.
    const sandboxToken = await signToken(
      validClaims({ exp, scope: `${String(validClaims().scope)} ${SANDBOX_SCOPE}` }),
      {
        key: signingKey,
      },
    );

    const trivial: Handler = async () => ({
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"ok":true}',
    });
    const routes: ApiRoute[] = [
      ...apiRoutes,
      { method: 'GET', path: '/v1/no-such-thing', entry: fallbackRoute.entry, name: fallbackRoute.name },
    ];
    const rows: Row[] = [];
    for (const route of routes) {
      const scenario = scenarios[route.name] ?? { event: {}, status: 0 };
      const eventFor = (): APIGatewayProxyEventV2 =>
        apiEvent({
          ...scenario.event,
          method: route.method,
          path: scenario.event.path ?? route.path,
          routeKey: route.name === fallbackRoute.name ? '$default' : `${route.method} ${route.path}`,
          headers: {
            ...bearer(route.sandboxOnly ? sandboxToken : token),
            ...(scenario.event.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...scenario.event.headers,
          },
        });
      const module = (await import(`../../${route.entry}`)) as { handler: Handler };
      const check = (result: APIGatewayProxyStructuredResultV2): void => {
        const ok = scenario.status ? result.statusCode === scenario.status : (result.statusCode ?? 0) < 300;
        if (!ok) throw new Error(`${route.name} answered ${result.statusCode}: ${result.body?.slice(0, 300)}`);
      };
      const prepare = () => ({ event: eventFor(), context: lambdaContext({ functionName: route.name }) });
      const handlerSamples = await timeInvocations(module.handler, prepare, check);
      // The SDK calls one request makes (the request budget's lease counts when this request takes one).
      for (const mock of mocks) mock.resetHistory();
      const once = prepare();
      check(await module.handler(once.event, once.context));
      const sdkCalls = mocks.reduce((sum, mock) => sum + mock.calls().length, 0);
      const baselineSamples = await timeInvocations(trivial, prepare, () => undefined);
      context.log(`request overhead: ${route.name} done`);
      rows.push({
        measurement: this.title,
        subject: route.name,
        unit: 'ms',
        value: summarize(handlerSamples, { p99: true }),
        baseline: { subject: 'trivial handler', value: summarize(baselineSamples, { p99: true }) },
        budget: {
          on: 'median',
          max: P50_MAX_MS_BY_ROUTE[route.name] ?? Math.max(P50_MAX_MS, P50_MAX_MS_PER_SDK_CALL * sdkCalls),
        },
        note: `${sdkCalls} SDK calls`,
      });
    }
    rows.push(await requestBudgetOverhead(this.title));
    context.log('request overhead: request budget done');
    return rows;
  },
} satisfies Measurement;

/** Contract §15: the organization's request budget may cost each request at most this much. */
const REQUEST_BUDGET_MAX_MS = 0.3;

/**
 * The request budget's middleware alone (every authenticated route above runs it too), its spend and its
 * end-of-request charge inside the database-time meter, with its
 * DynamoDB UpdateItem mocked like the other clients: one sample is the mean time per request over
 * one lease's worth of requests (the lease's write included), so the median is the amortised cost.
 * The figure leaves out the lease's round trip to DynamoDB (a few ms in a region, once per
 * `leaseSize` requests); docs/api.md gives the deployed estimate.
 */
async function requestBudgetOverhead(measurement: string): Promise<Row> {
  // The policy decides the lease size only; every lease is granted (the mocked bucket never runs dry).
  const budget = new LeasedRequestBudget(
    new DynamoDbRequestBudgetBuckets(DynamoDBDocumentClient.from(new DynamoDBClient({})), 'benchmark-RequestBudgets'),
    { ...DEFAULT_REQUEST_BUDGET, ratePerSecond: 1_000_000 },
  );
  const middleware = spendRequestBudget(budget, systemClock) as Required<Pick<ApiMiddleware, 'before' | 'after'>>;
  const perLease = leaseSize(DEFAULT_REQUEST_BUDGET);
  const request = { context: { principal: { tenantKey: TEST_ORG_ID } } } as unknown as Parameters<
    typeof middleware.before
  >[0];
  const samples: number[] = [];
  for (let i = 0; i < (WARMUP + RUNS) / 2; i++) {
    const startedAt = performance.now();
    // As createApiHandler runs it: inside the request's database-time meter, spending when admitted and
    // charging (here nothing: no statement ran) when the request ends.
    for (let n = 0; n < perLease; n++) {
      await measuringDatabaseTime(async () => {
        await middleware.before(request);
        await middleware.after(request);
      });
    }
    if (i >= WARMUP / 2) samples.push((performance.now() - startedAt) / perLease);
  }
  return {
    measurement,
    subject: `request budget (per request, leases of ${perLease})`,
    unit: 'ms',
    value: summarize(samples, { p99: true }),
    budget: { on: 'median', max: REQUEST_BUDGET_MAX_MS },
  };
}

/** Times only the handler call: each event and context is built before the clock starts (middy may change the event). */
async function timeInvocations(
  handler: Handler,
  prepare: () => { event: APIGatewayProxyEventV2; context: Context },
  check: (result: APIGatewayProxyStructuredResultV2) => void,
): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const { event, context } = prepare();
    const startedAt = performance.now();
    const result = await handler(event, context);
    const elapsed = performance.now() - startedAt;
    check(result);
    if (i >= WARMUP) samples.push(elapsed);
  }
  return samples;
}
