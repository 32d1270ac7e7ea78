import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryMessage, WebhookQueue } from '#shared/domain/webhooks/ports.ts';
import type { WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';

/** One queue carries both events to fan out and delivery attempts; `kind` tells them apart. */
export class SqsWebhookQueue implements WebhookQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async publishEvent(event: WebhookEvent): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify({ kind: 'event', event }) }),
    );
  }

  async scheduleDelivery(message: DeliveryMessage, delaySeconds: number): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(message),
        ...(delaySeconds > 0 ? { DelaySeconds: Math.min(900, Math.ceil(delaySeconds)) } : {}),
      }),
    );
  }
}
