import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoDbReportJobStore } from '#shared/adapters/dynamodb/report-job-store.ts';
import { DependencyUnavailableError, NotFoundError, OpenJobExistsError } from '#shared/domain/errors.ts';
import type { ReportJob } from '#shared/domain/reports/report-job.ts';
import { ORG_ID, T0, USER_ID } from '#test/support/fixtures/defaults.ts';
import { completedReport, completeReportJob, reportJob } from '#test/support/fixtures/report-jobs.ts';

const TABLE = 'ReportJobs';
const OPEN_JOB_ID = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
const documentsMock = mockClient(DynamoDBDocumentClient);

const store = () =>
  new DynamoDbReportJobStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })), TABLE);

const cancelled = (...reasons: Array<{ Code: string; Item?: Record<string, AttributeValue> }>) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons });

const conditionFailed = () =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

const transactItems = (index = 0) =>
  documentsMock.commandCalls(TransactWriteCommand)[index]!.args[0].input.TransactItems!;

const startedJob = (): ReportJob =>
  reportJob({
    status: 'IN_PROGRESS',
    attemptId: 'attempt-1',
    startedAt: '2026-03-01T12:00:01.000Z',
    leaseExpiresAt: '2026-03-01T12:01:01.000Z',
    updatedAt: '2026-03-01T12:00:01.000Z',
  });

const result = completedReport({
  sizeBytes: 4096,
  sha256: 'cd'.repeat(32),
  durationMs: 2_000,
  completedAt: '2026-03-01T12:00:03.000Z',
  templateVersion: 'tv-2',
});

const expectedGuardDelete = (job: ReportJob) => ({
  Delete: {
    TableName: TABLE,
    Key: { pk: `ORG#${job.orgId}`, sk: `OPEN_JOB#${job.userId}` },
    ConditionExpression: 'attribute_not_exists(pk) OR jobId = :jobId',
    ExpressionAttributeValues: { ':jobId': job.jobId },
  },
});

