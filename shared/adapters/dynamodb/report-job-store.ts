import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DependencyUnavailableError,
  InvalidInputError,
  NotFoundError,
  OpenJobExistsError,
} from '#shared/domain/errors.ts';
import type { CompletedReport, ReportJobPage, ReportJobStore } from '#shared/domain/reports/ports.ts';
import { processingDurationMs, type ReportErrorCode, type ReportJob } from '#shared/domain/reports/report-job.ts';
import { cancellationReasons, withTransactionConflictRetry } from './transactions.ts';
import { epochSeconds, organizationPartition } from './keys.ts';
import { decodeCursor, encodeCursor } from './page-cursor.ts';
import { writeOnce } from './write-once.ts';

const DAY_SECONDS = 24 * 60 * 60;
/** Guards normally go when their job finishes; the TTL only cleans up after a total failure. */
const GUARD_SAFETY_TTL_SECONDS = 24 * 60 * 60;
const OPEN_JOBS_INDEX = 'openJobsByAge';
const OPEN_JOB_SWEEP_KEY = 'OPEN_JOB';
const JOBS_BY_ORGANIZATION_INDEX = 'jobsByOrganization';
/**
 * The `jobId` of a guard an erasure holds (`holdForErasure`): not a UUID, so no job can be it. Its
 * `provisionalUntil` is the hold's end, after which `createOpenJob` treats it as free, as it does a
 * void job's guard; it has no sweep keys, so the sweep never sees it.
 */
const ERASURE_HOLD_JOB_ID = 'ERASURE_HOLD';
/** Pages of a filtered listing read at most per request; a sparse match hands back a cursor instead of reading on. */
const MAX_LIST_ROUNDS = 5;

const jobKey = (jobId: string) => ({ pk: `JOB#${jobId}`, sk: 'JOB' });
const guardKey = (orgId: string, userId: string) => ({ pk: organizationPartition(orgId), sk: `OPEN_JOB#${userId}` });
/** The job's keys in `jobsByOrganization`: its organization's jobs, ordered by creation (then id). */
const organizationJobKey = (job: Pick<ReportJob, 'orgId' | 'createdAt' | 'jobId'>) => ({
  orgJobsPk: organizationPartition(job.orgId),
  orgJobsSk: `${job.createdAt}#${job.jobId}`,
});
/** `{createdAt}#{jobId}`: an ISO instant, `#`, a UUID. */
const ORGANIZATION_JOB_SORT_KEY = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z#([0-9a-f-]{36})$/;

/**
 * Report jobs are addressed by id (`JOB#{jobId}`); each open job has a guard item in its
 * organization's partition (`ORG#{org}` / `OPEN_JOB#{userId}`) that is created with the job and
 * removed with its final state in the same transaction, which is what keeps one open job per
 * user under concurrency. Guards carry the sparse `openJobsByAge` index keys the sweep reads.
 */
