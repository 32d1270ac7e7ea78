import {
  CreateTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type AttributeDefinition,
  type KeySchemaElement,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, PutBucketCorsCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateEmailTemplateCommand,
  GetEmailTemplateCommand,
  SESv2Client,
  UpdateEmailTemplateCommand,
  type EmailTemplateContent,
} from '@aws-sdk/client-sesv2';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { onboardingEmailTemplate } from '#shared/adapters/ses/onboarding-email-template.ts';
import { allTables, type KeySchema, type TableDefinition } from '#shared/config/table-definitions.ts';
import { MAX_RECEIVES } from '#shared/queue/report-job-messages.ts';
import {
  DEAD_LETTER_QUEUE_VISIBILITY_SECONDS,
  REPORT_QUEUE_VISIBILITY_SECONDS,
} from '#shared/queue/report-pipeline-timing.ts';
import { WEBHOOK_DELIVERY_TIMEOUT_SECONDS, WEBHOOK_MAX_RECEIVES } from '#shared/queue/webhook-messages.ts';
import { SANDBOX_WIPE_MAX_RECEIVES } from '#shared/queue/sandbox-wipe-messages.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION, type RunningEmulators } from './emulators.ts';

/**
 * Creates, in the local emulators, what the CDK app creates in AWS: the tables, the report queue
 * and its dead-letter queue, the reports bucket and the e-mail template. Safe to run again.
 */

export const REPORT_QUEUE_NAME = 'report-jobs';
export const REPORT_DLQ_NAME = 'report-jobs-dlq';
export const REPORTS_BUCKET_NAME = 'reports-local';
export const WEBHOOK_QUEUE_NAME = 'webhook-deliveries';
export const WEBHOOK_SLOW_QUEUE_NAME = 'webhook-deliveries-slow';
export const WEBHOOK_DLQ_NAME = 'webhook-deliveries-dlq';
export const SANDBOX_WIPE_QUEUE_NAME = 'sandbox-wipes';
export const SANDBOX_WIPE_DLQ_NAME = 'sandbox-wipes-dlq';
/**
 * Short, for both queues, so a failed message comes back within seconds instead of the minutes
 * AWS uses (six times the consuming function's timeout). A second delivery while the first
 * attempt still runs is harmless: the worker takes a job by conditional update, so only one
 * attempt renders.
 */
export const QUEUE_VISIBILITY_TIMEOUT_VARIABLE = 'LOCAL_QUEUE_VISIBILITY_TIMEOUT_SECONDS';
const DLQ_RETENTION_SECONDS = 14 * 24 * 3600;

export interface LocalQueue {
  name: string;
  url: string;
  arn: string;
}

export interface LocalResources {
  /** Table name by the definition's environment variable, e.g. `USERS_TABLE_NAME: 'Users'`. */
  tables: Record<string, string>;
  reportQueue: LocalQueue & { visibilityTimeoutSeconds: number; maxReceiveCount: number };
  reportDlq: LocalQueue;
  /** Webhook events to fan out and delivery attempts: the fast lane (lib/webhooks-construct.ts deploys the same queues). */
  webhookQueue: LocalQueue;
  /** Deliveries to endpoints that left an attempt unanswered: the slow lane. */
  webhookSlowQueue: LocalQueue;
  webhookDlq: LocalQueue;
  /** DELETE /v1/sandbox's wipes and their dead letters (lib/sandbox-wipe-construct.ts deploys the same). */
  sandboxWipeQueue: LocalQueue;
  sandboxWipeDlq: LocalQueue;
  reportsBucketName: string;
  emailTemplateName: string;
}

export interface LocalResourceOptions {
  /** Report queue visibility timeout; default LOCAL_QUEUE_VISIBILITY_TIMEOUT_SECONDS, else AWS's (6 x the worker's timeout). */
  queueVisibilityTimeoutSeconds?: number;
}

