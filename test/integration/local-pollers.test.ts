import { createHash, randomUUID } from 'node:crypto';
import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, ScheduledEvent, SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import type { LambdaHandler } from '#local/handler-modules.ts';
import type { RunningPoller } from '#local/pollers.ts';
import type { LocalQueue } from '#local/resources.ts';
import { startSchedule } from '#local/scheduler.ts';
import { startSqsPoller } from '#local/sqs-poller.ts';

/**
 * The local stand-ins for Lambda's SQS event source mapping and EventBridge schedule, with stub
 * handlers, against the stack's SQS emulator on queues of their own.
 */

const sqs = new SQSClient({
  endpoint: inject('endpoints').sqs,
  region: 'us-east-1',
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
});
const running: RunningPoller[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((poller) => poller.stop()));
});

afterAll(() => sqs.destroy());

interface Invocation {
  event: SQSEvent;
  context: Context;
  remainingMs: number;
}

/** A queue with a 1-second visibility timeout and a dead-letter queue after 3 receives. */
async function queuePair(): Promise<{ queue: LocalQueue; dlq: LocalQueue }> {
  const suffix = randomUUID().slice(0, 8);
  const dlq = await createQueue(`poller-test-dlq-${suffix}`, {});
  const queue = await createQueue(`poller-test-${suffix}`, {
    VisibilityTimeout: '1',
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 3 }),
  });
  return { queue, dlq };
}

async function createQueue(name: string, attributes: Record<string, string>): Promise<LocalQueue> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  return { name, url: QueueUrl!, arn: Attributes!.QueueArn! };
}

function poll(queue: LocalQueue, handler: LambdaHandler, options: { waitTimeSeconds?: number } = {}): RunningPoller {
  const poller = startSqsPoller({
    queue,
    endpoint: inject('endpoints').sqs,
    function: { entry: 'stub', name: 'Stub' },
    loadHandler: async () => handler,
    onError: () => undefined,
    ...options,
  });
  running.push(poller);
  return poller;
}

function recorder(answer: (event: SQSEvent) => unknown = () => ({ batchItemFailures: [] })) {
  const invocations: Invocation[] = [];
  const handler: LambdaHandler = async (event, context) => {
    invocations.push({ event: event as SQSEvent, context, remainingMs: context.getRemainingTimeInMillis() });
    return answer(event as SQSEvent);
  };
  return { invocations, handler, records: () => invocations.flatMap((i) => i.event.Records) };
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function messagesLeft(queue: LocalQueue): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queue.url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
}

const send = (queue: LocalQueue, body: string, attributes?: SendMessageCommand['input']['MessageAttributes']) =>
  sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body, MessageAttributes: attributes }));

