import { deadLetterQueue } from '#lib/dead-letter-queue.ts';
import { Duration, RemovalPolicy, Stack, type CfnElement } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Tracing, type Function as LambdaFunctionResource } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
// Plain constants and node:fs/node:path only: importing them does not pull pdf-lib into the CDK app.
import { allReportFontFiles, REPORT_FONTS_DIR_ENV } from '#shared/adapters/pdf/report-fonts.ts';
import { MAX_RECEIVES } from '#shared/queue/report-job-messages.ts';
import {
  DEAD_LETTER_HANDLER_TIMEOUT_SECONDS,
  DEAD_LETTER_QUEUE_VISIBILITY_SECONDS,
  REPORT_QUEUE_VISIBILITY_SECONDS,
  SWEEP_TIMEOUT_SECONDS,
  WORKER_TIMEOUT_SECONDS,
} from '#shared/queue/report-pipeline-timing.ts';
import { reportPipelineFunctions } from '#shared/config/api-routes.ts';
import { ServiceFunction } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';

export interface ReportPipelineConstructProps {
  readonly reportJobs: ServiceTable;
  /** Days a PDF is kept before S3 deletes it (the jobs' DynamoDB TTL uses the same figure). */
  readonly retentionDays: number;
  /**
   * Reserved concurrency of the worker (`reservedConcurrency` context).
   * @default none: it draws on the account's unreserved pool, bounded by its event source
   */
  readonly reservedConcurrency?: number | undefined;
}

/** Every PDF is stored under this prefix (`reports/{orgId}/{jobId}.pdf`, shared/domain/reports/report-job.ts). */
export const reportObjectPrefix = 'reports/';

/** Folder of the worker's bundle the fonts are copied to; the worker finds it through `REPORT_FONTS_DIR`. */
export const reportFontsFolder = 'fonts';

/** Lambda unpacks the bundle into /var/task. */
export const reportFontsDir = `/var/task/${reportFontsFolder}`;

/**
 * See shared/queue/report-pipeline-timing.ts. A longer worker timeout would let the deadline fail
 * a job before SQS ever redelivered its message.
 */
export const workerTimeout = Duration.seconds(WORKER_TIMEOUT_SECONDS);
/**
 * At most this many workers run at once (the event source's maximum concurrency): a burst of jobs
 * waits in the queue instead of taking the account's concurrency from the API functions.
 */
export const workerConcurrency = 5;
const deadLetterHandlerTimeout = Duration.seconds(DEAD_LETTER_HANDLER_TIMEOUT_SECONDS);

const shellQuote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/**
 * After esbuild, copies every report font file (shared/adapters/pdf/report-fonts.ts: Noto Sans
 * families per script, regular and bold) from the installed packages into `fonts/` next to
 * `index.js`; a render reads only the families its text needs. The commands run on the host when esbuild is
 * installed, else in CDK's bundling container; both give the real input and output folders.
 */
export const copyReportFonts: ICommandHooks = {
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (inputDir, outputDir) => [
    `mkdir -p ${shellQuote(`${outputDir}/${reportFontsFolder}`)}`,
    ...allReportFontFiles().map(
      ({ file, packagePath }) =>
        `cp ${shellQuote(`${inputDir}/node_modules/${packagePath}`)} ${shellQuote(`${outputDir}/${reportFontsFolder}/${file}`)}`,
    ),
  ],
};

/**
 * The asynchronous half of report jobs: the private bucket the PDFs land in, the job queue and its
 * dead-letter queue, the worker that renders, the handler that fails dead-lettered jobs and the
 * one-minute sweep that fails jobs past their deadline. API functions are given access through
 * `grantEnqueue` and `grantReportDownloads`.
 */
export class ReportPipelineConstruct extends Construct {
  readonly bucket: Bucket;
  /** Receives the reports bucket's server access logs. */
  readonly accessLogsBucket: Bucket;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: ServiceFunction;
  readonly deadLetterHandler: ServiceFunction;
  readonly sweep: ServiceFunction;
  readonly sweepSchedule: Rule;
  /** Days jobs and their PDFs are kept. */
  readonly retentionDays: number;

