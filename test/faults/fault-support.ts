import { setTimeout as sleep } from 'node:timers/promises';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { expect, inject } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';
import { REPORT_ERROR_CODES } from '#shared/domain/reports/report-job.ts';
import { callApi, type ApiResponse } from '#test/support/api-client.ts';
import { faultStats, setFault, type FaultMode } from '#test/support/fault-proxy.ts';
import { startWebhookReceiver } from '#test/support/webhook-receiver.ts';

/** What the dependency fault tests share: timed calls, the contract's answers, the after-recovery checks. */

/** The API functions' timeout: every answer must come before it. */
export const FUNCTION_TIMEOUT_MS = 10_000;

export type FaultyDependency = 'dynamodb' | 's3' | 'ses' | 'sqs' | 'kms' | 'postgres' | 'jwks';

/** Switches a dependency's proxy; a hang mode may be narrowed to requests whose head contains `matching`. */
export const fault = (dependency: FaultyDependency, mode: FaultMode, matching?: string) =>
  setFault(inject('faultControl'), dependency, mode, matching);

/**
 * Runs `work` with the next request to `dependency` that contains `operation` hung, and checks that
 * exactly that one request was hung. `hang-next-request` swallows it; `hang-then-land-next-request`
 * lets the dependency apply it and swallows its answer, so the client's retry meets its effect.
 */
export async function withOneHungAttempt<T>(
  dependency: FaultyDependency,
  operation: string,
  work: () => Promise<T>,
  mode: Extract<FaultMode, 'hang-next-request' | 'hang-then-land-next-request'> = 'hang-next-request',
): Promise<T> {
  const before = await fault(dependency, mode, operation);
  let result: T;
  try {
    result = await work();
  } finally {
    await fault(dependency, 'pass');
  }
  const after = await faultStats(inject('faultControl'), dependency);
  expect(after.hungRequests, `${dependency}: one ${operation} attempt was hung`).toBe(before.hungRequests + 1);
  return result;
}

export { sleep };

export interface TimedResponse extends ApiResponse {
  elapsedMs: number;
  label: string;
}

export async function timed(label: string, call: Promise<ApiResponse>): Promise<TimedResponse> {
  const startedAt = Date.now();
  const response = await call;
  return { ...response, label, elapsedMs: Date.now() - startedAt };
}

/** A 503 in the contract's standard body with a Retry-After of 1-30 s. */
export function expectServiceUnavailable(response: TimedResponse): void {
  expect.soft(response.status, `${response.label}: ${JSON.stringify(response.body)}`).toBe(503);
  expect.soft(response.body, response.label).toMatchObject({
    code: 503,
    error: 'SERVICE_UNAVAILABLE',
    message: 'a dependency is temporarily unavailable; retry later',
  });
  const retryAfter = Number(response.headers.get('retry-after'));
  expect.soft(retryAfter, `${response.label} Retry-After`).toBeGreaterThanOrEqual(1);
  expect.soft(retryAfter, `${response.label} Retry-After`).toBeLessThanOrEqual(30);
}

/** Every answer within the function's budget, and either `success` or the contract's 503. */
export function expectContractAnswers(responses: TimedResponse[], success: number): void {
  for (const response of responses) {
    expect.soft(response.elapsedMs, response.label).toBeLessThan(FUNCTION_TIMEOUT_MS);
    if (response.status !== success) expectServiceUnavailable(response);
  }
}

/** The longest Retry-After among `responses`, in milliseconds (0 when none asked to wait). */
export const longestRetryAfterMs = (responses: TimedResponse[]) =>
  Math.max(0, ...responses.map((response) => Number(response.headers.get('retry-after') ?? 0) * 1000));

/**
 * Polls every job until it is COMPLETE or FAILED with one of the contract's error codes, and
 * returns their status responses. A job still open after `timeoutMs` fails the test: stuck.
 */
