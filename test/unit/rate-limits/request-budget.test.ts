import { createServer, type Server, type Socket } from 'node:net';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbRequestBudgetBuckets } from '#shared/adapters/dynamodb/limits/request-budget-buckets.ts';
import { databaseTimeMeter } from '#shared/support/database-time.ts';
import { runWithDeadline } from '#shared/support/request-deadline.ts';
import { requestBudgetPolicyFrom, requestBudgetSettingsFrom } from '#shared/config/limits/request-budget.ts';
import { ConfigurationError } from '#shared/config/load-config.ts';
import { DependencyUnavailableError, RequestBudgetSpentError } from '#shared/domain/errors.ts';
import {
  DEFAULT_REQUEST_BUDGET,
  extraCostUnits,
  LeasedRequestBudget,
  leaseSize,
  overAdmissionBound,
  planLease,
  RunningCostCharge,
  tokensAvailable,
  type RequestBudgetPolicy,
} from '#shared/domain/limits/request-budget.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import type { ApiEvent, ApiResult } from '#shared/http/api-types.ts';
import type { ApiContext } from '#shared/http/middlewares.ts';
import { ok } from '#shared/http/responses.ts';
import { apiEvent, lambdaContext } from '#test/support/api-event.ts';
import { bearer, createTestKeySet, signToken, validClaims } from '#test/support/jwt.ts';
import { testTokenVerifier } from '#test/support/fixtures/token-verifier.ts';
import type { TokenVerifier } from '#shared/http/auth.ts';
import { useAwsEndpoint } from '#test/support/aws-endpoint-environment.ts';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
});

const TABLE = 'RequestBudgets';
const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const policy: RequestBudgetPolicy = { ratePerSecond: 10, burst: 20 };

/**
 * A DynamoDB stand-in for the bucket items, behind aws-sdk-client-mock: it evaluates the two
 * update shapes the adapter sends (refill, spend) with their conditions, as DynamoDB would.
 */
const documents = mockClient(DynamoDBDocumentClient);

function mockBuckets() {
  documents.reset();
  const items = new Map<string, number>();
  documents
    .on(UpdateCommand)
    .callsFake(
      (input: { Key: { pk: string }; UpdateExpression: string; ExpressionAttributeValues: Record<string, number> }) => {
        const tat = items.get(input.Key.pk);
        const values = input.ExpressionAttributeValues;
        const refused = () =>
          new ConditionalCheckFailedException({
            message: 'The conditional request failed',
            $metadata: {},
            ...(tat === undefined ? {} : { Item: { pk: { S: input.Key.pk }, tat: { N: String(tat) } } }),
          });
        if (input.UpdateExpression.startsWith('SET tat = :fresh')) {
          if (tat !== undefined && tat > values[':now']!) throw refused();
          items.set(input.Key.pk, values[':fresh']!);
        } else {
          if (tat === undefined || tat <= values[':now']! || tat > values[':highest']!) throw refused();
          items.set(input.Key.pk, tat + values[':cost']!);
        }
        return { Attributes: { tat: items.get(input.Key.pk) } };
      },
    );
  return { documents, items };
}

function budgetOn(documents: DynamoDBDocumentClient, budgetPolicy = policy): LeasedRequestBudget {
  return new LeasedRequestBudget(new DynamoDbRequestBudgetBuckets(documents, TABLE), budgetPolicy);
}

const newDocuments = () => DynamoDBDocumentClient.from(createDynamoDbClients().client);