  constructor(scope: Construct, id: string, props: ReportPipelineConstructProps) {
    super(scope, id);
    this.retentionDays = props.retentionDays;
    // Log delivery through a bucket policy rather than the legacy LogDeliveryWrite ACL (which would
    // need object ACLs enabled on the log bucket). Scoped to this construct; set before any child.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);

    this.accessLogsBucket = new Bucket(this, 'AccessLogsBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Server access log delivery supports SSE-S3 only.
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    NagSuppressions.addResourceSuppressions(this.accessLogsBucket, [
      {
        id: 'AwsSolutions-S1',
        reason:
          'This is the access-log bucket of the reports bucket; logging its own access would log the log deliveries, recursively.',
      },
    ]);

    this.bucket = new Bucket(this, 'ReportsBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      versioned: false,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'reports-bucket/',
      lifecycleRules: [
        {
          id: 'expire-reports',
          prefix: reportObjectPrefix,
          expiration: Duration.days(props.retentionDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      // PDFs outlive a mistaken `cdk destroy`, like the jobs that point at them.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const jobDeadLetters = deadLetterQueue(
      this,
      'JobDeadLetters',
      'This queue is the dead-letter queue of the report job queue; its own messages are handled by FailDeadLetteredReportJobs and alarmed on.',
      { visibilityTimeout: Duration.seconds(DEAD_LETTER_QUEUE_VISIBILITY_SECONDS) },
    );
    this.deadLetterQueue = jobDeadLetters;

    this.queue = new Queue(this, 'JobQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // AWS's guidance for an SQS event source: six times the function timeout, so a batch that
      // is being retried by the poller is not handed to a second worker meanwhile. With
      // MAX_RECEIVES receives this must stay inside REPORT_DEADLINE_MS (see workerTimeout).
      visibilityTimeout: Duration.seconds(REPORT_QUEUE_VISIBILITY_SECONDS),
      // The worker treats receive number MAX_RECEIVES as the final attempt: the two must agree.
      deadLetterQueue: { queue: jobDeadLetters, maxReceiveCount: MAX_RECEIVES },
    });

    this.worker = new ServiceFunction(this, reportPipelineFunctions.worker.name, {
      entry: reportPipelineFunctions.worker.entry,
      description: 'Renders queued report jobs into PDFs',
      timeout: workerTimeout,
      memorySize: 1024,
      // No reservation unless configured: Lambda keeps 100 of the account's concurrency unreserved,
      // so in a new account (a quota of 10) any reservation fails the deploy.
      reservedConcurrentExecutions: props.reservedConcurrency,
      commandHooks: copyReportFonts,
      environment: { [REPORT_FONTS_DIR_ENV]: reportFontsDir },
    });
    // Its grants are its declared needs (shared/config/function-needs.ts, lib/service-stack.ts); the queue it reads
    // is its event source's, which grants the receiving itself.
    this.worker.invokedAlias.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 5,
        // Never above a reservation, or the poller's extra invocations would be throttled back to the queue.
        maxConcurrency: Math.min(workerConcurrency, props.reservedConcurrency ?? workerConcurrency),
        reportBatchItemFailures: true,
      }),
    );

    this.deadLetterHandler = new ServiceFunction(this, reportPipelineFunctions.deadLetters.name, {
      entry: reportPipelineFunctions.deadLetters.entry,
      description: 'Marks report jobs whose message was dead-lettered FAILED/INTERNAL_ERROR',
      timeout: deadLetterHandlerTimeout,
    });
    this.deadLetterHandler.invokedAlias.addEventSource(
      new SqsEventSource(jobDeadLetters, { batchSize: 10, maxConcurrency: 2, reportBatchItemFailures: true }),
    );

    this.sweep = new ServiceFunction(this, reportPipelineFunctions.sweep.name, {
      entry: reportPipelineFunctions.sweep.entry,
      description: 'Marks report jobs past their 5-minute deadline FAILED/TIMED_OUT',
      timeout: Duration.seconds(SWEEP_TIMEOUT_SECONDS),
      tracing: Tracing.PASS_THROUGH,
    });
    this.sweepSchedule = new Rule(this, 'SweepSchedule', {
      description: 'Runs the report job sweep every minute',
      schedule: Schedule.rate(Duration.minutes(1)),
      // The next minute's run is the retry.
      targets: [new LambdaFunction(this.sweep.invokedAlias, { retryAttempts: 0 })],
    });
  }

  /** Lets a page on `origin` (the dashboard) read reports from their pre-signed addresses, to verify them in the browser. */
  allowBrowserDownloadsFrom(origin: string): void {
    this.bucket.addCorsRule({
      allowedMethods: [HttpMethods.GET, HttpMethods.HEAD],
      allowedOrigins: [origin],
      maxAge: 600,
    });
  }

  /** Lets an API function enqueue report jobs (SendMessage only) and tells it the queue URL. */
  grantEnqueue(fn: LambdaFunctionResource): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
    fn.addEnvironment('REPORT_QUEUE_URL', this.queue.queueUrl);
  }

  /**
   * Lets a function sign download addresses for stored PDFs: GetObject on `reports/*` only (a
   * pre-signed URL carries the signer's permissions), no listing, no writes.
   */
  grantReportDownloads(fn: LambdaFunctionResource): void {
    this.grantOnReports(fn, 's3:GetObject');
  }

  /** Lets the erasure remove a user's PDFs: DeleteObject on `reports/*` only, no reads, no listing, no writes. */
  grantReportRemovals(fn: LambdaFunctionResource): void {
    this.grantOnReports(fn, 's3:DeleteObject');
  }

  /**
   * Lets the worker store PDFs, and remove one it stored for a job it lost meanwhile (so no orphan
   * object is left): PutObject and DeleteObject on `reports/*` only, no reads.
   */
  grantReportWrites(fn: LambdaFunctionResource): void {
    this.grantOnReports(fn, 's3:PutObject', 's3:DeleteObject');
  }

  private grantOnReports(
    fn: LambdaFunctionResource,
    ...actions: Array<'s3:GetObject' | 's3:PutObject' | 's3:DeleteObject'>
  ): void {
    const action = actions.join(' and ');
    const objects = this.bucket.arnForObjects(`${reportObjectPrefix}*`);
    fn.addToRolePolicy(new PolicyStatement({ actions, resources: [objects] }));
    fn.addEnvironment('REPORTS_BUCKET_NAME', this.bucket.bucketName);
    const bucketLogicalId = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement);
    if (fn.role) {
      NagSuppressions.addResourceSuppressions(
        fn.role,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason: `Object keys are reports/{orgId}/{jobId}.pdf, created per job, so ${action} is granted on the reports/ prefix of the reports bucket and nothing wider.`,
            appliesTo: [`Resource::<${bucketLogicalId}.Arn>/${reportObjectPrefix}*`],
          },
        ],
        true,
      );
    }
  }
}
