import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryMessage, WebhookQueue } from '#shared/domain/webhooks/ports.ts';
import type { WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';

/** One event's SendMessage, its retries included. */
export const PUBLISH_TIMEOUT_MS = 3_000;

/**
 * The fast lane's queue carries events to fan out and first attempts; a delivery goes to the
 * queue of its `lane` (the slow lane's, for endpoints that leave attempts unanswered). Every
 * message carries its organization as `MessageGroupId`: both queues are SQS fair queues, so when
 * one organization has a backlog, SQS hands out the other organizations' messages first.
 */
export class SqsWebhookQueue implements WebhookQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    /** Functions that only publish events need no slow lane. */
    private readonly slowQueueUrl?: string,
  ) {}

  async publishEvent(event: WebhookEvent): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify({ kind: 'event', event }),
        MessageGroupId: event.orgId,
      }),
      // Bounded on its own, well inside the invocation's deadline: when SQS stalls, there must be time left to
      // keep the event as pending (EventPublishing) instead of losing it to the deadline.
      { abortSignal: AbortSignal.timeout(PUBLISH_TIMEOUT_MS) },
    );
  }

  async scheduleDelivery(message: DeliveryMessage, delaySeconds: number): Promise<void> {
    const queueUrl = message.lane === 'slow' ? this.slowQueueUrl : this.queueUrl;
    if (!queueUrl) throw new Error('this function was not given the slow lane (WEBHOOK_SLOW_QUEUE_URL)');
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify(message),
        MessageGroupId: message.orgId,
        ...(delaySeconds > 0 ? { DelaySeconds: Math.min(900, Math.ceil(delaySeconds)) } : {}),
      }),
    );
  }
}