describe('the bucket arithmetic (GCRA)', () => {
  it('a bucket never used is full; taking moves tat by one interval per token; time refills it', () => {
    expect(tokensAvailable(undefined, NOW, policy)).toBe(20);
    const plan = planLease(undefined, NOW, 5, policy);
    expect(plan).toEqual({ kind: 'refill', count: 5, now: NOW, fresh: NOW + 500 });
    expect(tokensAvailable(NOW + 500, NOW, policy)).toBe(15);
    expect(tokensAvailable(NOW + 2_000, NOW, policy)).toBe(0);
    expect(tokensAvailable(NOW + 2_000, NOW + 100, policy)).toBe(1);
    expect(planLease(NOW + 2_000, NOW, 5, policy)).toEqual({ kind: 'refused' });
  });

  it('a lease of a nearly empty bucket also takes tokens coming due within its lifetime; its write asks for one now', () => {
    // 2 tokens now, 3 more due at NOW + 100, 200 and 300 ms.
    expect(planLease(NOW + 1_800, NOW, 5, policy)).toEqual({
      kind: 'spend',
      count: 5,
      now: NOW,
      cost: 500,
      highest: NOW + 1_900,
    });
    // One token a second: a lease of 1 s may take the one available and the next one only.
    const slow = { ratePerSecond: 1, burst: 20 };
    expect(planLease(NOW + 19_000, NOW, 10, slow)).toMatchObject({ kind: 'spend', count: 2 });
  });

  it('leases a tenth of the burst (1 to 10) and bounds over-admission by burst + rate x interval + containers x (lease - 1)', () => {
    expect(leaseSize(DEFAULT_REQUEST_BUDGET)).toBe(10);
    expect(leaseSize({ ratePerSecond: 1, burst: 20 })).toBe(2);
    expect(leaseSize({ ratePerSecond: 1, burst: 5 })).toBe(1);
    expect(overAdmissionBound(DEFAULT_REQUEST_BUDGET, 1_000, 4)).toBe(100 + 50 + 4 * 9);
    expect(overAdmissionBound({ ratePerSecond: 1, burst: 20 }, 0, 2)).toBe(22);
  });
});

