import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SqsReportQueue } from '#shared/adapters/sqs/report-queue.ts';

const sqsMock = mockClient(SQSClient);

beforeEach(() => {
  sqsMock.reset();
  sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
});

describe('SqsReportQueue', () => {
  it('queues each job with its organization as the message group, so the fair queue shares the worker between organizations', async () => {
    const queue = new SqsReportQueue(new SQSClient({ region: 'us-east-1' }), 'https://sqs/reports');

    await queue.enqueue({ orgId: 'org-a', jobId: 'job-1' });
    await queue.enqueue({ orgId: 'org-b', jobId: 'job-2' });

    expect(sqsMock.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: 'https://sqs/reports', MessageBody: '{"orgId":"org-a","jobId":"job-1"}', MessageGroupId: 'org-a' },
      { QueueUrl: 'https://sqs/reports', MessageBody: '{"orgId":"org-b","jobId":"job-2"}', MessageGroupId: 'org-b' },
    ]);
  });

  it('sends a message back with a delay (a sandbox job whose scenario completes later), and none otherwise', async () => {
    const queue = new SqsReportQueue(new SQSClient({ region: 'us-east-1' }), 'https://sqs/reports');

    await queue.enqueue({ orgId: 'org-a~sandbox', jobId: 'job-1' }, { delaySeconds: 29 });

    expect(sqsMock.commandCalls(SendMessageCommand)[0]!.args[0].input).toEqual({
      QueueUrl: 'https://sqs/reports',
      MessageBody: '{"orgId":"org-a~sandbox","jobId":"job-1"}',
      MessageGroupId: 'org-a~sandbox',
      DelaySeconds: 29,
    });
  });
});
