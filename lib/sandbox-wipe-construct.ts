import { deadLetterQueue } from '#lib/dead-letter-queue.ts';
import { CfnElement, Duration, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Tracing, type Function as LambdaFunctionResource } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { SANDBOX_WIPE_PARTITION_PREFIX } from '#shared/adapters/dynamodb/sandbox-wipes.ts';
import { reportFolderOf } from '#shared/adapters/s3/sandbox-report-objects.ts';
import { sandboxWipeFunction } from '#shared/config/api-routes.ts';
import { organizationPartition } from '#shared/adapters/dynamodb/keys.ts';
import { tenantKey } from '#shared/domain/identity/tenant.ts';
import {
  SANDBOX_WIPE_MAX_RECEIVES,
  SANDBOX_WIPE_TIMEOUT_SECONDS,
  SANDBOX_WIPE_VISIBILITY_SECONDS,
} from '#shared/queue/sandbox-wipe-messages.ts';
import { ServiceFunction } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';
import type { UsersDatabaseConstruct } from './users-database-construct.ts';

export interface SandboxWipeConstructProps {
  readonly onboardingTokens: ServiceTable;
  readonly reportJobs: ServiceTable;
  readonly webhooks: ServiceTable;
  readonly reportsBucket: IBucket;
  readonly usersDatabase: UsersDatabaseConstruct;
}

/** Any sandbox's tenant key, as an IAM pattern: `*~sandbox`. */
const ANY_SANDBOX_KEY = tenantKey({ orgId: '*', mode: 'sandbox' });
/** The partitions a sandbox's own items live in (`ORG#*~sandbox`), and its endpoints' delivery logs. */
const SANDBOX_PARTITIONS = [organizationPartition(ANY_SANDBOX_KEY), `${organizationPartition(ANY_SANDBOX_KEY)}#*`];

/**
 * cdk-nag's IAM5 finding of DeleteObject on the sandboxes' report folders of `bucket`: the bucket's ARN reads
 * `<{id}.Arn>` in the bucket's stack, and in a nested stack `<referenceto{stack}{id without its hash}{hash}Arn>` (a
 * parameter, whose hash is the reference's, not the bucket's).
 */
export function sandboxFoldersFinding(bucket: IBucket): { regex: string } {
  const bucketLogicalId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnElement);
  const bucketPath = bucketLogicalId.slice(0, -8);
  const folders = `${reportFolderOf(ANY_SANDBOX_KEY)}*`.replace(/\*/g, '\\*').replace(/\//g, '\\/');
  return {
    regex: `/^Resource::<(${bucketLogicalId}\\.Arn|referenceto\\w*${bucketPath}[0-9A-F]{8}Arn)>\\/${folders}$/`,
  };
}

/**
 * DELETE /v1/sandbox (docs/sandbox.md "Wiping a sandbox"): the wipe queue, its dead-letter queue
 * and the consumer that empties a sandbox store by store. Wherever IAM can tell a sandbox's keys
 * from live ones it is held to them: its partitions of each table (`ORG#*~sandbox`), its report
 * folders (`reports/*~sandbox/`). A job record (`JOB#{id}`) carries no mode in its key, so the
 * BatchWriteItem on ReportJobs cannot be narrowed: there the domain's guard (a `SandboxKey` for
 * every delete, found through the sandbox's own index partition) is what holds.
 */
export class SandboxWipeConstruct extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly consumer: ServiceFunction;
  private readonly reportJobs: ServiceTable;

  constructor(scope: Construct, id: string, props: SandboxWipeConstructProps) {
    super(scope, id);
    this.reportJobs = props.reportJobs;
    this.deadLetterQueue = deadLetterQueue(
      this,
      'WipeDeadLetters',
      'This queue is the dead-letter queue of the sandbox wipe queue: it holds wipes whose runs kept failing, and is alarmed on.',
    );
    this.queue = new Queue(this, 'WipeQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(SANDBOX_WIPE_VISIBILITY_SECONDS),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: SANDBOX_WIPE_MAX_RECEIVES },
    });

    const fn = new ServiceFunction(this, sandboxWipeFunction.name, {
      entry: sandboxWipeFunction.entry,
      description: "Deletes a sandbox's data store by store (DELETE /v1/sandbox)",
      timeout: Duration.seconds(SANDBOX_WIPE_TIMEOUT_SECONDS),
      tracing: Tracing.PASS_THROUGH,
    });
    this.consumer = fn;
    this.grantWipeRecords(fn);
    // Its continuation goes to its own queue.
    this.grantSendWipes(fn);
    const sandboxPartitionsOf = (table: ServiceTable, actions: string[]) =>
      new PolicyStatement({
        actions,
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': SANDBOX_PARTITIONS } },
      });
    // Tokens, their pointers and guards, kept e-mails; webhook endpoints and their deliveries: the sandbox's partitions alone.
    for (const table of [props.onboardingTokens, props.webhooks]) {
      fn.addToRolePolicy(sandboxPartitionsOf(table, ['dynamodb:Query', 'dynamodb:BatchWriteItem']));
      fn.addEnvironment(table.definition.envVar, table.tableName);
    }
    // The open-job guards in the sandbox's partition; its jobs through its partition of jobsByOrganization.
    fn.addToRolePolicy(sandboxPartitionsOf(props.reportJobs, ['dynamodb:Query']));
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [`${props.reportJobs.tableArn}/index/jobsByOrganization`],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [organizationPartition(ANY_SANDBOX_KEY)] } },
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['dynamodb:BatchWriteItem'], resources: [props.reportJobs.tableArn] }),
    );
    fn.addEnvironment(props.reportJobs.definition.envVar, props.reportJobs.tableName);
    // Report PDFs: list and delete in the sandboxes' folders alone, no reads.
    const sandboxFolders = `${reportFolderOf(ANY_SANDBOX_KEY)}*`;
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [props.reportsBucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [reportFolderOf(ANY_SANDBOX_KEY)] } },
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:DeleteObject'],
        resources: [props.reportsBucket.arnForObjects(sandboxFolders)],
      }),
    );
    fn.addEnvironment('REPORTS_BUCKET_NAME', props.reportsBucket.bucketName);
    NagSuppressions.addResourceSuppressions(
      fn.role!,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            "Object keys are reports/{tenantKey}/{jobId}.pdf, created per job: DeleteObject is granted on the sandboxes' report folders (reports/*~sandbox/) and nothing wider.",
          appliesTo: [sandboxFoldersFinding(props.reportsBucket)],
        },
      ],
      true,
    );
    // As the erasure: users_eraser, SELECT and DELETE on the users tables.
    props.usersDatabase.grantEraseUsers(fn);

    fn.invokedAlias.addEventSource(
      new SqsEventSource(this.queue, {
        // One wipe a run: each may take the whole timeout.
        batchSize: 1,
        maxConcurrency: 2,
        reportBatchItemFailures: true,
      }),
    );
  }

  /** Lets `fn` send wipes to the wipe queue (SendMessage alone) and tells it where the queue is. */
  grantSendWipes(fn: LambdaFunctionResource): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
    fn.addEnvironment('SANDBOX_WIPE_QUEUE_URL', this.queue.queueUrl);
  }

  /** Lets `fn` read and write the wipe records alone: their own partitions of the ReportJobs table. */
  grantWipeRecords(fn: LambdaFunctionResource): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        resources: [this.reportJobs.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${SANDBOX_WIPE_PARTITION_PREFIX}*`] },
        },
      }),
    );
    fn.addEnvironment(this.reportJobs.definition.envVar, this.reportJobs.tableName);
  }
}
