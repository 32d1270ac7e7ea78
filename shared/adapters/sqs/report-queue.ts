import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ReportJobMessage, ReportQueue } from '#shared/domain/reports/ports.ts';

export class SqsReportQueue implements ReportQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(message: ReportJobMessage): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify({ orgId: message.orgId, jobId: message.jobId }),
      }),
    );
  }
}