describe('LeasedRequestBudget on DynamoDB (aws-sdk-client-mock)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('one conditional UpdateItem per lease of 2 tokens, then spends locally; the 21st request of a burst of 20 is refused', async () => {
    const { items } = mockBuckets();
    const budget = budgetOn(newDocuments());
    const decisions = [];
    for (let i = 0; i < 21; i++) decisions.push(await budget.spend('acme', () => NOW));

    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(20);
    expect(decisions[20]).toMatchObject({
      allowed: false,
      limit: 20,
      remaining: 0,
      resetSeconds: 2,
      retryAfterSeconds: 1,
    });
    expect(decisions[0]).toMatchObject({ allowed: true, limit: 20, remaining: 19 });
    // 10 leases of 2; the refusal is decided on the state the last lease returned, without a call.
    expect(documents).toHaveReceivedCommandTimes(UpdateCommand, 10);
    expect(documents).toHaveReceivedNthCommandWith(UpdateCommand, 1, {
      TableName: TABLE,
      Key: { pk: 'ORG#acme' },
      ConditionExpression:
        '(attribute_not_exists(tat) OR tat <= :now) AND (attribute_not_exists(#writeMark) OR #writeMark <> :writeMark)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    expect(documents).toHaveReceivedNthCommandWith(UpdateCommand, 2, {
      UpdateExpression: 'ADD tat :cost SET #ttl = :ttl, writeId = :writeId',
      ConditionExpression:
        '(tat > :now AND tat <= :highest) AND (attribute_not_exists(#writeMark) OR #writeMark <> :writeMark)',
    });
    expect(items.get('ORG#acme')).toBe(NOW + 2_000);
  });

  it('another organization keeps its whole budget while one is refused', async () => {
    mockBuckets();
    const budget = budgetOn(newDocuments());
    for (let i = 0; i < 20; i++) await budget.spend('noisy', () => NOW);
    expect((await budget.spend('noisy', () => NOW)).allowed).toBe(false);

    const quiet = [];
    for (let i = 0; i < 20; i++) quiet.push(await budget.spend('quiet', () => NOW));
    expect(quiet.every((decision) => decision.allowed)).toBe(true);
  });

  it('concurrent requests of one organization in one container wait for one lease instead of taking their own', async () => {
    mockBuckets();
    const budget = budgetOn(newDocuments());

    const decisions = await Promise.all(Array.from({ length: 40 }, () => budget.spend('acme', () => NOW)));

    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(20);
    expect(documents.commandCalls(UpdateCommand).length).toBeLessThanOrEqual(11);
  });

  it('two containers on one bucket admit exactly the burst between them when time stands still, whatever the interleaving', async () => {
    mockBuckets();
    const containers = [budgetOn(newDocuments()), budgetOn(newDocuments())];

    const decisions = await Promise.all(
      Array.from({ length: 40 }, (_, i) => containers[i % 2]!.spend('acme', () => NOW)),
    );

    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(20);
  });

  it('a container that planned on a stale state plans again from the item DynamoDB returns with the failed condition', async () => {
    const { items } = mockBuckets();
    items.set('ORG#acme', NOW + 1_900);
    const budget = budgetOn(newDocuments());

    const first = await budget.spend('acme', () => NOW);
    const second = await budget.spend('acme', () => NOW);

    expect(first).toMatchObject({ allowed: true });
    expect(second).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    // The refill planned on "never used" failed; the spend of the 1 token left succeeded; then none was left.
    expect(documents).toHaveReceivedCommandTimes(UpdateCommand, 2);
  });

  it('refills with time: one token every 1/rate seconds', async () => {
    mockBuckets();
    const budget = budgetOn(newDocuments());
    for (let i = 0; i < 20; i++) await budget.spend('acme', () => NOW);
    expect((await budget.spend('acme', () => NOW)).allowed).toBe(false);
    expect((await budget.spend('acme', () => NOW + 100)).allowed).toBe(true);
    expect((await budget.spend('acme', () => NOW + 100)).allowed).toBe(false);
  });

  it('an organization sending faster than its rate is admitted at exactly the rate, with one write per lease, not per token', async () => {
    mockBuckets();
    const budget = budgetOn(newDocuments(), DEFAULT_REQUEST_BUDGET);
    for (let i = 0; i < 100; i++) await budget.spend('noisy', () => NOW);
    const writesForTheBurst = documents.commandCalls(UpdateCommand).length;

    // 200 requests a second for 2 s against 50 a second: a token comes due every 20 ms.
    const admittedAt: number[] = [];
    for (let at = NOW + 5; at <= NOW + 2_000; at += 5) {
      if ((await budget.spend('noisy', () => at)).allowed) admittedAt.push(at);
    }

    expect(writesForTheBurst).toBe(10);
    expect(admittedAt).toHaveLength(100);
    // Never ahead of the bucket: by any time t, at most t / 20 ms tokens have come due.
    admittedAt.forEach((at, i) => expect(at - NOW).toBeGreaterThanOrEqual((i + 1) * 20));
    // A lease of one token per request would be 100 writes.
    expect(documents.commandCalls(UpdateCommand).length - writesForTheBurst).toBeLessThanOrEqual(11);
  });

  it('a refusal while a leased token is not yet due says when it is (Retry-After), without a write', async () => {
    mockBuckets();
    const budget = budgetOn(newDocuments());
    for (let i = 0; i < 20; i++) await budget.spend('acme', () => NOW);
    expect((await budget.spend('acme', () => NOW + 100)).allowed).toBe(true); // leases 2: due at +100 and +200
    const writes = documents.commandCalls(UpdateCommand).length;

    const early = await budget.spend('acme', () => NOW + 150);
    const due = await budget.spend('acme', () => NOW + 200);

    expect(early).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    expect(due).toMatchObject({ allowed: true, remaining: 0 });
    expect(documents.commandCalls(UpdateCommand)).toHaveLength(writes);
  });

  it('two containers of an organization sending faster than its rate admit no more than the bucket lets through', async () => {
    mockBuckets();
    const containers = [budgetOn(newDocuments()), budgetOn(newDocuments())];
    let admitted = 0;
    for (let at = NOW, i = 0; at <= NOW + 3_000; at += 10, i++) {
      if ((await containers[i % 2]!.spend('acme', () => at)).allowed) admitted++;
    }
    // The burst of 20 and 10 a second for 3 s; borrowed tokens may lapse unspent, never be spent twice.
    expect(admitted).toBeLessThanOrEqual(20 + 30);
    expect(admitted).toBeGreaterThanOrEqual(20 + 30 - 2 * (leaseSize(policy) - 1));
  });

  it('a lease whose write returns no state (no UPDATED_NEW attributes) is spent in full, all its tokens counted due', async () => {
    documents.reset();
    documents.on(UpdateCommand).resolves({});
    const budget = budgetOn(newDocuments());

    const decisions = await Promise.all(Array.from({ length: 4 }, () => budget.spend('acme', () => NOW)));

    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, true]);
    expect(documents).toHaveReceivedCommandTimes(UpdateCommand, 2);
  });

  it('a lease that fails spends nothing: the next request leases again', async () => {
    documents.reset();
    documents
      .on(UpdateCommand)
      .rejectsOnce(new DependencyUnavailableError('database'))
      .resolves({ Attributes: { tat: NOW + 200 } });
    const budget = budgetOn(newDocuments());

    await expect(budget.spend('acme', () => NOW)).rejects.toBeInstanceOf(DependencyUnavailableError);
    await expect(budget.spend('acme', () => NOW)).resolves.toMatchObject({ allowed: true });
    expect(documents).toHaveReceivedCommandTimes(UpdateCommand, 2);
  });

  it('requests that waited for a lease that failed share its error (its Retry-After), without leasing again', async () => {
    documents.reset();
    const stall = new DependencyUnavailableError('database', { retryAfterSeconds: 9 });
    documents.on(UpdateCommand).rejects(stall);
    const budget = budgetOn(newDocuments());

    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => budget.spend('acme', () => NOW)));

    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(5).fill('rejected'));
    for (const outcome of outcomes) expect((outcome as PromiseRejectedResult).reason).toBe(stall);
    expect(documents).toHaveReceivedCommandTimes(UpdateCommand, 1);
  });
});

