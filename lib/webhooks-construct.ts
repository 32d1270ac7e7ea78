import { deadLetterQueue } from '#lib/dead-letter-queue.ts';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Tracing, type Function as LambdaFunctionResource } from 'aws-cdk-lib/aws-lambda';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT } from '#shared/queue/report-pipeline-timing.ts';
import {
  WEBHOOK_DELIVERY_TIMEOUT_SECONDS,
  WEBHOOK_LANE_CONSUMERS,
  WEBHOOK_MAX_RECEIVES,
  WEBHOOK_REPUBLISH_TIMEOUT_SECONDS,
} from '#shared/queue/webhook-messages.ts';
import { webhookDeliveryFunction, webhookRepublishFunction } from '#shared/config/api-routes.ts';
import { PENDING_EVENTS_PARTITION_PREFIX } from '#shared/config/table-definitions.ts';
import { ServiceFunction } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';

export interface WebhooksConstructProps {
  readonly webhooks: ServiceTable;
  /**
   * Reserved concurrency of each lane's delivery function (`reservedConcurrency` context).
   * @default none: they draw on the account's unreserved pool, each bounded by its event source
   */
  readonly reservedConcurrency?: number | undefined;
}

/**
 * Webhook delivery (docs/contract.md §9, §15): the KMS key that seals endpoint secrets, two lanes
 * (shared/domain/webhooks/webhook-lanes.ts), each a queue with a delivery function of its own,
 * and their dead-letter queue. The fast lane's queue carries events to fan out and every first
 * attempt; the slow lane's the messages of endpoints that left an attempt unanswered. Both are
 * SQS fair queues: every message is sent with its organization as `MessageGroupId`, which is all a
 * standard queue needs to become one. Functions whose state changes are events get
 * `grantPublish`; the registration route gets `grantSealSecrets`.
 */
export class WebhooksConstruct extends Construct {
  readonly secretsKey: Key;
  /** The fast lane: events and first attempts. */
  readonly queue: Queue;
  /** The slow lane: endpoints that left an attempt unanswered. */
  readonly slowQueue: Queue;
  readonly deadLetterQueue: Queue;
  /** Consumes the fast lane. */
  readonly delivery: ServiceFunction;
  /** Consumes the slow lane (the same entry point). */
  readonly slowDelivery: ServiceFunction;
  /** Queues pending events (those SQS refused) every minute. */
  readonly republish: ServiceFunction;
  readonly republishSchedule: Rule;
  private readonly webhooksTable: ServiceTable;

  constructor(scope: Construct, id: string, props: WebhooksConstructProps) {
    super(scope, id);
    this.webhooksTable = props.webhooks;

    this.secretsKey = new Key(this, 'SecretsKey', {
      description: 'Encrypts webhook endpoint signing secrets',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.deadLetterQueue = deadLetterQueue(
      this,
      'DeliveryDeadLetters',
      'This queue is the dead-letter queue of the webhook queue: it holds records whose fan-out or log write kept failing, and is alarmed on.',
    );

    const laneQueue = (id: string) =>
      new Queue(this, id, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT * WEBHOOK_DELIVERY_TIMEOUT_SECONDS),
        deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: WEBHOOK_MAX_RECEIVES },
      });
    this.queue = laneQueue('DeliveryQueue');
    this.slowQueue = laneQueue('SlowDeliveryQueue');

    const laneFunction = (id: string, lane: keyof typeof WEBHOOK_LANE_CONSUMERS, queue: Queue) => {
      const fn = new ServiceFunction(this, id, {
        entry: webhookDeliveryFunction.entry,
        description:
          lane === 'fast'
            ? 'Fans webhook events out to endpoints and delivers signed messages (fast lane)'
            : 'Delivers signed webhook messages to endpoints that answer slowly (slow lane)',
        timeout: Duration.seconds(WEBHOOK_DELIVERY_TIMEOUT_SECONDS),
        // A trace per delivery would cost as much as the rest of the delivery (docs/cost.md): the delivery log,
        // the WebhookDeliveries metric by outcome and the attempt's log line say what each attempt did.
        tracing: Tracing.PASS_THROUGH,
        // No reservation unless configured: Lambda keeps 100 of the account's concurrency unreserved,
        // so in a new account (a quota of 10) any reservation fails the deploy.
        reservedConcurrentExecutions: props.reservedConcurrency,
      });
      // Its grants are its declared needs (lib/service-stack.ts); the lane's queue it reads is its event source's.
      const consumers = WEBHOOK_LANE_CONSUMERS[lane];
      fn.invokedAlias.addEventSource(
        new SqsEventSource(queue, {
          // Few records per batch, handled in parallel, each failure reported alone.
          batchSize: consumers.batchSize,
          // Never above a reservation: the poller would invoke more than may run, and the throttled
          // messages would go back to the queue, counting towards the dead-letter queue.
          maxConcurrency: Math.min(consumers.maxConcurrency, props.reservedConcurrency ?? consumers.maxConcurrency),
          reportBatchItemFailures: true,
        }),
      );
      return fn;
    };
    this.delivery = laneFunction(webhookDeliveryFunction.name, 'fast', this.queue);
    this.slowDelivery = laneFunction(`${webhookDeliveryFunction.name}SlowLane`, 'slow', this.slowQueue);