export async function createLocalResources(
  endpoints: RunningEmulators['endpoints'],
  options: LocalResourceOptions = {},
): Promise<LocalResources> {
  const visibilityTimeoutSeconds = options.queueVisibilityTimeoutSeconds ?? visibilityTimeoutFromEnv();
  const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const dynamodb = new DynamoDBClient({ ...common, endpoint: endpoints.dynamodb });
  const sqs = new SQSClient({ ...common, endpoint: endpoints.sqs });
  const s3 = new S3Client({ ...common, endpoint: endpoints.s3, forcePathStyle: true });
  const ses = new SESv2Client({ ...common, endpoint: endpoints.ses });
  try {
    const [tables, queues, webhookQueues, sandboxWipeQueues] = await Promise.all([
      Promise.all(allTables.map((table) => createTable(dynamodb, table))),
      createReportQueues(sqs, visibilityTimeoutSeconds),
      createWebhookQueues(sqs),
      createSandboxWipeQueues(sqs, visibilityTimeoutSeconds),
      createBucket(s3, REPORTS_BUCKET_NAME),
      putEmailTemplate(ses),
    ]);
    return {
      tables: Object.fromEntries(allTables.map((table, i) => [table.envVar, tables[i] as string])),
      ...queues,
      ...webhookQueues,
      ...sandboxWipeQueues,
      reportsBucketName: REPORTS_BUCKET_NAME,
      emailTemplateName: onboardingEmailTemplate.templateName,
    };
  } finally {
    for (const client of [dynamodb, sqs, s3, ses]) client.destroy();
  }
}

/** Local table name = the definition's id. On-demand, each index with its definition's projection, TTL on. */
async function createTable(client: DynamoDBClient, table: TableDefinition): Promise<string> {
  const tableName = table.id;
  const keySchema = ({ partitionKey, sortKey }: KeySchema): KeySchemaElement[] => [
    { AttributeName: partitionKey, KeyType: 'HASH' },
    ...(sortKey ? [{ AttributeName: sortKey, KeyType: 'RANGE' as const }] : []),
  ];
  const keyAttributes = new Set<string>();
  for (const keys of [table, ...table.globalSecondaryIndexes]) {
    keyAttributes.add(keys.partitionKey);
    if (keys.sortKey) keyAttributes.add(keys.sortKey);
  }
  const attributeDefinitions: AttributeDefinition[] = [...keyAttributes].map((name) => ({
    AttributeName: name,
    AttributeType: 'S',
  }));
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attributeDefinitions,
        KeySchema: keySchema(table),
        ...(table.globalSecondaryIndexes.length > 0
          ? {
              GlobalSecondaryIndexes: table.globalSecondaryIndexes.map((index) => ({
                IndexName: index.indexName,
                KeySchema: keySchema(index),
                Projection: index.include
                  ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.include] }
                  : { ProjectionType: 'ALL' },
              })),
            }
          : {}),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1 }, { TableName: tableName });

  const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  if (TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED') {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: table.timeToLiveAttribute, Enabled: true },
      }),
    );
  }
  return tableName;
}

function visibilityTimeoutFromEnv(): number {
  const value = process.env[QUEUE_VISIBILITY_TIMEOUT_VARIABLE];
  if (value === undefined || value === '') return REPORT_QUEUE_VISIBILITY_SECONDS;
  const seconds = Number(value);
  // SQS allows 0 to 12 hours; 0 would hand a message to the next poll while it is being processed.
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 43_200) {
    throw new Error(
      `${QUEUE_VISIBILITY_TIMEOUT_VARIABLE} must be a whole number of seconds from 1 to 43200, got "${value}"`,
    );
  }
  return seconds;
}

async function createReportQueues(
  client: SQSClient,
  visibilityTimeoutSeconds: number,
): Promise<Pick<LocalResources, 'reportQueue' | 'reportDlq'>> {
  const reportDlq = await createQueue(client, REPORT_DLQ_NAME, {
    // As deployed: six times the dead-letter handler's timeout, scaled like the report queue's.
    VisibilityTimeout: String(
      Math.round((visibilityTimeoutSeconds * DEAD_LETTER_QUEUE_VISIBILITY_SECONDS) / REPORT_QUEUE_VISIBILITY_SECONDS),
    ),
    MessageRetentionPeriod: String(DLQ_RETENTION_SECONDS),
  });
  const reportQueue = await createQueue(client, REPORT_QUEUE_NAME, {
    VisibilityTimeout: String(visibilityTimeoutSeconds),
    // The same count the worker treats as the final attempt.
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: reportDlq.arn, maxReceiveCount: MAX_RECEIVES }),
  });
  return { reportQueue: { ...reportQueue, visibilityTimeoutSeconds, maxReceiveCount: MAX_RECEIVES }, reportDlq };
}