export class DynamoDbReportJobStore implements ReportJobStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Days a job stays readable; the bucket's lifecycle expires its PDF after the same time. */
    private readonly retentionDays = 30,
  ) {}

  async createOpenJob(job: ReportJob): Promise<void> {
    const command = new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: this.tableName,
            Item: {
              ...guardKey(job.orgId, job.userId),
              jobId: job.jobId,
              orgId: job.orgId,
              createdAt: job.createdAt,
              sweepPk: OPEN_JOB_SWEEP_KEY,
              sweepSk: `${job.createdAt}#${job.jobId}`,
              ...(job.provisionalUntil ? { provisionalUntil: job.provisionalUntil } : {}),
              ttl: epochSeconds(job.createdAt) + GUARD_SAFETY_TTL_SECONDS,
            },
            // A guard whose job was never confirmed belongs to a request that gave up.
            ConditionExpression: 'attribute_not_exists(pk) OR provisionalUntil <= :now',
            ExpressionAttributeValues: { ':now': job.createdAt },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        {
          Put: {
            TableName: this.tableName,
            Item: {
              ...jobKey(job.jobId),
              ...organizationJobKey(job),
              ...job,
              ttl: epochSeconds(job.createdAt) + this.retentionDays * DAY_SECONDS,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    });
    try {
      await withTransactionConflictRetry(() => this.documents.send(command));
    } catch (error) {
      const existingGuard =
        error instanceof TransactionCanceledException ? error.CancellationReasons?.[0]?.Item : undefined;
      if (cancellationReasons(error)[0] === 'ConditionalCheckFailed' && existingGuard) {
        // The user is being erased: as good as unknown already.
        if (existingGuard.jobId?.S === ERASURE_HOLD_JOB_ID) throw new NotFoundError(`user ${job.userId} not found`);
        throw new OpenJobExistsError(existingGuard.jobId?.S ?? 'unknown', existingGuard.createdAt?.S ?? job.createdAt);
      }
      throw error;
    }
  }

  async confirm(job: ReportJob): Promise<void> {
    const command = new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: this.tableName,
            Key: guardKey(job.orgId, job.userId),
            UpdateExpression: 'REMOVE provisionalUntil',
            ConditionExpression: 'jobId = :jobId',
            ExpressionAttributeValues: { ':jobId': job.jobId },
          },
        },
        {
          Update: {
            TableName: this.tableName,
            Key: jobKey(job.jobId),
            UpdateExpression: 'REMOVE provisionalUntil',
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
      ],
    });
    try {
      await withTransactionConflictRetry(() => this.documents.send(command));
    } catch (error) {
      if (cancellationReasons(error).includes('ConditionalCheckFailed')) {
        throw new DependencyUnavailableError('database (job confirmation came too late)', { cause: error });
      }
      throw error;
    }
  }

  async get(jobId: string): Promise<ReportJob | undefined> {
    const result = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: jobKey(jobId), ConsistentRead: true }),
    );
    // TTL deletes items up to a few days late: a job past its retention is gone, whatever the table says.
    if (!result.Item || (typeof result.Item.ttl === 'number' && result.Item.ttl <= Date.now() / 1000)) return undefined;
    return toJob(result.Item);
  }

  async withdraw(job: ReportJob): Promise<void> {
    try {
      await withTransactionConflictRetry(() =>
        this.documents.send(
          new TransactWriteCommand({
            TransactItems: [{ Delete: { TableName: this.tableName, Key: jobKey(job.jobId) } }, this.releaseGuard(job)],
          }),
        ),
      );
    } catch (error) {
      // The guard is another's already (a new job's, or an erasure's hold, took the void job's
      // slot): the job goes alone, if it is still the provisional one withdrawn.
      if (cancellationReasons(error)[1] !== 'ConditionalCheckFailed' || job.provisionalUntil === undefined) throw error;
      try {
        await this.documents.send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: jobKey(job.jobId),
            ConditionExpression: 'provisionalUntil = :provisionalUntil',
            ExpressionAttributeValues: { ':provisionalUntil': job.provisionalUntil },
          }),
        );
      } catch (deleteError) {
        if (!(deleteError instanceof ConditionalCheckFailedException)) throw deleteError;
      }
    }
  }

  async start(
    jobId: string,
    attempt: { attemptId: string; now: Date; leaseMs: number },
  ): Promise<ReportJob | undefined> {
    const now = attempt.now.toISOString();
    const started = await writeOnce(
      this.documents,
      {
        Update: {
          TableName: this.tableName,
          Key: jobKey(jobId),
          UpdateExpression:
            'SET #status = :inProgress, attemptId = :attemptId, startedAt = :now, leaseExpiresAt = :leaseExpiresAt, updatedAt = :now',
          ConditionExpression:
            '(#status = :pending AND (attribute_not_exists(provisionalUntil) OR provisionalUntil > :now)) OR (#status = :inProgress AND leaseExpiresAt < :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': 'PENDING',
            ':inProgress': 'IN_PROGRESS',
            ':attemptId': attempt.attemptId,
            ':now': now,
            ':leaseExpiresAt': new Date(attempt.now.getTime() + attempt.leaseMs).toISOString(),
          },
          ReturnValues: 'ALL_NEW',
        },
      },
      { attribute: 'attemptId', value: attempt.attemptId },
    );
    switch (started.kind) {
      case 'written':
        return started.attributes ? toJob(started.attributes) : undefined;
      // This attempt holds the job (its lease keeps others off): read it as its start left it.
      case 'written-earlier':
        return this.get(jobId);
      case 'condition-failed':
        return undefined;
    }
  }

  async release(job: ReportJob, now: Date): Promise<void> {
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: jobKey(job.jobId),
          UpdateExpression: 'SET #status = :pending, updatedAt = :now REMOVE attemptId, startedAt, leaseExpiresAt',
          ConditionExpression: '#status = :inProgress AND attemptId = :attemptId',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': 'PENDING',
            ':inProgress': 'IN_PROGRESS',
            ':attemptId': job.attemptId,
            ':now': now.toISOString(),
          },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async complete(job: ReportJob, result: CompletedReport): Promise<boolean> {
    // Every member of the result is stored as it is named: a new field of a finished report needs no change here.
    const members = Object.entries(result);
    return this.finish(job, {
      UpdateExpression:
        `SET #status = :complete, ${members.map(([name]) => `#r_${name} = :r_${name}`).join(', ')}, ` +
        'updatedAt = :completedAt REMOVE leaseExpiresAt',
      ConditionExpression: '#status = :inProgress AND attemptId = :attemptId',
      ExpressionAttributeNames: {
        '#status': 'status',
        ...Object.fromEntries(members.map(([name]) => [`#r_${name}`, name])),
      },
      ExpressionAttributeValues: {
        ':complete': 'COMPLETE',
        ':inProgress': 'IN_PROGRESS',
        ':attemptId': job.attemptId,
        ':completedAt': result.completedAt,
        ...Object.fromEntries(members.map(([name, value]) => [`:r_${name}`, value])),
      },
    });
  }

  async fail(job: ReportJob, errorCode: ReportErrorCode, now: Date): Promise<boolean> {
    // A job seen in the hands of one attempt is failed only if no other attempt took it over since.
    const sameAttempt = job.attemptId ? { ':attemptId': job.attemptId } : {};
    return this.finish(job, {
      UpdateExpression:
        'SET #status = :failed, errorCode = :errorCode, durationMs = :durationMs, updatedAt = :now REMOVE leaseExpiresAt',
      ConditionExpression: `#status IN (:pending, :inProgress)${job.attemptId ? ' AND attemptId = :attemptId' : ''}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':failed': 'FAILED',
        ':pending': 'PENDING',
        ':inProgress': 'IN_PROGRESS',
        ':errorCode': errorCode,
        ':durationMs': processingDurationMs(job, now),
        ':now': now.toISOString(),
        ...sameAttempt,
      },
    });
  }

  async findOpenJobsCreatedBefore(cutoff: Date, limit: number): Promise<Array<Pick<ReportJob, 'jobId' | 'orgId'>>> {
    const result = await this.documents.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: OPEN_JOBS_INDEX,
        KeyConditionExpression: 'sweepPk = :open AND sweepSk < :cutoff',
        ExpressionAttributeValues: { ':open': OPEN_JOB_SWEEP_KEY, ':cutoff': cutoff.toISOString() },
        Limit: limit,
      }),
    );
    return (result.Items ?? []).map((item) => ({ jobId: item.jobId as string, orgId: item.orgId as string }));
  }

  async delete(job: ReportJob): Promise<boolean> {
    try {
      // Finished jobs hold no guard (their final state removed it), so the record is all there is.
      await this.documents.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: jobKey(job.jobId),
          ConditionExpression: 'attribute_not_exists(pk) OR #status IN (:complete, :failed)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':complete': 'COMPLETE', ':failed': 'FAILED' },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async holdForErasure(
    orgId: string,
    userId: string,
    hold: { now: Date; until: Date; staleJobId?: string },
  ): Promise<string | undefined> {
    const now = hold.now.toISOString();
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...guardKey(orgId, userId),
            jobId: ERASURE_HOLD_JOB_ID,
            orgId,
            createdAt: now,
            provisionalUntil: hold.until.toISOString(),
            ttl: epochSeconds(hold.until.toISOString()) + GUARD_SAFETY_TTL_SECONDS,
          },
          // Free, void, already an erasure's (extended), or a leftover the caller found finished.
          ConditionExpression:
            'attribute_not_exists(pk) OR provisionalUntil <= :now OR jobId = :hold' +
            (hold.staleJobId === undefined ? '' : ' OR jobId = :stale'),
          ExpressionAttributeValues: {
            ':now': now,
            ':hold': ERASURE_HOLD_JOB_ID,
            ...(hold.staleJobId === undefined ? {} : { ':stale': hold.staleJobId }),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return undefined;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const holder = (error.Item as { jobId?: { S?: string } } | undefined)?.jobId?.S;
      if (holder === undefined)
        throw new DependencyUnavailableError('database (open-job guard unreadable)', { cause: error });
      return holder;
    }
  }

  async listByOrganization(
    orgId: string,
    page: { limit: number; cursor: string | undefined; userId?: string; now: Date },
  ): Promise<ReportJobPage> {
    const partition = organizationPartition(orgId);
    let exclusiveStartKey = page.cursor === undefined ? undefined : startKeyOf(partition, page.cursor);
    const conditions = [
      // Provisional jobs are in flight or were given up (503): never listed.
      'attribute_not_exists(provisionalUntil)',
      // TTL deletes items up to a few days late.
      '(attribute_not_exists(#ttl) OR #ttl > :nowEpoch)',
      ...(page.userId === undefined ? [] : ['userId = :userId']),
    ];
    const items: Array<Record<string, unknown>> = [];
    // One extra item tells whether another page exists. A userId filter may leave a page short:
    // read on, but at most MAX_LIST_ROUNDS pages, then hand back a cursor to continue from.
    for (let round = 1; ; round += 1) {
      const result = await this.documents.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: JOBS_BY_ORGANIZATION_INDEX,
          KeyConditionExpression: 'orgJobsPk = :pk',
          FilterExpression: conditions.join(' AND '),
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':pk': partition,
            ':nowEpoch': Math.floor(page.now.getTime() / 1000),
            ...(page.userId === undefined ? {} : { ':userId': page.userId }),
          },
          ScanIndexForward: false,
          Limit: page.userId === undefined ? page.limit + 1 : Math.max(page.limit + 1, 100),
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      items.push(...(result.Items ?? []));
      exclusiveStartKey = result.LastEvaluatedKey as typeof exclusiveStartKey;
      if (items.length > page.limit || exclusiveStartKey === undefined || round >= MAX_LIST_ROUNDS) break;
    }
    const records = items.slice(0, page.limit);
    const last = records.at(-1);
    let nextCursor: string | undefined;
    if (items.length > page.limit && last) nextCursor = encodeCursor(last.orgJobsSk as string);
    else if (exclusiveStartKey !== undefined) nextCursor = encodeCursor(exclusiveStartKey.orgJobsSk as string);
    return { jobs: records.map(toJob), nextCursor };
  }

  /** A final state for the job and the guard's removal, in one transaction. */
  private async finish(
    job: ReportJob,
    update: {
      UpdateExpression: string;
      ConditionExpression: string;
      ExpressionAttributeNames: Record<string, string>;
      ExpressionAttributeValues: Record<string, unknown>;
    },
  ): Promise<boolean> {
    try {
      await withTransactionConflictRetry(() =>
        this.documents.send(
          new TransactWriteCommand({
            TransactItems: [
              { Update: { TableName: this.tableName, Key: jobKey(job.jobId), ...update } },
              this.releaseGuard(job),
            ],
          }),
        ),
      );
      return true;
    } catch (error) {
      if (cancellationReasons(error).includes('ConditionalCheckFailed')) return false;
      throw error;
    }
  }

  private releaseGuard(job: ReportJob) {
    return {
      Delete: {
        TableName: this.tableName,
        Key: guardKey(job.orgId, job.userId),
        // Never remove a guard that belongs to another job.
        ConditionExpression: 'attribute_not_exists(pk) OR jobId = :jobId',
        ExpressionAttributeValues: { ':jobId': job.jobId },
      },
    };
  }
}

/** The index key to continue after, rebuilt from the cursor's sort key and the caller's organization. */
function startKeyOf(partition: string, cursor: string): Record<string, string> {
  const sortKey = decodeCursor(cursor, '');
  const jobId = ORGANIZATION_JOB_SORT_KEY.exec(sortKey)?.[1];
  if (jobId === undefined) {
    throw new InvalidInputError([{ field: 'cursor', code: 'isIn', hint: 'cursor is not one this listing returned' }]);
  }
  return { orgJobsPk: partition, orgJobsSk: sortKey, ...jobKey(jobId) };
}

function toJob(item: Record<string, unknown>): ReportJob {
  const { pk: _pk, sk: _sk, ttl: _ttl, orgJobsPk: _orgJobsPk, orgJobsSk: _orgJobsSk, ...job } = item;
  return job as unknown as ReportJob;
}
