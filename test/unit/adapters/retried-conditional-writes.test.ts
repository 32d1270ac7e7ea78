import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ConditionalCheckFailedException, DynamoDBClient, type AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type PutCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbAuditTrail } from '#shared/adapters/dynamodb/audit-trail-store.ts';
import { DynamoDbEmailReputationStore } from '#shared/adapters/dynamodb/email-reputation-store.ts';
import { DynamoDbRateLimiter } from '#shared/adapters/dynamodb/limits/rate-limiter.ts';
import { DynamoDbRequestBudgetBuckets } from '#shared/adapters/dynamodb/limits/request-budget-buckets.ts';
import { DynamoDbReportRateLimiter } from '#shared/adapters/dynamodb/limits/report-rate-limiter.ts';
import { DynamoDbMachineClients } from '#shared/adapters/dynamodb/machine-client-directory.ts';
import { DynamoDbReportJobStore } from '#shared/adapters/dynamodb/report-job-store.ts';
import { writeOnce } from '#shared/adapters/dynamodb/write-once.ts';
import { runWithDeadline } from '#shared/support/request-deadline.ts';
import type { AuditEvent } from '#shared/domain/audit/audit-event.ts';
import { ConflictError } from '#shared/domain/errors.ts';
import { REPORT_REQUEST_RATE_LIMIT } from '#shared/domain/limits/report-rate-limit.ts';
import { applyEmailEvent } from '#shared/domain/onboarding/email-reputation.ts';
import { useAwsEndpoint } from '#test/support/aws-endpoint-environment.ts';
import { ORG_ID, T0 } from '#test/support/fixtures/defaults.ts';
import { reportJob } from '#test/support/fixtures/report-jobs.ts';

/**
 * A single-item conditional write whose first attempt reached DynamoDB and was applied, but whose
 * answer was lost (the attempt timed out): the SDK sends it again, and the retry fails its
 * condition on the item the call itself wrote. DynamoDB answers ConditionalCheckFailedException
 * with that item (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`). Each store must take that as
 * its write done, and still take another write's item as the conflict it is.
 */

/** An item as DynamoDB's JSON (what the exception carries): strings, numbers, booleans, lists and maps. */
function dynamoDbJson(item: Record<string, unknown>): Record<string, AttributeValue> {
  const value = (member: unknown): AttributeValue => {
    if (typeof member === 'string') return { S: member };
    if (typeof member === 'number') return { N: String(member) };
    if (typeof member === 'boolean') return { BOOL: member };
    if (member === null) return { NULL: true };
    if (Array.isArray(member)) return { L: member.map(value) };
    return { M: dynamoDbJson(member as Record<string, unknown>) };
  };
  return Object.fromEntries(
    Object.entries(item)
      .filter(([, member]) => member !== undefined)
      .map(([name, member]) => [name, value(member)]),
  );
}

const conditionFailedOn = (item: Record<string, unknown> | undefined) =>
  new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: {},
    ...(item ? { Item: dynamoDbJson(item) } : {}),
  });

