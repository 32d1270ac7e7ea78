import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunctionResource } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT } from '#shared/queue/report-pipeline-timing.ts';
import { WEBHOOK_DELIVERY_TIMEOUT_SECONDS, WEBHOOK_MAX_RECEIVES } from '#shared/queue/webhook-messages.ts';
import { bindTable } from './bind-table.ts';
import { webhookDeliveryFunction } from '#shared/config/api-routes.ts';
import { ServiceFunction } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';

export interface WebhooksConstructProps {
  readonly webhooks: ServiceTable;
  /**
   * Reserved concurrency of the delivery function (`reservedConcurrency` context).
   * @default none: it draws on the account's unreserved pool, bounded by its event source
   */
  readonly reservedConcurrency?: number | undefined;
}

/**
 * Delivery functions run at most this many at once (the event source's maximum concurrency), so a
 * burst of retries never starves the API, with or without a reservation.
 */
export const webhookDeliveryConcurrency = 5;

/**
 * Webhook delivery (CONTRACT.md §9): the KMS key that seals endpoint secrets, the queue carrying
 * events to fan out and delivery attempts (retries re-enter it with a delay), its dead-letter
 * queue, and the delivery function. Functions whose state changes are events get `grantPublish`;
 * the registration route gets `grantSealSecrets`.
 */
export class WebhooksConstruct extends Construct {
  readonly secretsKey: Key;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly delivery: ServiceFunction;

  constructor(scope: Construct, id: string, props: WebhooksConstructProps) {
    super(scope, id);

    this.secretsKey = new Key(this, 'SecretsKey', {
      description: 'Encrypts webhook endpoint signing secrets',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.deadLetterQueue = new Queue(this, 'DeliveryDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    NagSuppressions.addResourceSuppressions(this.deadLetterQueue, [
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is the dead-letter queue of the webhook queue: it holds records whose fan-out or log write kept failing, and is alarmed on.',
      },
    ]);

    this.queue = new Queue(this, 'DeliveryQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT * WEBHOOK_DELIVERY_TIMEOUT_SECONDS),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: WEBHOOK_MAX_RECEIVES },
    });

    this.delivery = new ServiceFunction(this, webhookDeliveryFunction.name, {
      entry: webhookDeliveryFunction.entry,
      description: 'Fans webhook events out to endpoints and delivers signed messages',
      timeout: Duration.seconds(WEBHOOK_DELIVERY_TIMEOUT_SECONDS),
      // No reservation unless configured: Lambda keeps 100 of the account's concurrency unreserved,
      // so in a new account (a quota of 10) any reservation fails the deploy.
      reservedConcurrentExecutions: props.reservedConcurrency,
    });
    bindTable(this.delivery, props.webhooks, 'readWrite');
    // Retries and fan-out put messages back on the same queue.
    this.grantPublish(this.delivery);
    this.delivery.addToRolePolicy(
      new PolicyStatement({ actions: ['kms:Decrypt'], resources: [this.secretsKey.keyArn] }),
    );
    this.delivery.addEnvironment('WEBHOOK_SECRETS_KEY_ID', this.secretsKey.keyArn);
    this.delivery.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 10,
        // Never above a reservation: the poller would invoke more than may run, and the throttled
        // messages would go back to the queue, counting towards the dead-letter queue.
        maxConcurrency: Math.min(webhookDeliveryConcurrency, props.reservedConcurrency ?? webhookDeliveryConcurrency),
        reportBatchItemFailures: true,
      }),
    );
  }

  /** Lets a function publish webhook events (SendMessage only) and tells it the queue URL. */
  grantPublish(fn: LambdaFunctionResource): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
    fn.addEnvironment('WEBHOOK_QUEUE_URL', this.queue.queueUrl);
  }

  /** Lets the registration function seal new secrets (Encrypt only: it never reads one back). */
  grantSealSecrets(fn: LambdaFunctionResource): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['kms:Encrypt'], resources: [this.secretsKey.keyArn] }));
    fn.addEnvironment('WEBHOOK_SECRETS_KEY_ID', this.secretsKey.keyArn);
  }
}