/**
 * The webhook lanes and their DLQ; a short visibility timeout, so a record whose fan-out failed
 * returns in seconds. Standard queues, as in AWS, where the `MessageGroupId` every message carries
 * makes them fair queues; the emulator (fauxqs) accepts the group id but hands messages out in
 * order, without SQS's preference for the quieter groups (docs/webhooks.md says what that changes).
 */
async function createWebhookQueues(
  client: SQSClient,
): Promise<Pick<LocalResources, 'webhookQueue' | 'webhookSlowQueue' | 'webhookDlq'>> {
  const webhookDlq = await createQueue(client, WEBHOOK_DLQ_NAME, {
    MessageRetentionPeriod: String(DLQ_RETENTION_SECONDS),
  });
  const laneAttributes = {
    VisibilityTimeout: String(WEBHOOK_DELIVERY_TIMEOUT_SECONDS + 5),
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: webhookDlq.arn, maxReceiveCount: WEBHOOK_MAX_RECEIVES }),
  };
  const [webhookQueue, webhookSlowQueue] = await Promise.all([
    createQueue(client, WEBHOOK_QUEUE_NAME, laneAttributes),
    createQueue(client, WEBHOOK_SLOW_QUEUE_NAME, laneAttributes),
  ]);
  return { webhookQueue, webhookSlowQueue, webhookDlq };
}

/** The wipe queue, as short-lived as the report queue locally, so a run cut off comes back within seconds. */
async function createSandboxWipeQueues(
  client: SQSClient,
  visibilityTimeoutSeconds: number,
): Promise<Pick<LocalResources, 'sandboxWipeQueue' | 'sandboxWipeDlq'>> {
  const sandboxWipeDlq = await createQueue(client, SANDBOX_WIPE_DLQ_NAME, {
    MessageRetentionPeriod: String(DLQ_RETENTION_SECONDS),
  });
  const sandboxWipeQueue = await createQueue(client, SANDBOX_WIPE_QUEUE_NAME, {
    VisibilityTimeout: String(visibilityTimeoutSeconds),
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: sandboxWipeDlq.arn,
      maxReceiveCount: SANDBOX_WIPE_MAX_RECEIVES,
    }),
  });
  return { sandboxWipeQueue, sandboxWipeDlq };
}

async function createQueue(client: SQSClient, name: string, attributes: Record<string, string>): Promise<LocalQueue> {
  let url: string | undefined;
  try {
    url = (await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl;
  } catch (error) {
    // The queue exists with other attributes (an earlier version of this file): bring it up to date.
    if ((error as Error).name !== 'QueueNameExists' && (error as Error).name !== 'QueueAlreadyExists') throw error;
    url = (await client.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl;
    await client.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: attributes }));
  }
  if (!url) throw new Error(`SQS returned no URL for queue ${name}`);
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  const arn = Attributes?.QueueArn;
  if (!arn) throw new Error(`SQS returned no ARN for queue ${name}`);
  return { name, url, arn };
}

async function createBucket(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (error) {
    const name = (error as Error).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
  }
  // The dashboard fetches a report from its pre-signed address to check size and SHA-256 in the
  // browser: a cross-origin GET. In AWS the rule names the dashboard's origin; locally any origin.
  await client.send(
    new PutBucketCorsCommand({
      Bucket: bucket,
      CORSConfiguration: {
        CORSRules: [
          { AllowedMethods: ['GET', 'HEAD'], AllowedOrigins: ['*'], AllowedHeaders: ['*'], MaxAgeSeconds: 600 },
        ],
      },
    }),
  );
}

/** Create, or update if it exists. The SES emulator's "already exists" answer carries no error code the SDK can read, so existence is checked directly. */
export async function putEmailTemplate(client: SESv2Client): Promise<void> {
  const TemplateName = onboardingEmailTemplate.templateName;
  const TemplateContent: EmailTemplateContent = {
    Subject: onboardingEmailTemplate.subject,
    Text: onboardingEmailTemplate.text,
    Html: onboardingEmailTemplate.html,
  };
  try {
    await client.send(new CreateEmailTemplateCommand({ TemplateName, TemplateContent }));
  } catch (createError) {
    const exists = await client.send(new GetEmailTemplateCommand({ TemplateName })).then(
      () => true,
      () => false,
    );
    if (!exists) throw createError;
    await client.send(new UpdateEmailTemplateCommand({ TemplateName, TemplateContent }));
  }
}
