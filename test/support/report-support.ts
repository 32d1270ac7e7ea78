import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { inject, vi } from 'vitest';
import { seedGeneratedOrganization } from '#local/seed-demo-data.ts';
import { DynamoDbReportJobStore } from '#shared/adapters/dynamodb/report-job-store.ts';
import type { ReportJob, ReportJobStatus } from '#shared/domain/reports/report-job.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { lambdaContext as lambdaContextOf } from '#test/support/api-event.ts';
import { msAfter } from '#test/support/fixtures/defaults.ts';
import { reportJobIn } from '#test/support/fixtures/report-jobs.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';
import { callApi } from './api-client.ts';

/** Direct access to the local stack's tables and in-process handlers, for report job tests. */

export function documentClient(): DynamoDBDocumentClient {
  const env = inject('localEnv');
  const client = new DynamoDBClient({
    endpoint: env.AWS_ENDPOINT_URL_DYNAMODB,
    region: env.AWS_REGION,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

export const reportJobsTableName = (): string => inject('localEnv').REPORT_JOBS_TABLE_NAME!;

export function reportJobStore(documents = documentClient()): DynamoDbReportJobStore {
  return new DynamoDbReportJobStore(documents, reportJobsTableName());
}

/** `count` demo users written into the organization's users table; returns their records. */
export function seedOrganization(orgId: string, count: number): Promise<UserRecord[]> {
  return seedGeneratedOrganization({
    database: usersDatabaseAsAdmin(),
    orgId,
    count,
    organizationName: `Org ${orgId}`,
  });
}

/** An open job written straight into the table, with its guard, and never queued: no worker will touch it. */
export async function writeOpenJob(
  store: DynamoDbReportJobStore,
  input: { orgId: string; userId: string; status?: ReportJobStatus; createdAt?: Date },
): Promise<ReportJob> {
  const createdAt = (input.createdAt ?? new Date()).toISOString();
  const status = input.status ?? 'PENDING';
  const job = reportJobIn(status, {
    jobId: randomUUID(),
    orgId: input.orgId,
    userId: input.userId,
    templateVersion: 'test',
    createdAt,
    ...(status === 'IN_PROGRESS'
      ? { attemptId: randomUUID(), startedAt: createdAt, leaseExpiresAt: msAfter(createdAt, 65_000) }
      : {}),
  });
  await store.createOpenJob(job);
  return job;
}

/** Polls the status endpoint until the job reaches one of `statuses`. */
export async function waitForJob(
  jobId: string,
  token: string,
  statuses: readonly ReportJobStatus[] = ['COMPLETE', 'FAILED'],
  timeoutMs = 20_000,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await callApi('GET', `/v1/document/api/${jobId}`, { token });
    if (response.status !== 200)
      throw new Error(`GET job ${jobId}: ${response.status} ${JSON.stringify(response.body)}`);
    if (statuses.includes(response.body.status)) return response.body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${response.body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

type Handler<E, R> = (event: E, context: Context) => Promise<R>;

/**
 * Imports a function entry point afresh, as a cold start with the stack's environment plus
 * `overrides` (its module scope reads configuration once, so overrides stick to this instance).
 * Also returns the logger instance that module uses.
 */
export async function coldStart<E, R>(
  entry: string,
  overrides: Record<string, string> = {},
): Promise<{ handler: Handler<E, R>; logger: { info: (...args: any[]) => void; warn: (...args: any[]) => void } }> {
  for (const [name, value] of Object.entries({ ...inject('localEnv'), ...overrides })) vi.stubEnv(name, value);
  vi.resetModules();
  const module = (await import(/* @vite-ignore */ `../../functions/${entry}.ts`)) as { handler: Handler<E, R> };
  const { logger } = await import('#shared/observability/logger.ts');
  return { handler: module.handler, logger };
}

/** The context of a function run for real: its remaining time counts down from `timeoutMs`. */
export const lambdaContext = (functionName: string, timeoutMs = 60_000): Context =>
  lambdaContextOf({ functionName, remainingTimeInMillis: timeoutMs, countsDown: true });

/** One SQS record of a report job message, as Lambda delivers it. */
export function reportJobRecord(message: { orgId: string; jobId: string }, receiveCount = 1): SQSRecord {
  const now = String(Date.now());
  return {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body: JSON.stringify(message),
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: now,
      SenderId: '000000000000',
      ApproximateFirstReceiveTimestamp: now,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:report-jobs',
    awsRegion: 'us-east-1',
  };
}

export const sqsEvent = (...records: SQSRecord[]): SQSEvent => ({ Records: records });
