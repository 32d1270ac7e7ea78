import { randomUUID } from 'node:crypto';
import { LocalReportSigningKey } from '#shared/adapters/signing/local-report-signing-key.ts';
import { padesReportSigner, reportSignaturePlaceholder } from '#shared/adapters/signing/pades-report-signer.ts';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { performance } from 'node:perf_hooks';
import { createDynamoDbClients, createS3Client, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { DynamoDbReportJobStore } from '#shared/adapters/dynamodb/report-job-store.ts';
import { PostgresUserDirectory } from '#shared/adapters/postgres/user-directory.ts';
import { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import { S3ReportStorage } from '#shared/adapters/s3/report-storage.ts';
import { webhookEventPublishing } from '#shared/wiring/webhook-events.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import { pdfReportRenderer } from '#shared/adapters/pdf/render-user-report.ts';
import { processReportJob } from '#shared/domain/reports/process-report-job.ts';
import type { ReportJob } from '#shared/domain/reports/report-job.ts';
import { REPORT_TEMPLATE_VERSION } from '#shared/domain/reports/report-template-version.ts';
import { emittingReportEvents } from '#shared/domain/webhooks/webhook-events.ts';
import { summarize, type Row } from '#bench/report.ts';
import { seedOrganization } from '#bench/support/local-api.ts';
import type { Measurement } from '#bench/support/measurement.ts';

/**
 * 10. What webhook event emission adds to a report job in the worker: the worker's use case with
 * the real adapters on the emulators (DynamoDB Local, S3, SQS) and the local PostgreSQL (the
 * user read, as the users_reader role the worker connects as in AWS, one connection), once with the report job store
 * that publishes `report.completed` after the COMPLETE write and once without, interleaved, one
 * job at a time. Jobs are written straight into the table and never queued, so the stack's own
 * worker does not take them. Each job with emission is paired with the job before it without;
 * budget: the median of those differences <= 5 ms. The publish alone is shown too: the render's
 * variance on a shared machine is larger than the publish.
 */
const JOBS = 30;
const WARMUP_JOBS = 2;
const MAX_ADDED_MS = 5;
const PUBLISHES = 50;

export default {
  title: '10 webhook emission',
  async run(context) {
    const stack = await context.localStack();
    const orgId = `bench-webhooks-${context.runId}`;
    const users = await seedOrganization(context, orgId, 4);
    const dynamoDb = createDynamoDbClients();
    const store = new DynamoDbReportJobStore(dynamoDb.documents, stack.env.REPORT_JOBS_TABLE_NAME!);
    const { host, port, reader } = stack.usersDatabase;
    const usersDatabase = PostgresUsersDatabase.withPassword({ host, port, ...reader, maxConnections: 1 });
    context.onClose(() => usersDatabase.close());
    const deps = {
      users: new PostgresUserDirectory(usersDatabase),
      storage: new S3ReportStorage(createS3Client(), stack.env.REPORTS_BUCKET_NAME!),
      render: pdfReportRenderer(loadReportFonts(), undefined, reportSignaturePlaceholder()),
      sign: padesReportSigner(new LocalReportSigningKey(stack.env.REPORT_SIGNING_KEY_FILE!)),
      clock: systemClock,
      templateVersion: REPORT_TEMPLATE_VERSION,
    };
    // A queue of its own that nothing polls: in AWS the delivery function runs in another Lambda,
    // while here the stack's poller would fan each event out in this very process, mid-measurement.
    const sqs = createSqsClient();
    const { QueueUrl: queueUrl } = await sqs.send(
      new CreateQueueCommand({ QueueName: `bench-webhooks-${context.runId}` }),
    );
    if (!queueUrl) throw new Error('the SQS emulator returned no queue URL');
    const publishingConfig = { WEBHOOK_QUEUE_URL: queueUrl, WEBHOOKS_TABLE_NAME: stack.env.WEBHOOKS_TABLE_NAME! };
    const variants = {
      without: processReportJob({ ...deps, jobs: store }),
      with: processReportJob({
        ...deps,
        jobs: emittingReportEvents(store, webhookEventPublishing(publishingConfig)),
      }),
    };
    const times = { without: [] as number[], with: [] as number[] };
    for (let i = 0; i < 2 * (WARMUP_JOBS + JOBS); i++) {
      // Counterbalanced (ABBA): each pair runs one job of each, the first alternating between
      // pairs, so whatever the emulator still does after a job (index updates) burdens both alike.
      const pairStartsWithout = Math.floor(i / 2) % 2 === 0;
      const variant = (i % 2 === 0) === pairStartsWithout ? 'without' : 'with';
      const now = new Date().toISOString();
      const job: ReportJob = {
        jobId: randomUUID(),
        orgId,
        userId: users[i % users.length]!.id,
        status: 'PENDING',
        templateVersion: REPORT_TEMPLATE_VERSION,
        createdAt: now,
        updatedAt: now,
      };
      await store.createOpenJob(job);
      const startedAt = performance.now();
      const result = await variants[variant]({ orgId, jobId: job.jobId }, { isFinalAttempt: false, leaseMs: 60_000 });
      const elapsed = performance.now() - startedAt;
      if (result.outcome !== 'completed') throw new Error(`job ${job.jobId}: ${result.outcome}`);
      if (i >= 2 * WARMUP_JOBS) times[variant].push(elapsed);
    }
    // The emission's own cost, without the render's noise around it: the publish the store adds.
    const publishing = webhookEventPublishing(publishingConfig);
    const publishTimes: number[] = [];
    for (let i = 0; i < PUBLISHES; i++) {
      const startedAt = performance.now();
      await publishing.queue.publishEvent({
        eventId: `evt_bench_${i}`,
        orgId,
        type: 'report.completed',
        timestamp: new Date().toISOString(),
        data: { jobId: randomUUID(), status: 'COMPLETE' },
      });
      publishTimes.push(performance.now() - startedAt);
    }
    const withStat = summarize(times.with, { p99: true });
    const withoutStat = summarize(times.without, { p99: true });
    return [
      {
        measurement: this.title,
        subject: `worker job with report.completed emission (${JOBS} jobs)`,
        unit: 'ms',
        value: withStat,
        baseline: { subject: 'the same job without emission', value: withoutStat },
      },
      {
        measurement: this.title,
        subject: `one event publish (SendMessage), ${PUBLISHES} calls`,
        unit: 'ms',
        value: summarize(publishTimes, { p99: true }),
      },
      {
        measurement: this.title,
        subject: `added to a job by emission (median of ${JOBS} paired differences)`,
        unit: 'ms',
        value: summarize(
          times.with.map((withMs, i) => withMs - times.without[i]!),
          { p99: false },
        ),
        budget: { on: 'median', max: MAX_ADDED_MS },
        note: `difference of the medians: ${(withStat.median - withoutStat.median).toFixed(1)} ms`,
      },
    ] satisfies Row[];
  },
} satisfies Measurement;