    this.republish = new ServiceFunction(this, webhookRepublishFunction.name, {
      entry: webhookRepublishFunction.entry,
      description: 'Queues the webhook events SQS refused when they happened',
      timeout: Duration.seconds(WEBHOOK_REPUBLISH_TIMEOUT_SECONDS),
      tracing: Tracing.PASS_THROUGH,
    });
    this.republishSchedule = new Rule(this, 'RepublishSchedule', {
      description: 'Queues pending webhook events every minute',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(this.republish.invokedAlias, { retryAttempts: 0 })],
    });
  }

  /**
   * Lets a function publish webhook events (SendMessage only) and keep those SQS refuses as pending
   * (PutItem on the pending partitions of the Webhooks table only), and tells it where both are.
   */
  grantPublish(fn: LambdaFunctionResource): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
    fn.addEnvironment('WEBHOOK_QUEUE_URL', this.queue.queueUrl);
    fn.addToRolePolicy(this.pendingEventsStatement(['dynamodb:PutItem']));
    fn.addEnvironment(this.webhooksTable.definition.envVar, this.webhooksTable.tableName);
  }

  /**
   * Lets a function read and delete pending events (Query and DeleteItem on the pending partitions
   * of the Webhooks table only): the republish schedule, and the erasure for those naming its person.
   */
  /**
   * Lets the delivery function (either lane) put messages on both queues (retries, fan-out and lane changes) and
   * open endpoint secrets (KMS Decrypt alone).
   */
  grantDeliver(fn: LambdaFunctionResource): void {
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn, this.slowQueue.queueArn] }),
    );
    fn.addEnvironment('WEBHOOK_QUEUE_URL', this.queue.queueUrl);
    fn.addEnvironment('WEBHOOK_SLOW_QUEUE_URL', this.slowQueue.queueUrl);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['kms:Decrypt'], resources: [this.secretsKey.keyArn] }));
    fn.addEnvironment('WEBHOOK_SECRETS_KEY_ID', this.secretsKey.keyArn);
  }

  /** Lets the republish hand pending events to the webhook queue: SendMessage on it alone. */
  grantSendToQueue(fn: LambdaFunctionResource): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
    fn.addEnvironment('WEBHOOK_QUEUE_URL', this.queue.queueUrl);
  }

  grantTakePending(fn: LambdaFunctionResource): void {
    fn.addToRolePolicy(this.pendingEventsStatement(['dynamodb:Query', 'dynamodb:DeleteItem']));
    fn.addEnvironment(this.webhooksTable.definition.envVar, this.webhooksTable.tableName);
  }

  private pendingEventsStatement(actions: string[]): PolicyStatement {
    return new PolicyStatement({
      actions,
      resources: [this.webhooksTable.tableArn],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${PENDING_EVENTS_PARTITION_PREFIX}*`] },
      },
    });
  }

  /** Lets the registration function seal new secrets (Encrypt only: it never reads one back). */
  grantSealSecrets(fn: LambdaFunctionResource): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['kms:Encrypt'], resources: [this.secretsKey.keyArn] }));
    fn.addEnvironment('WEBHOOK_SECRETS_KEY_ID', this.secretsKey.keyArn);
  }

  /** Lets a function open endpoint secrets (KMS Decrypt alone): the sandbox listener's routes sign with its secret. */
  grantOpenSecrets(fn: LambdaFunctionResource): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['kms:Decrypt'], resources: [this.secretsKey.keyArn] }));
    fn.addEnvironment('WEBHOOK_SECRETS_KEY_ID', this.secretsKey.keyArn);
  }
}
