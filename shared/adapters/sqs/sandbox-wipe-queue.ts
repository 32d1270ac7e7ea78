import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SandboxWipeMessage, SandboxWipeQueue } from '#shared/domain/sandbox/sandbox-wipe.ts';

export class SqsSandboxWipeQueue implements SandboxWipeQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(message: SandboxWipeMessage): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify({ tenantKey: message.tenantKey, wipeId: message.wipeId }),
      }),
    );
  }
}