describe('cost-weighted charges (contract §19: 1 unit, plus 1 per 100 ms of database time)', () => {
  it('owes nothing below 100 ms of database time, 1 unit per whole 100 ms above', () => {
    expect([0, 99.9, 100, 250, 999, 9_000].map(extraCostUnits)).toEqual([0, 0, 1, 2, 9, 90]);
  });

  it('charges from the container’s lease first, without a write', async () => {
    mockBuckets();
    const budget = budgetOn(newDocuments());
    await budget.spend('acme', () => NOW); // a lease of 2: one spent, one held
    await budget.charge('acme', 1, () => NOW);

    expect(documents).toHaveReceivedCommandTimes(UpdateCommand, 1);
    // The held token went to the charge: the next request takes a new lease.
    await budget.spend('acme', () => NOW);
    expect(documents).toHaveReceivedCommandTimes(UpdateCommand, 2);
  });

  it('charges the rest to the shared bucket, into debt: the organization is refused until it is paid off', async () => {
    const { items } = mockBuckets();
    const budget = budgetOn(newDocuments());
    await budget.spend('acme', () => NOW);
    // A 3-second query: 30 units owed, 1 from the lease, 29 from the bucket: with the lease's 2, 31 tokens of 20.
    await budget.charge('acme', extraCostUnits(3_000), () => NOW);

    expect(items.get('ORG#acme')).toBe(NOW + 31 * 100);
    expect(await budget.spend('acme', () => NOW)).toMatchObject({ allowed: false, retryAfterSeconds: 2 });
    // Once the debt and one token have come back (the bucket is 100 ms a token), it is admitted again.
    expect(await budget.spend('acme', () => NOW + 1_300)).toMatchObject({ allowed: true });
    // Another organization is untouched.
    expect(await budget.spend('globex', () => NOW)).toMatchObject({ allowed: true, remaining: 19 });
  });
});

describe('the running charge (contract §19, charged while the statements run)', () => {
  it('a unit falls due at each whole 100 ms of database time; what was paid while running is not owed again at the end', () => {
    const charge = new RunningCostCharge();
    expect(charge.due(99)).toBe(0);
    expect(charge.due(100)).toBe(1);
    charge.paid(1);
    expect(charge.due(150)).toBe(0);
    expect(charge.due(420)).toBe(3);
    charge.paid(3);
    // The request ends at 430 ms: 4 units beyond its admission in all, all paid while it ran.
    expect(charge.due(430)).toBe(0);
    expect(charge.chargedUnits).toBe(extraCostUnits(430));
  });

  it('the next unit is due in the time left to the next 100 ms, shared by the statements running; none running, none due', () => {
    const charge = new RunningCostCharge();
    expect(charge.nextUnitInMs(0, 0)).toBeUndefined();
    expect(charge.nextUnitInMs(30, 1)).toBe(70);
    // Two statements at once spend 100 ms of database time in 50 ms.
    expect(charge.nextUnitInMs(30, 2)).toBe(35);
    // A unit due and not paid yet: now.
    expect(charge.nextUnitInMs(130, 1)).toBe(0);
    charge.paid(1);
    expect(charge.nextUnitInMs(130, 1)).toBe(70);
  });
});