export async function finalJobs(
  token: string,
  jobIds: readonly string[],
  timeoutMs: number,
): Promise<Array<Record<string, any>>> {
  const deadline = Date.now() + timeoutMs;
  const finished = new Map<string, Record<string, any>>();
  while (finished.size < jobIds.length) {
    for (const jobId of jobIds.filter((id) => !finished.has(id))) {
      const read = await callApi('GET', `/v1/document/api/${jobId}`, { token });
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      if (read.body.status === 'COMPLETE' || read.body.status === 'FAILED') finished.set(jobId, read.body);
    }
    if (finished.size === jobIds.length) break;
    if (Date.now() > deadline) {
      const open = jobIds.filter((id) => !finished.has(id));
      throw new Error(`jobs still open after ${timeoutMs} ms: ${open.join(', ')}`);
    }
    await sleep(300);
  }
  const jobs = jobIds.map((jobId) => finished.get(jobId)!);
  for (const job of jobs.filter((one) => one.status === 'FAILED')) {
    expect(REPORT_ERROR_CODES, job.jobId as string).toContain(job.errorCode);
  }
  return jobs;
}

/** The report PDFs stored for the organization, read from the S3 emulator itself (not through the proxy). */
export async function storedReports(orgId: string): Promise<Array<{ key: string; size: number }>> {
  const s3 = new S3Client({
    endpoint: inject('endpoints').s3,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    forcePathStyle: true,
  });
  try {
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket: inject('localEnv').REPORTS_BUCKET_NAME!, Prefix: `reports/${orgId}/` }),
    );
    return (listed.Contents ?? []).map((object) => ({ key: object.Key!, size: object.Size ?? 0 }));
  } finally {
    s3.destroy();
  }
}

/** One PDF per COMPLETE job, of its size, and none for any other job: no orphan object. */
export async function expectOnePdfPerCompleteJob(orgId: string, jobs: Array<Record<string, any>>): Promise<void> {
  const stored = await storedReports(orgId);
  const expected = jobs
    .filter((job) => job.status === 'COMPLETE')
    .map((job) => ({ key: `reports/${orgId}/${job.jobId}.pdf`, size: job.sizeBytes as number }));
  const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key);
  expect(stored.sort(byKey)).toEqual(expected.sort(byKey));
}

/** A report job message put on the report queue directly (as the create function does), bypassing the proxy. */
export async function queueReportJob(message: { orgId: string; jobId: string }, delaySeconds = 0): Promise<void> {
  const sqs = new SQSClient({
    endpoint: inject('endpoints').sqs,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    const path = new URL(inject('localEnv').REPORT_QUEUE_URL!).pathname;
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: new URL(path, inject('endpoints').sqs).href,
        MessageBody: JSON.stringify(message),
        DelaySeconds: delaySeconds,
      }),
    );
  } finally {
    sqs.destroy();
  }
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

/** A receiver registered for the organization's report events. */
export async function reportEventsReceiver(token: string): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver();
  const created = await callApi('POST', '/v1/webhooks', {
    token,
    body: { url: receiver.url, events: ['report.completed', 'report.failed'] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return receiver;
}

/** The events a receiver got, by type and the job (or token) they are about, with their webhook-ids. */
export function receivedEvents(receiver: WebhookReceiver) {
  return receiver.received.map((request) => {
    const body = JSON.parse(request.body) as { type: string; data: { jobId?: string; tokenId?: string } };
    return {
      webhookId: request.headers['webhook-id'] as string,
      type: body.type,
      subject: body.data.jobId ?? body.data.tokenId ?? '',
    };
  });
}

/**
 * Each finished job's event reached the receiver exactly once (one webhook-id per job, never a
 * second delivery), waiting up to `timeoutMs` for the last one.
 */
export async function expectOneEventPerFinishedJob(
  receiver: WebhookReceiver,
  jobs: Array<Record<string, any>>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const expected = jobs.map((job) => ({
    type: job.status === 'COMPLETE' ? 'report.completed' : 'report.failed',
    subject: job.jobId as string,
  }));
  const arrived = () =>
    expected.every(({ type, subject }) =>
      receivedEvents(receiver).some((event) => event.type === type && event.subject === subject),
    );
  while (!arrived() && Date.now() < deadline) await sleep(200);
  // Time for a duplicate to show up, had one been sent.
  await sleep(1_500);
  const events = receivedEvents(receiver);
  for (const { type, subject } of expected) {
    const matching = events.filter((event) => event.subject === subject);
    expect
      .soft(
        matching.map((event) => event.type),
        subject,
      )
      .toEqual([type]);
  }
}
