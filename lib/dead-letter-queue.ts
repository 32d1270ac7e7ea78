import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';

/**
 * A dead-letter queue as every one of the service's is: encrypted, TLS only, kept 14 days. cdk-nag's
 * AwsSolutions-SQS3 (a queue without a dead-letter queue of its own) is suppressed with `reason`,
 * which says what the queue holds and what watches it.
 */
export function deadLetterQueue(
  scope: Construct,
  id: string,
  reason: string,
  options: { visibilityTimeout?: Duration } = {},
): Queue {
  const queue = new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    ...options,
  });
  NagSuppressions.addResourceSuppressions(queue, [{ id: 'AwsSolutions-SQS3', reason }]);
  return queue;
}