describe('the budget in the API chain', () => {
  let token: string;
  let verifyToken: TokenVerifier;
  beforeAll(async () => {
    const keys = await createTestKeySet();
    verifyToken = testTokenVerifier(keys.jwks);
    token = await signToken(validClaims({ scope: 'onboarding:read', org_id: 'acme' }), { key: keys.es256 });
  });

  it('after authentication, before the use case: beyond the burst 429 with the standard body, RateLimit-* and Retry-After', async () => {
    mockBuckets();
    const handle = vi.fn(() => Promise.resolve(ok({ fine: true })));
    const handler = createApiHandler({
      requiredScope: 'onboarding:read',
      verifyToken,
      requestBudget: budgetOn(newDocuments(), { ratePerSecond: 1, burst: 3 }),
      handle,
    }) as (event: ApiEvent, context: ApiContext) => Promise<ApiResult>;
    const call = () =>
      handler(
        apiEvent({ method: 'GET', path: '/v1/onboarding-tokens', headers: bearer(token) }),
        lambdaContext() as ApiContext,
      );

    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await call()).statusCode);
    const refused = await call();

    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(handle).toHaveBeenCalledTimes(3);
    expect(refused.statusCode).toBe(429);
    expect(JSON.parse(refused.body ?? '')).toEqual({
      code: 429,
      timestamp: expect.any(String),
      path: '/v1/onboarding-tokens',
      method: 'GET',
      error: 'TOO_MANY_REQUESTS',
      message: expect.any(String),
    });
    expect(refused.headers).toMatchObject({ 'ratelimit-limit': '3', 'ratelimit-remaining': '0', 'retry-after': '1' });
    expect(Number(refused.headers?.['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
  });

  it('charges each request its database time when it ends: an expensive route is refused sooner than a cheap one', async () => {
    const admittedOf = async (databaseMsPerRequest: number) => {
      mockBuckets();
      const handler = createApiHandler({
        requiredScope: 'onboarding:read',
        verifyToken,
        requestBudget: budgetOn(newDocuments(), { ratePerSecond: 1, burst: 9 }),
        handle: () => {
          // A statement that ended, as the users database adapter meters it (users-database.ts).
          databaseTimeMeter()!.addEnded(performance.now() - databaseMsPerRequest);
          return Promise.resolve(ok({ fine: true }));
        },
      }) as (event: ApiEvent, context: ApiContext) => Promise<ApiResult>;
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const answer = await handler(
          apiEvent({ method: 'GET', path: '/v1/onboarding-tokens', headers: bearer(token) }),
          lambdaContext() as ApiContext,
        );
        statuses.push(answer.statusCode ?? 0);
      }
      return statuses.filter((status) => status === 200).length;
    };

    // 1 unit each: the burst of 9. 250 ms each: 3 units, so 3 requests use up the burst.
    expect(await admittedOf(5)).toBe(9);
    expect(await admittedOf(250)).toBe(3);
  });

  it('charges a running request as its statements run and, once the organization’s bucket is spent, cuts them off: 429 with the standard body and Retry-After; another organization’s bucket does not move', async () => {
    const { items } = mockBuckets();
    let cutReason: unknown;
    const handler = createApiHandler({
      requiredScope: 'onboarding:read',
      verifyToken,
      // Burst 4, leases of 1: the admission, then one unit at each 100 ms of the statement.
      requestBudget: budgetOn(newDocuments(), { ratePerSecond: 0.1, burst: 4 }),
      handle: async () => {
        // A statement that runs until the budget cuts it off (what the users database adapter waits on), or 5 s.
        const meter = databaseTimeMeter()!;
        const ended = meter.statementStarted();
        try {
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, 5_000);
            meter.cutSignal.addEventListener('abort', () => {
              clearTimeout(timer);
              cutReason = meter.cutSignal.reason;
              reject(meter.cutSignal.reason as Error);
            });
          });
        } finally {
          ended();
        }
        return ok({ ran: 'to the end' });
      },
    }) as (event: ApiEvent, context: ApiContext) => Promise<ApiResult>;

    const startedAt = performance.now();
    const answer = await handler(
      apiEvent({ method: 'GET', path: '/v1/onboarding-tokens', headers: bearer(token) }),
      lambdaContext() as ApiContext,
    );
    const tookMs = performance.now() - startedAt;

    // 1 unit admitted, 3 paid at 100, 200 and 300 ms: the one due at 400 ms is refused.
    expect(cutReason).toBeInstanceOf(RequestBudgetSpentError);
    expect(tookMs).toBeGreaterThanOrEqual(390);
    expect(tookMs).toBeLessThan(3_000);
    expect(answer.statusCode).toBe(429);
    expect(JSON.parse(answer.body ?? '')).toEqual({
      code: 429,
      timestamp: expect.any(String),
      path: '/v1/onboarding-tokens',
      method: 'GET',
      error: 'TOO_MANY_REQUESTS',
      message: expect.stringContaining('request budget is spent'),
    });
    expect(answer.headers).toMatchObject({ 'ratelimit-limit': '4', 'ratelimit-remaining': '0' });
    expect(Number(answer.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
    // The unit refused while running is owed at the end: the bucket is in debt (5 units of 10 s each, from about now).
    expect(items.get('ORG#acme')).toBeGreaterThan(Date.now() + 45_000);
    expect([...items.keys()]).toEqual(['ORG#acme']);
  });

  it('spends nothing for a request without a valid token (401 before the budget)', async () => {
    mockBuckets();
    const handler = createApiHandler({
      requiredScope: 'onboarding:read',
      verifyToken,
      requestBudget: budgetOn(newDocuments()),
      handle: () => Promise.resolve(ok({})),
    }) as (event: ApiEvent, context: ApiContext) => Promise<ApiResult>;

    const response = await handler(
      apiEvent({ method: 'GET', path: '/v1/onboarding-tokens' }),
      lambdaContext() as ApiContext,
    );

    expect(response.statusCode).toBe(401);
    expect(documents).toHaveReceivedCommandTimes(UpdateCommand, 0);
  });
});

