import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ReportJobMessage, ReportQueue } from '#shared/domain/reports/ports.ts';

/**
 * Each message carries its organization as `MessageGroupId`: the report queue is an SQS fair
 * queue, so one organization's backlog does not hold up another's jobs (contract §19).
 */
export class SqsReportQueue implements ReportQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(message: ReportJobMessage, options: { delaySeconds?: number } = {}): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify({ orgId: message.orgId, jobId: message.jobId }),
        MessageGroupId: message.orgId,
        ...(options.delaySeconds !== undefined && { DelaySeconds: options.delaySeconds }),
      }),
    );
  }
}