describe('each single-item conditional write, retried after its first attempt landed', () => {
  const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
  const dynamoDb = mockClient(documents);
  /** The item as the landed attempt left it, which the retry's failed condition returns. */
  let stored: Record<string, unknown> | undefined;
  /** Applies a Put as the hung attempt did, then fails it as its retry does. */
  const putLandsThenRetryFails = (input: PutCommandInput) => {
    stored = { ...input.Item };
    throw conditionFailedOn(stored);
  };

  beforeEach(() => {
    dynamoDb.reset();
    stored = undefined;
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  describe('the audit trail', () => {
    const event: AuditEvent = {
      eventId: '0d7f3c52-7f0c-4a51-9a4e-2c1f5b7e9d10',
      occurredAt: '2026-03-01T12:00:00.000Z',
      action: 'user.erasure_started',
      actor: { sub: 'staff-1', clientId: null },
      target: { type: 'user', id: 'user-1' },
      requestId: 'request-1',
      outcome: 'started',
    };
    const trail = () => new DynamoDbAuditTrail(documents, 'AuditEvents');

    it('records an event whose retry meets the event it wrote (not lost, not a 503 for a required one)', async () => {
      dynamoDb.on(PutCommand).callsFake(putLandsThenRetryFails);

      await expect(trail().append(ORG_ID, event)).resolves.toBeUndefined();
      expect(dynamoDb).toHaveReceivedCommandWith(PutCommand, {
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
    });

    it('refuses an event whose key another event holds', async () => {
      dynamoDb.on(PutCommand).rejects(conditionFailedOn({ ...event, eventId: 'another-event' }));

      await expect(trail().append(ORG_ID, event)).rejects.toBeInstanceOf(ConflictError);
    });
  });

  describe('the machine client directory', () => {
    const registration = { clientId: 'c1', orgId: 'acme', createdAt: '2026-11-25T00:00:00.000Z' };
    const clients = () => new DynamoDbMachineClients(documents, 'MachineClients');

    it('records a client whose retry meets the registration it wrote', async () => {
      dynamoDb.on(PutCommand).callsFake(putLandsThenRetryFails);

      await expect(clients().register(registration)).resolves.toBeUndefined();
    });

    it('refuses a client id recorded by an earlier registration', async () => {
      dynamoDb.on(PutCommand).rejects(conditionFailedOn({ ...registration, createdAt: '2026-11-24T00:00:00.000Z' }));

      await expect(clients().register(registration)).rejects.toBeInstanceOf(ConflictError);
    });
  });

  describe('a report worker taking its job', () => {
    const queued = reportJob();
    const jobs = () => new DynamoDbReportJobStore(documents, 'ReportJobs');
    const attempt = { attemptId: 'attempt-7', now: new Date(T0.getTime() + 1_000), leaseMs: 20_000 };
    /** The job item as a start by `attemptId` leaves it. */
    const startedBy = (attemptId: string) => ({
      pk: `JOB#${queued.jobId}`,
      sk: 'JOB',
      ...queued,
      status: 'IN_PROGRESS',
      attemptId,
      startedAt: attempt.now.toISOString(),
      leaseExpiresAt: new Date(attempt.now.getTime() + attempt.leaseMs).toISOString(),
      updatedAt: attempt.now.toISOString(),
    });

    it('holds the job when the retry of its start meets its own attempt (not skipped as taken by another)', async () => {
      dynamoDb.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
        stored = startedBy(input.ExpressionAttributeValues?.[':attemptId'] as string);
        throw conditionFailedOn(stored);
      });
      dynamoDb.on(GetCommand).callsFake(() => ({ Item: stored }));

      const job = await jobs().start(queued.jobId, attempt);

      expect(job).toMatchObject({ jobId: queued.jobId, status: 'IN_PROGRESS', attemptId: 'attempt-7' });
    });

    it('leaves a job another attempt holds', async () => {
      dynamoDb.on(UpdateCommand).rejects(conditionFailedOn(startedBy('attempt-6')));

      await expect(jobs().start(queued.jobId, attempt)).resolves.toBeUndefined();
    });
  });

  describe('a rate limit (sliding window)', () => {
    const limiter = () => new DynamoDbReportRateLimiter(documents, 'ReportJobs', REPORT_REQUEST_RATE_LIMIT);

    it('spends one unit when the retry of its write meets that write, not a second one', async () => {
      vi.spyOn(Math, 'random').mockReturnValue(0);
      dynamoDb.on(GetCommand).callsFake(() => ({ Item: stored }));
      dynamoDb.on(PutCommand).callsFake(putLandsThenRetryFails);

      const decision = await limiter().spend(ORG_ID, T0);

      expect(decision).toMatchObject({ allowed: true, remaining: REPORT_REQUEST_RATE_LIMIT.capacity - 1 });
      expect(dynamoDb.commandCalls(PutCommand)).toHaveLength(1);
      expect(stored?.spentAt).toEqual([T0.getTime()]);
    });

    it('decides again when another request wrote the bucket first', async () => {
      vi.spyOn(Math, 'random').mockReturnValue(0);
      const other = { pk: `ORG#${ORG_ID}`, sk: 'RATE_LIMIT#report-create', spentAt: [T0.getTime() - 5], version: 1 };
      dynamoDb
        .on(GetCommand)
        .resolvesOnce({})
        .resolves({ Item: { ...other, writeId: 'another-request' } });
      dynamoDb
        .on(PutCommand)
        .rejectsOnce(conditionFailedOn({ ...other, writeId: 'another-request' }))
        .resolves({});

      const decision = await limiter().spend(ORG_ID, T0);

      expect(decision).toMatchObject({ allowed: true, remaining: REPORT_REQUEST_RATE_LIMIT.capacity - 2 });
      expect(dynamoDb.commandCalls(PutCommand)).toHaveLength(2);
    });
  });

  describe('a quota counter (fixed window) spent alone', () => {
    it('is a one-item transaction, whose ClientRequestToken its retry repeats, not a lone UpdateItem', async () => {
      dynamoDb.on(GetCommand).resolves({});
      dynamoDb.on(TransactWriteCommand).resolves({});
      const key = { pk: `ORG#${ORG_ID}`, sk: 'RATE_LIMIT#email-org' };

      const spent = await new DynamoDbRateLimiter(documents, 'OnboardingTokens').spend(
        [{ kind: 'fixed-window', key, policy: { capacity: 1_000, windowMs: 3_600_000 } }],
        T0,
      );

      expect(spent.allowed).toBe(true);
      expect(dynamoDb).not.toHaveReceivedCommand(UpdateCommand);
      expect(dynamoDb.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems).toHaveLength(1);
    });
  });

  describe('the request budget (leases and running charges)', () => {
    const buckets = () => new DynamoDbRequestBudgetBuckets(documents, 'RequestBudgets');
    const nowMs = T0.getTime();

    it('counts a lease once when the retry of its refill meets that refill', async () => {
      dynamoDb.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
        const values = input.ExpressionAttributeValues!;
        stored = { pk: `ORG#${ORG_ID}`, tat: values[':fresh'], ttl: values[':ttl'], writeId: values[':writeId'] };
        throw conditionFailedOn(stored);
      });

      const taken = await buckets().take(ORG_ID, { kind: 'refill', count: 5, now: nowMs, fresh: nowMs + 100 });

      expect(taken).toEqual({ applied: true, tat: nowMs + 100 });
    });

    it('never adds a charge twice: the retry is conditioned on the bucket not holding its own write yet', async () => {
      dynamoDb.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
        const values = input.ExpressionAttributeValues!;
        stored = { pk: `ORG#${ORG_ID}`, tat: nowMs + 540, writeId: values[':writeId'] };
        throw conditionFailedOn(stored);
      });

      const taken = await buckets().take(ORG_ID, {
        kind: 'spend',
        count: 2,
        now: nowMs,
        cost: 40,
        highest: nowMs + 3_600_000,
      });

      expect(taken).toEqual({ applied: true, tat: nowMs + 540 });
      const [update] = dynamoDb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
      // `tat <= :highest` still holds after the charge landed: only the write's own mark stops the retry.
      expect(update?.ConditionExpression).toBe(
        '(tat > :now AND tat <= :highest) AND (attribute_not_exists(#writeMark) OR #writeMark <> :writeMark)',
      );
      expect(update?.UpdateExpression).toContain('writeId = :writeId');
      expect(update?.ExpressionAttributeNames?.['#writeMark']).toBe('writeId');
      expect(update?.ExpressionAttributeValues?.[':writeMark']).toBe(update?.ExpressionAttributeValues?.[':writeId']);
    });

    it('plans again on the state another container left', async () => {
      dynamoDb.on(UpdateCommand).rejects(conditionFailedOn({ pk: `ORG#${ORG_ID}`, tat: nowMs + 900, writeId: 'x' }));

      const taken = await buckets().take(ORG_ID, { kind: 'refill', count: 5, now: nowMs, fresh: nowMs + 100 });

      expect(taken).toEqual({ applied: false, tat: nowMs + 900 });
    });
  });

  describe('the e-mail reputation counter', () => {
    it('counts an event whose retry meets the state it wrote (not "unchanged", which would skip a pause’s alarm)', async () => {
      stored = { pk: 'EMAIL_REPUTATION#acme', sk: 'EMAIL_REPUTATION', version: 2, recent: [], early: [] };
      dynamoDb.on(GetCommand).callsFake(() => ({ Item: stored }));
      dynamoDb.on(PutCommand).callsFake(putLandsThenRetryFails);
      const store = new DynamoDbEmailReputationStore(documents, 'OnboardingTokens');

      const next = await store.update('acme', (state) =>
        applyEmailEvent(state, { kind: 'send', messageId: 'm-1', orgId: 'acme' }, T0),
      );

      expect(next?.recent).toEqual([{ messageId: 'm-1', bounced: false, complained: false }]);
      expect(dynamoDb.commandCalls(PutCommand)).toHaveLength(1);
    });
  });
});