beforeEach(() => {
  documentsMock.reset();
  documentsMock.on(TransactWriteCommand).resolves({});
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('DynamoDbReportJobStore.createOpenJob', () => {
  it('sends one transaction: the conditional guard Put first, then the job Put, both provisional', async () => {
    const job = reportJob({ provisionalUntil: '2026-03-01T12:00:10.000Z' });

    await store().createOpenJob(job);

    expect(documentsMock).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
    const [guard, jobPut, ...rest] = transactItems();
    expect(rest).toEqual([]);
    expect(guard).toEqual({
      Put: {
        TableName: TABLE,
        Item: {
          pk: `ORG#${ORG_ID}`,
          sk: `OPEN_JOB#${USER_ID}`,
          jobId: job.jobId,
          orgId: ORG_ID,
          createdAt: job.createdAt,
          sweepPk: 'OPEN_JOB',
          sweepSk: `${job.createdAt}#${job.jobId}`,
          provisionalUntil: '2026-03-01T12:00:10.000Z',
          ttl: T0.getTime() / 1000 + 24 * 60 * 60,
        },
        // A guard whose job its request never confirmed is free.
        ConditionExpression: 'attribute_not_exists(pk) OR provisionalUntil <= :now',
        ExpressionAttributeValues: { ':now': job.createdAt },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    });
    expect(jobPut).toEqual({
      Put: {
        TableName: TABLE,
        Item: {
          pk: `JOB#${job.jobId}`,
          sk: 'JOB',
          orgJobsPk: `ORG#${job.orgId}`,
          orgJobsSk: `${job.createdAt}#${job.jobId}`,
          ...job,
          ttl: T0.getTime() / 1000 + 30 * 24 * 60 * 60,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
  });

  it("writes the requester's sub on the job item (not on the guard)", async () => {
    const job = reportJob({ requestedBy: 'auth0|64f1c2a3e9b7d4c8' });

    await store().createOpenJob(job);

    const [guard, jobPut] = transactItems();
    expect(jobPut!.Put!.Item).toMatchObject({ pk: `JOB#${job.jobId}`, requestedBy: 'auth0|64f1c2a3e9b7d4c8' });
    expect(guard!.Put!.Item).not.toHaveProperty('requestedBy');
  });

  it("turns a guard ConditionalCheckFailed into OpenJobExistsError carrying the open job's id and creation time", async () => {
    documentsMock.on(TransactWriteCommand).rejects(
      cancelled(
        {
          Code: 'ConditionalCheckFailed',
          Item: { jobId: { S: OPEN_JOB_ID }, createdAt: { S: '2026-03-01T11:58:00.000Z' } },
        },
        { Code: 'None' },
      ),
    );

    const error = await store()
      .createOpenJob(reportJob())
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OpenJobExistsError);
    expect((error as OpenJobExistsError).openJobId).toBe(OPEN_JOB_ID);
    expect((error as OpenJobExistsError).openJobCreatedAt).toBe('2026-03-01T11:58:00.000Z');
    expect((error as OpenJobExistsError).details).toEqual({ jobId: OPEN_JOB_ID });
    expect(documentsMock).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
  });

  it('passes on a cancellation caused by the job item (a duplicate job id), not by the guard', async () => {
    const duplicate = cancelled({ Code: 'None' }, { Code: 'ConditionalCheckFailed' });
    documentsMock.on(TransactWriteCommand).rejects(duplicate);

    await expect(store().createOpenJob(reportJob())).rejects.toBe(duplicate);
  });

  it('retries a transaction cancelled only by a concurrent writer', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    documentsMock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled({ Code: 'TransactionConflict' }, { Code: 'None' }))
      .resolves({});

    await store().createOpenJob(reportJob());

    expect(documentsMock).toHaveReceivedCommandTimes(TransactWriteCommand, 2);
  });
});

describe('DynamoDbReportJobStore.get', () => {
  it('reads the job strongly consistently and strips the keys and ttl', async () => {
    const job = reportJob();
    const ttl = Math.floor(Date.now() / 1000) + 3600;
    documentsMock.on(GetCommand).resolves({ Item: { pk: `JOB#${job.jobId}`, sk: 'JOB', ttl, ...job } });

    const found = await store().get(job.jobId);

    expect(found).toEqual(job);
    expect(documentsMock).toHaveReceivedCommandWith(GetCommand, {
      TableName: TABLE,
      Key: { pk: `JOB#${job.jobId}`, sk: 'JOB' },
      ConsistentRead: true,
    });
  });

  it("reads the requester's sub back, and a job written before it was recorded without one", async () => {
    const ttl = Math.floor(Date.now() / 1000) + 3600;
    const job = reportJob({ requestedBy: 'user-7f3a' });
    documentsMock.on(GetCommand).resolves({ Item: { pk: `JOB#${job.jobId}`, sk: 'JOB', ttl, ...job } });
    expect((await store().get(job.jobId))?.requestedBy).toBe('user-7f3a');

    const { requestedBy: _none, ...older } = job;
    documentsMock.on(GetCommand).resolves({ Item: { pk: `JOB#${job.jobId}`, sk: 'JOB', ttl, ...older } });
    expect(await store().get(job.jobId)).not.toHaveProperty('requestedBy');
  });

  it('treats a job past its retention as gone, even before TTL has deleted it', async () => {
    const job = reportJob();
    documentsMock
      .on(GetCommand)
      .resolves({ Item: { pk: `JOB#${job.jobId}`, sk: 'JOB', ttl: Math.floor(Date.now() / 1000) - 1, ...job } });

    expect(await store().get(job.jobId)).toBeUndefined();
  });

  it('returns undefined for an unknown job', async () => {
    documentsMock.on(GetCommand).resolves({});

    expect(await store().get(OPEN_JOB_ID)).toBeUndefined();
  });
});

describe('DynamoDbReportJobStore.start', () => {
  const attempt = { attemptId: 'attempt-2', now: new Date('2026-03-01T12:00:10.000Z'), leaseMs: 60_000 };

  it('moves the job to IN_PROGRESS if it is PENDING or its lease has run out, with this attempt and lease', async () => {
    const started = startedJob();
    documentsMock
      .on(UpdateCommand)
      .resolves({ Attributes: { pk: `JOB#${started.jobId}`, sk: 'JOB', ttl: 1, ...started } });

    const job = await store().start(started.jobId, attempt);

    expect(job).toEqual(started);
    expect(documentsMock).toHaveReceivedCommandWith(UpdateCommand, {
      TableName: TABLE,
      Key: { pk: `JOB#${started.jobId}`, sk: 'JOB' },
      // Never twice for one attempt: its retry after a start that landed finds the job its own (write-once.ts).
      ConditionExpression:
        '((#status = :pending AND (attribute_not_exists(provisionalUntil) OR provisionalUntil > :now)) OR (#status = :inProgress AND leaseExpiresAt < :now))' +
        ' AND (attribute_not_exists(#writeMark) OR #writeMark <> :writeMark)',
      ExpressionAttributeNames: { '#status': 'status', '#writeMark': 'attemptId' },
      ExpressionAttributeValues: {
        ':pending': 'PENDING',
        ':inProgress': 'IN_PROGRESS',
        ':attemptId': 'attempt-2',
        ':now': '2026-03-01T12:00:10.000Z',
        ':leaseExpiresAt': '2026-03-01T12:01:10.000Z',
        ':writeMark': 'attempt-2',
      },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    const update = documentsMock.commandCalls(UpdateCommand)[0]!.args[0].input.UpdateExpression;
    expect(update).toContain('#status = :inProgress');
    expect(update).toContain('attemptId = :attemptId');
    expect(update).toContain('leaseExpiresAt = :leaseExpiresAt');
  });

  it('returns undefined when the condition fails (finished, or held under a live lease)', async () => {
    documentsMock.on(UpdateCommand).rejects(conditionFailed());

    expect(await store().start(OPEN_JOB_ID, attempt)).toBeUndefined();
  });

  it('passes on any other error', async () => {
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    documentsMock.on(UpdateCommand).rejects(throttled);

    await expect(store().start(OPEN_JOB_ID, attempt)).rejects.toBe(throttled);
  });
});

describe('DynamoDbReportJobStore.release', () => {
  const now = new Date('2026-03-01T12:00:04.500Z');

  it('gives the job back to PENDING only if this attempt still holds it', async () => {
    documentsMock.on(UpdateCommand).resolves({});
    const job = startedJob();

    await store().release(job, now);

    expect(documentsMock).toHaveReceivedCommandWith(UpdateCommand, {
      Key: { pk: `JOB#${job.jobId}`, sk: 'JOB' },
      ConditionExpression: '#status = :inProgress AND attemptId = :attemptId',
      ExpressionAttributeValues: expect.objectContaining({
        ':pending': 'PENDING',
        ':attemptId': 'attempt-1',
        ':now': now.toISOString(),
      }),
    });
  });

  it('ignores a failed condition (another attempt has the job now)', async () => {
    documentsMock.on(UpdateCommand).rejects(conditionFailed());

    await expect(store().release(startedJob(), now)).resolves.toBeUndefined();
  });
});

describe('DynamoDbReportJobStore.complete', () => {
  it('marks the job COMPLETE (only if this attempt holds it) and deletes its guard, in one transaction', async () => {
    const job = startedJob();

    const completed = await store().complete(job, result);

    expect(completed).toBe(true);
    expect(documentsMock).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
    const [update, guardDelete, ...rest] = transactItems();
    expect(rest).toEqual([]);
    expect(update!.Update).toMatchObject({
      TableName: TABLE,
      Key: { pk: `JOB#${job.jobId}`, sk: 'JOB' },
      ConditionExpression: '#status = :inProgress AND attemptId = :attemptId',
      ExpressionAttributeValues: {
        ':complete': 'COMPLETE',
        ':attemptId': 'attempt-1',
        ':completedAt': '2026-03-01T12:00:03.000Z',
        ':r_sizeBytes': 4096,
        ':r_sha256': 'cd'.repeat(32),
        ':r_durationMs': 2_000,
        ':r_completedAt': '2026-03-01T12:00:03.000Z',
        ':r_templateVersion': 'tv-2',
      },
    });
    // Every member of the fixture's CompletedReport is written under its own name, with the status and updatedAt.
    const resultMembers = Object.keys(result).map((name) => `#r_${name} = :r_${name}`);
    expect(update!.Update!.UpdateExpression).toBe(
      `SET #status = :complete, ${resultMembers.join(', ')}, updatedAt = :completedAt REMOVE leaseExpiresAt`,
    );
    expect(update!.Update!.ExpressionAttributeNames).toMatchObject({
      '#r_sizeBytes': 'sizeBytes',
      '#r_sha256': 'sha256',
    });
    expect(guardDelete).toEqual(expectedGuardDelete(job));
  });

  it('returns false when a condition fails (the attempt lost the job)', async () => {
    documentsMock.on(TransactWriteCommand).rejects(cancelled({ Code: 'ConditionalCheckFailed' }, { Code: 'None' }));

    expect(await store().complete(startedJob(), result)).toBe(false);
  });

  it('reports a transaction cancelled by throttling as the database being unavailable', async () => {
    const throttled = cancelled({ Code: 'ThrottlingError' }, { Code: 'None' });
    documentsMock.on(TransactWriteCommand).rejects(throttled);

    const failure = await store()
      .complete(startedJob(), result)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    expect((failure as Error).cause).toBe(throttled);
  });
});

describe('DynamoDbReportJobStore.fail', () => {
  const now = new Date('2026-03-01T12:00:04.500Z');

  it('marks an open job FAILED with its code and duration and deletes its guard, in one transaction', async () => {
    const job = startedJob();

    const failed = await store().fail(job, 'STORAGE_FAILED', now);

    expect(failed).toBe(true);
    expect(documentsMock).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
    const [update, guardDelete, ...rest] = transactItems();
    expect(rest).toEqual([]);
    expect(update!.Update).toMatchObject({
      TableName: TABLE,
      Key: { pk: `JOB#${job.jobId}`, sk: 'JOB' },
      ConditionExpression: '#status IN (:pending, :inProgress) AND attemptId = :attemptId',
      ExpressionAttributeValues: {
        ':failed': 'FAILED',
        ':errorCode': 'STORAGE_FAILED',
        ':durationMs': 3_500,
        ':now': now.toISOString(),
        ':attemptId': job.attemptId,
      },
    });
    expect(guardDelete).toEqual(expectedGuardDelete(job));
  });

  it('fails a job seen PENDING without fencing on an attempt', async () => {
    await store().fail(reportJob(), 'TIMED_OUT', now);

    const [update] = transactItems();
    expect(update!.Update!.ConditionExpression).toBe('#status IN (:pending, :inProgress)');
    expect(update!.Update!.ExpressionAttributeValues).not.toHaveProperty(':attemptId');
  });

  it('returns false when the job is no longer open', async () => {
    documentsMock.on(TransactWriteCommand).rejects(cancelled({ Code: 'ConditionalCheckFailed' }, { Code: 'None' }));

    expect(await store().fail(reportJob(), 'TIMED_OUT', now)).toBe(false);
  });
});

describe('DynamoDbReportJobStore.withdraw', () => {
  it('deletes the job and its guard in one transaction', async () => {
    const job = reportJob();

    await store().withdraw(job);

    expect(transactItems()).toEqual([
      { Delete: { TableName: TABLE, Key: { pk: `JOB#${job.jobId}`, sk: 'JOB' } } },
      expectedGuardDelete(job),
    ]);
  });

  it('deletes a void job alone when its slot was taken meanwhile (a new job, an erasure’s hold)', async () => {
    const provisionalUntil = '2026-03-01T12:00:09.000Z';
    const job = reportJob({ provisionalUntil });
    documentsMock.on(TransactWriteCommand).rejects(cancelled({ Code: 'None' }, { Code: 'ConditionalCheckFailed' }));

    await store().withdraw(job);

    expect(documentsMock).toHaveReceivedCommandWith(DeleteCommand, {
      TableName: TABLE,
      Key: { pk: `JOB#${job.jobId}`, sk: 'JOB' },
      ConditionExpression: 'provisionalUntil = :provisionalUntil',
      ExpressionAttributeValues: { ':provisionalUntil': provisionalUntil },
    });
  });
});

describe('DynamoDbReportJobStore erasure', () => {
  it('answers a report request for a user whose slot an erasure holds as for an unknown user', async () => {
    documentsMock.on(TransactWriteCommand).rejects(
      cancelled(
        {
          Code: 'ConditionalCheckFailed',
          Item: { jobId: { S: 'ERASURE_HOLD' }, createdAt: { S: T0.toISOString() } },
        },
        { Code: 'None' },
      ),
    );

    await expect(store().createOpenJob(reportJob())).rejects.toBeInstanceOf(NotFoundError);
  });

  it('holds the slot if free, void, an erasure’s or a named leftover, else names the job holding it', async () => {
    const now = new Date('2026-03-01T12:00:00.000Z');
    const until = new Date('2026-03-01T12:01:00.000Z');
    documentsMock
      .on(PutCommand)
      .resolvesOnce({})
      .rejectsOnce(
        new ConditionalCheckFailedException({
          message: 'The conditional request failed',
          $metadata: {},
          Item: { jobId: { S: OPEN_JOB_ID } },
        }),
      );

    expect(await store().holdForErasure(ORG_ID, USER_ID, { now, until, staleJobId: 'old-job' })).toBeUndefined();
    expect(await store().holdForErasure(ORG_ID, USER_ID, { now, until })).toBe(OPEN_JOB_ID);

    const [first, second] = documentsMock.commandCalls(PutCommand).map((call) => call.args[0].input);
    expect(first).toMatchObject({
      Item: {
        pk: `ORG#${ORG_ID}`,
        sk: `OPEN_JOB#${USER_ID}`,
        jobId: 'ERASURE_HOLD',
        provisionalUntil: until.toISOString(),
      },
      ConditionExpression: 'attribute_not_exists(pk) OR provisionalUntil <= :now OR jobId = :hold OR jobId = :stale',
      ExpressionAttributeValues: { ':now': now.toISOString(), ':hold': 'ERASURE_HOLD', ':stale': 'old-job' },
    });
    expect(first!.Item).not.toHaveProperty('sweepPk');
    expect(second!.ConditionExpression).toBe('attribute_not_exists(pk) OR provisionalUntil <= :now OR jobId = :hold');
  });

  it('deletes only a finished job’s record', async () => {
    documentsMock.on(DeleteCommand).resolvesOnce({}).rejectsOnce(conditionFailed());

    expect(await store().delete(completeReportJob())).toBe(true);
    expect(await store().delete(completeReportJob())).toBe(false);
    expect(documentsMock.commandCalls(DeleteCommand)[0]!.args[0].input).toMatchObject({
      Key: { pk: `JOB#${reportJob().jobId}`, sk: 'JOB' },
      ConditionExpression: 'attribute_not_exists(pk) OR #status IN (:complete, :failed)',
    });
  });
});

describe('DynamoDbReportJobStore.findOpenJobsCreatedBefore', () => {
  it('queries the openJobsByAge index for guards with sweepSk before the cutoff', async () => {
    documentsMock
      .on(QueryCommand)
      .resolves({ Items: [{ jobId: OPEN_JOB_ID, orgId: ORG_ID, sweepSk: 'x', pk: 'p', sk: 's' }] });
    const cutoff = new Date('2026-03-01T11:55:00.000Z');

    const found = await store().findOpenJobsCreatedBefore(cutoff, 25);

    expect(found).toEqual([{ jobId: OPEN_JOB_ID, orgId: ORG_ID }]);
    expect(documentsMock).toHaveReceivedCommandWith(QueryCommand, {
      TableName: TABLE,
      IndexName: 'openJobsByAge',
      KeyConditionExpression: 'sweepPk = :open AND sweepSk < :cutoff',
      ExpressionAttributeValues: { ':open': 'OPEN_JOB', ':cutoff': '2026-03-01T11:55:00.000Z' },
      Limit: 25,
    });
  });

  it('returns an empty list when nothing is open', async () => {
    documentsMock.on(QueryCommand).resolves({});

    expect(await store().findOpenJobsCreatedBefore(T0, 10)).toEqual([]);
  });
});

describe('DynamoDbReportJobStore.listByOrganization', () => {
  const jobItem = (jobId: string, createdAt: string) => ({
    pk: `JOB#${jobId}`,
    sk: 'JOB',
    orgJobsPk: `ORG#${ORG_ID}`,
    orgJobsSk: `${createdAt}#${jobId}`,
    ttl: 1,
    ...reportJob({ jobId, createdAt }),
  });
  const first = jobItem('11111111-1111-4111-8111-111111111111', '2026-03-01T12:00:02.000Z');
  const second = jobItem('22222222-2222-4222-8222-222222222222', '2026-03-01T12:00:01.000Z');

  it("queries the caller's partition of jobsByOrganization newest first, one item more than the page, without provisional jobs", async () => {
    documentsMock.on(QueryCommand).resolves({ Items: [first, second] });

    const page = await store().listByOrganization(ORG_ID, { limit: 1, cursor: undefined, now: T0 });

    expect(page.jobs).toEqual([reportJob({ jobId: first.jobId, createdAt: first.createdAt })]);
    expect(page.nextCursor).toBeDefined();
    expect(documentsMock).toHaveReceivedCommandWith(QueryCommand, {
      TableName: TABLE,
      IndexName: 'jobsByOrganization',
      KeyConditionExpression: 'orgJobsPk = :pk',
      FilterExpression: 'attribute_not_exists(provisionalUntil) AND (attribute_not_exists(#ttl) OR #ttl > :nowEpoch)',
      ExpressionAttributeValues: { ':pk': `ORG#${ORG_ID}`, ':nowEpoch': T0.getTime() / 1000 },
      ScanIndexForward: false,
      Limit: 2,
    });
  });

  it('continues after the cursor, rebuilding the start key from the caller organization alone', async () => {
    documentsMock
      .on(QueryCommand)
      .resolvesOnce({ Items: [first, second] })
      .resolves({ Items: [] });
    const { nextCursor } = await store().listByOrganization(ORG_ID, { limit: 1, cursor: undefined, now: T0 });

    await store().listByOrganization('other-org', { limit: 1, cursor: nextCursor, now: T0 });

    expect(documentsMock.commandCalls(QueryCommand)[1]!.args[0].input.ExclusiveStartKey).toEqual({
      orgJobsPk: 'ORG#other-org',
      orgJobsSk: first.orgJobsSk,
      pk: first.pk,
      sk: 'JOB',
    });
  });

  it('has no cursor on the last page', async () => {
    documentsMock.on(QueryCommand).resolves({ Items: [first] });

    expect(await store().listByOrganization(ORG_ID, { limit: 5, cursor: undefined, now: T0 })).toEqual({
      jobs: [reportJob({ jobId: first.jobId, createdAt: first.createdAt })],
      nextCursor: undefined,
    });
  });

  it('filters by user and reads on while the page is short, then hands back where it stopped', async () => {
    documentsMock.on(QueryCommand).resolves({ Items: [], LastEvaluatedKey: { ...second } });

    const page = await store().listByOrganization(ORG_ID, { limit: 10, cursor: undefined, userId: USER_ID, now: T0 });

    const calls = documentsMock.commandCalls(QueryCommand);
    expect(calls).toHaveLength(5);
    expect(calls[0]!.args[0].input.FilterExpression).toContain('userId = :userId');
    expect(calls[0]!.args[0].input.ExpressionAttributeValues).toMatchObject({ ':userId': USER_ID });
    expect(page.jobs).toEqual([]);
    const resumed = await store()
      .listByOrganization(ORG_ID, { limit: 10, cursor: page.nextCursor, now: T0 })
      .then(() => documentsMock.commandCalls(QueryCommand)[5]!.args[0].input.ExclusiveStartKey);
    expect(resumed).toMatchObject({ orgJobsSk: second.orgJobsSk });
  });

  it('refuses a cursor of another listing as a 400 on cursor', async () => {
    const foreign = Buffer.from(JSON.stringify({ sk: 'TOKEN#2026-03-01T12:00:00.000Z#x' })).toString('base64url');

    await expect(store().listByOrganization(ORG_ID, { limit: 5, cursor: foreign, now: T0 })).rejects.toMatchObject({
      name: 'InvalidInputError',
      problems: [{ field: 'cursor', code: 'isIn' }],
    });
  });
});