describe('configuration', () => {
  it('the contract’s 50 per second and bursts of 100 unless set; bad values stop the cold start', () => {
    expect(requestBudgetPolicyFrom({})).toEqual({ ratePerSecond: 50, burst: 100 });
    expect(requestBudgetPolicyFrom({ REQUEST_BUDGET_RATE: '5', REQUEST_BUDGET_BURST: ' 7 ' })).toEqual({
      ratePerSecond: 5,
      burst: 7,
    });
    for (const bad of ['0', '-1', '1.5', 'many']) {
      expect(() => requestBudgetPolicyFrom({ REQUEST_BUDGET_RATE: bad })).toThrow(/REQUEST_BUDGET_RATE/);
    }
  });

  it('a Lambda function without REQUEST_BUDGETS_TABLE_NAME does not start; a plain process builds no budget', () => {
    expect(() => requestBudgetSettingsFrom({ AWS_LAMBDA_FUNCTION_NAME: 'fn' })).toThrow(ConfigurationError);
    expect(requestBudgetSettingsFrom({})).toBeUndefined();
    expect(requestBudgetSettingsFrom({ REQUEST_BUDGETS_TABLE_NAME: 'T' })).toEqual({
      tableName: 'T',
      policy: { ratePerSecond: 50, burst: 100 },
    });
  });
});

/** A DynamoDB endpoint that accepts connections and never answers. */
describe('a stalled DynamoDB during a lease', () => {
  let stalled: Server;
  const sockets = new Set<Socket>();
  let endpoint = '';
  beforeAll(async () => {
    documents.restore();
    stalled = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    const address = stalled.address();
    endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => stalled.close(resolve));
  });
  useAwsEndpoint(() => endpoint, ['DYNAMODB']);

  it('ends in DependencyUnavailableError (503) at the request deadline, and the container holds no token', async () => {
    const budget = budgetOn(createDynamoDbClients().documents);
    const startedAt = Date.now();

    const failure = await runWithDeadline(300, () => budget.spend('acme', () => Date.now())).catch(
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    const again = await runWithDeadline(200, () => budget.spend('acme', () => Date.now())).catch(
      (error: unknown) => error,
    );
    expect(again).toBeInstanceOf(DependencyUnavailableError);
  });
});