/**
 * The same through the service's own DynamoDB client, against an endpoint that reads the first
 * request and never answers it (as if it had been applied and its answer lost), then answers the
 * retry: what DynamoDB sends back, and what the SDK sends again, are the real ones.
 */
describe('through the service’s DynamoDB client', () => {
  let endpoint: Server;
  let endpointUrl = '';
  let requests: Array<{ target: string; body: Record<string, any> }> = [];
  let answerRetry: (target: string, first: Record<string, any>) => { status: number; body: unknown };

  beforeAll(async () => {
    endpoint = createServer((request: IncomingMessage, response: ServerResponse) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        const target = String(request.headers['x-amz-target']);
        requests.push({ target, body: JSON.parse(body) as Record<string, any> });
        if (requests.length === 1) return;
        const answer = answerRetry(target, requests[0]!.body);
        response
          .writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' })
          .end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    const address = endpoint.address();
    endpointUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    endpoint.closeAllConnections();
    await new Promise((resolve) => endpoint.close(resolve));
  });
  useAwsEndpoint(() => endpointUrl, ['DYNAMODB']);
  beforeEach(() => {
    requests = [];
  });

  it('a marked Put whose retry fails on the item its first attempt wrote is written', async () => {
    answerRetry = (_target, first) => ({
      status: 400,
      body: {
        __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
        message: 'The conditional request failed',
        Item: first.Item as unknown,
      },
    });
    const { documents } = createDynamoDbClients();

    const outcome = await runWithDeadline(8_000, () =>
      writeOnce(
        documents,
        {
          Put: {
            TableName: 't',
            Item: { pk: 'a', writeId: 'w-1' },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { attribute: 'writeId', value: 'w-1' },
      ),
    );

    expect(outcome).toEqual({ kind: 'written-earlier', item: { pk: { S: 'a' }, writeId: { S: 'w-1' } } });
    expect(requests.map(({ target, body }) => [target, body.ReturnValuesOnConditionCheckFailure])).toEqual([
      ['DynamoDB_20120810.PutItem', 'ALL_OLD'],
      ['DynamoDB_20120810.PutItem', 'ALL_OLD'],
    ]);
  });

  it('a transaction is sent again with the same ClientRequestToken, so DynamoDB applies it once', async () => {
    answerRetry = () => ({ status: 200, body: {} });
    const { documents } = createDynamoDbClients();

    await runWithDeadline(8_000, () =>
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: 't', Item: { pk: 'a' }, ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      ),
    );

    const tokens = requests.map(({ body }) => body.ClientRequestToken as unknown);
    expect(requests.map(({ target }) => target)).toEqual([
      'DynamoDB_20120810.TransactWriteItems',
      'DynamoDB_20120810.TransactWriteItems',
    ]);
    expect(tokens[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(tokens[1]).toBe(tokens[0]);
  });
});
