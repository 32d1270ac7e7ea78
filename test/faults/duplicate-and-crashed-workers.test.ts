import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';
import { startSqsPoller } from '#local/sqs-poller.ts';
import { repoRoot } from '#lib/repo-root.ts';
import { MAX_RECEIVES } from '#shared/queue/report-job-messages.ts';
import { WORKER_TIMEOUT_SECONDS } from '#shared/queue/report-pipeline-timing.ts';
import { tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import {
  coldStart,
  lambdaContext,
  reportJobRecord,
  reportJobStore,
  seedOrganization,
  sqsEvent,
  writeOpenJob,
} from '#test/support/report-support.ts';
import {
  expectOneEventPerFinishedJob,
  expectOnePdfPerCompleteJob,
  finalJobs,
  reportEventsReceiver,
  sleep,
  storedReports,
  type WebhookReceiver,
} from './fault-support.ts';

/**
 * At-least-once delivery and crashes in the report worker. The same message delivered twice at
 * once (two warm workers) and again after the job completed renders one PDF, completes the job
 * once and emits one `report.completed`. A worker process killed after taking a job leaves it
 * IN_PROGRESS under a lease; SQS delivers the message again after its visibility timeout, and the
 * next attempt takes the job over and finishes it (or fails it on the last receive): never stuck.
 */

type WorkerHandler = (event: SQSEvent, context: ReturnType<typeof lambdaContext>) => Promise<SQSBatchResponse>;

const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

describe('the same report message delivered more than once', () => {
  it('renders one PDF, completes the job once and emits one report.completed', async () => {
    const orgId = uniqueOrg('dupmsg');
    const token = await tokenFor(orgId);
    const [user] = await seedOrganization(orgId, 1);
    const receiver = await reportEventsReceiver(token);
    receivers.push(receiver);
    const job = await writeOpenJob(reportJobStore(), { orgId, userId: user!.id });
    const message = { orgId, jobId: job.jobId };
    // Two cold starts: two warm workers, as two concurrent Lambda invocations would be.
    const first = (await coldStart<SQSEvent, SQSBatchResponse>('process-report-jobs')).handler as WorkerHandler;
    const second = (await coldStart<SQSEvent, SQSBatchResponse>('process-report-jobs')).handler as WorkerHandler;
    const invoke = (handler: WorkerHandler, receiveCount: number) =>
      handler(sqsEvent(reportJobRecord(message, receiveCount)), lambdaContext('ProcessReportJobs', 15_000));

    const parallel = await Promise.all([invoke(first, 1), invoke(second, 1)]);
    expect(parallel).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    const [completed] = await finalJobs(token, [job.jobId], 5_000);
    expect(completed!.status).toBe('COMPLETE');
    await receiver.waitFor(1, 20_000);

    // Delivered again after the job completed (SQS redelivers a message whose deletion was lost).
    expect(await invoke(second, 2)).toEqual({ batchItemFailures: [] });

    const [after] = await finalJobs(token, [job.jobId], 5_000);
    expect(after).toEqual(completed);
    await expectOnePdfPerCompleteJob(orgId, [after!]);
    await expectOneEventPerFinishedJob(receiver, [after!]);
  }, 60_000);
});

describe('a worker process killed mid-job', () => {
  /** The killed invocation's function timeout: its lease is that plus 5 s (functions/process-report-jobs.ts). */
  const CHILD_TIMEOUT_MS = 5_000;
  /** Longer than the killed attempt's lease, as AWS's 90 s are longer than the worker's 15 s + 5 s. */
  const VISIBILITY_TIMEOUT_SECONDS = 11;
  const sqs = new SQSClient({
    endpoint: inject('endpoints').sqs,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const queueName = `report-jobs-crash-${randomUUID().slice(0, 8)}`;
  let queueUrl: string | undefined;
  let poller: { stop(): Promise<void> } | undefined;

  afterAll(async () => {
    await poller?.stop();
    if (queueUrl) await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    sqs.destroy();
  });

  it('leaves the job to the next delivery, which takes it over and completes it', async () => {
    const orgId = uniqueOrg('killed');
    const token = await tokenFor(orgId);
    const [user] = await seedOrganization(orgId, 1);
    const receiver = await reportEventsReceiver(token);
    receivers.push(receiver);
    const jobs = reportJobStore();
    const job = await writeOpenJob(jobs, { orgId, userId: user!.id });

    // A queue of this test's own (so the stack's worker does not race the child for the message),
    // with the report queue's redrive: MAX_RECEIVES receives, then the dead-letter handler.
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: new URL(new URL(inject('localEnv').REPORT_DLQ_URL!).pathname, inject('endpoints').sqs).href,
        AttributeNames: ['QueueArn'],
      }),
    );
    const created = await sqs.send(
      new CreateQueueCommand({
        QueueName: queueName,
        Attributes: {
          VisibilityTimeout: String(VISIBILITY_TIMEOUT_SECONDS),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes!.QueueArn, maxReceiveCount: MAX_RECEIVES }),
        },
      }),
    );
    queueUrl = created.QueueUrl!;
    const queueArn = `arn:aws:sqs:${LOCAL_REGION}:000000000000:${queueName}`;
    await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ orgId, jobId: job.jobId }) }),
    );

    const child = spawn(process.execPath, ['--import', 'tsx', 'test/faults/report-worker-child.ts'], {
      cwd: repoRoot,
      env: {
        ...process.env,
        ...inject('localEnv'),
        CHILD_QUEUE_URL: queueUrl,
        CHILD_QUEUE_ARN: queueArn,
        CHILD_SQS_ENDPOINT: inject('endpoints').sqs,
        CHILD_TIMEOUT_MS: String(CHILD_TIMEOUT_MS),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit');
    try {
      // Killed as soon as it holds the job: after taking it, before storing the PDF.
      const deadline = Date.now() + 30_000;
      while ((await jobs.get(job.jobId))?.status !== 'IN_PROGRESS') {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error('the child worker never took the job');
        await sleep(10);
      }
      child.kill('SIGKILL');
      const [, signal] = await exited;
      expect(signal).toBe('SIGKILL');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    const abandoned = await jobs.get(job.jobId);
    expect(abandoned?.status, 'the kill came after the job was completed').toBe('IN_PROGRESS');
    expect(await storedReports(orgId)).toEqual([]);

    // The event source mapping goes on: the message comes back after its visibility timeout.
    const { handler } = await coldStart<SQSEvent, SQSBatchResponse>('process-report-jobs');
    poller = startSqsPoller({
      queue: { name: queueName, url: queueUrl, arn: queueArn },
      endpoint: inject('endpoints').sqs,
      function: { entry: 'functions/process-report-jobs.ts', name: 'ProcessReportJobs' },
      loadHandler: async () => handler as (event: unknown, context: unknown) => Promise<unknown>,
      timeoutMs: WORKER_TIMEOUT_SECONDS * 1000,
      onError: () => undefined,
    });
    const [finished] = await finalJobs(token, [job.jobId], (VISIBILITY_TIMEOUT_SECONDS + 15) * 1000);
    expect(finished!.status).toBe('COMPLETE');
    await expectOnePdfPerCompleteJob(orgId, [finished!]);
    await expectOneEventPerFinishedJob(receiver, [finished!]);
  }, 90_000);
});