describe('local SQS poller', () => {
  it('invokes the function with the SQSEvent and context Lambda would build', async () => {
    const { queue } = await queuePair();
    const stub = recorder();
    const sentAt = Date.now();
    await send(queue, '{"hello":"wörld"}', {
      trace: { DataType: 'String', StringValue: 'abc' },
      blob: { DataType: 'Binary', BinaryValue: Buffer.from([1, 2, 3]) },
    });

    poll(queue, stub.handler);
    await until(() => stub.records().length === 1);

    const [{ event, context, remainingMs }] = stub.invocations as [Invocation];
    const [record] = event.Records;
    expect(record).toEqual({
      messageId: expect.stringMatching(/\S/),
      receiptHandle: expect.stringMatching(/\S/),
      body: '{"hello":"wörld"}',
      attributes: expect.objectContaining({
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d+$/),
        SenderId: expect.stringMatching(/\S/),
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d+$/),
      }),
      messageAttributes: {
        trace: { stringValue: 'abc', stringListValues: [], binaryListValues: [], dataType: 'String' },
        blob: {
          binaryValue: Buffer.from([1, 2, 3]).toString('base64'),
          stringListValues: [],
          binaryListValues: [],
          dataType: 'Binary',
        },
      },
      md5OfBody: createHash('md5').update('{"hello":"wörld"}').digest('hex'),
      md5OfMessageAttributes: expect.stringMatching(/^[0-9a-f]{32}$/),
      eventSource: 'aws:sqs',
      eventSourceARN: queue.arn,
      awsRegion: 'us-east-1',
    });
    expect(Number(record!.attributes.SentTimestamp)).toBeGreaterThanOrEqual(sentAt - 1_000);
    expect(context.functionName).toContain('Stub');
    expect(remainingMs).toBeGreaterThan(55_000);
    expect(remainingMs).toBeLessThanOrEqual(60_000);
    await until(async () => (await messagesLeft(queue)) === 0);
  });

  it('deletes the messages not reported in batchItemFailures; the failed one comes back with a higher receive count', async () => {
    const { queue } = await queuePair();
    const stub = recorder((event) => ({
      batchItemFailures: event.Records.filter(
        (r) => r.body === 'fail-once' && r.attributes.ApproximateReceiveCount === '1',
      ).map((r) => ({
        itemIdentifier: r.messageId,
      })),
    }));
    for (const body of ['first', 'fail-once', 'third']) await send(queue, body);

    poll(queue, stub.handler);
    await until(() => stub.records().length === 4);

    const seen = stub.records().map((r) => `${r.body}#${r.attributes.ApproximateReceiveCount}`);
    expect(seen.sort()).toEqual(['fail-once#1', 'fail-once#2', 'first#1', 'third#1']);
    await until(async () => (await messagesLeft(queue)) === 0);
  });

  it('keeps the whole batch when the answer names a message that is not in it', async () => {
    const { queue } = await queuePair();
    const stub = recorder((event) =>
      event.Records[0]!.attributes.ApproximateReceiveCount === '1'
        ? { batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] }
        : undefined,
    );
    await send(queue, 'only');

    poll(queue, stub.handler);
    await until(() => stub.records().length === 2);

    expect(stub.records().map((r) => r.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
    await until(async () => (await messagesLeft(queue)) === 0);
  });

  it("deletes nothing when the function throws, and the queue's redrive policy moves the message to the DLQ after 3 receives", async () => {
    const { queue, dlq } = await queuePair();
    const receiveCounts: string[] = [];
    const failing: LambdaHandler = async (event) => {
      receiveCounts.push(...(event as SQSEvent).Records.map((r) => r.attributes.ApproximateReceiveCount));
      throw new Error('worker crashed');
    };
    const deadLetters = recorder();
    const { MessageId } = await send(queue, 'doomed');

    poll(queue, failing);
    poll(dlq, deadLetters.handler);
    await until(() => deadLetters.records().length === 1, 10_000);

    expect(receiveCounts).toEqual(['1', '2', '3']);
    const [deadLetter] = deadLetters.records();
    expect(deadLetter).toMatchObject({ messageId: MessageId, body: 'doomed', eventSourceARN: dlq.arn });
    await until(async () => (await messagesLeft(queue)) === 0 && (await messagesLeft(dlq)) === 0);
  });

  it('stops promptly while a long poll is pending', async () => {
    const { queue } = await queuePair();
    const stub = recorder();
    const poller = poll(queue, stub.handler, { waitTimeSeconds: 10 });
    await new Promise((resolve) => setTimeout(resolve, 200));

    const startedAt = Date.now();
    await poller.stop();

    expect(Date.now() - startedAt).toBeLessThan(1_000);
    await send(queue, 'after stop');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stub.invocations).toHaveLength(0);
  });
});

describe('local schedule', () => {
  it('invokes the function with a Scheduled Event every interval until stopped', async () => {
    const events: ScheduledEvent[] = [];
    const schedule = startSchedule({
      function: { entry: 'stub', name: 'Sweep' },
      intervalMs: 100,
      loadHandler: async () => async (event: unknown) => {
        events.push(event as ScheduledEvent);
        return { timedOut: 0 };
      },
    });
    running.push(schedule);

    await until(() => events.length >= 2, 2_000);
    await schedule.stop();
    const count = events.length;
    await new Promise((resolve) => setTimeout(resolve, 250));

    expect(events.length).toBe(count);
    expect(events[0]).toMatchObject({
      version: '0',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: expect.stringMatching(/^\d{12}$/),
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      region: 'us-east-1',
      resources: [expect.stringMatching(/^arn:aws:events:.*:rule\//)],
      detail: {},
    });
  });
});
