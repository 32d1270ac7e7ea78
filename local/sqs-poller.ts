import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
  type MessageAttributeValue,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './emulators.ts';
import type { HandlerLoader } from './handler-modules.ts';
import { buildLambdaContext, LOCAL_ACCOUNT_ID, withTimeout, type RunningPoller } from './lambda-invocation.ts';
import type { LocalQueue } from './resources.ts';

/**
 * Stands in for a Lambda SQS event source mapping with `ReportBatchItemFailures`: long-polls a
 * queue, hands each batch to the function as the SQSEvent Lambda would build, then deletes the
 * messages the function did not report as failed. A function that throws or times out deletes
 * nothing. Failed messages come back after the queue's visibility timeout, and the emulator's
 * RedrivePolicy moves them to the dead-letter queue once they exceed maxReceiveCount.
 */

export interface SqsPollerOptions {
  queue: LocalQueue;
  /** SQS endpoint; must be the one the queue URL was made for (fauxqs looks queues up by URL). */
  endpoint: string;
  /** Entry file and name of the function, as in shared/config/api-routes.ts. */
  function: { entry: string; name: string };
  loadHandler: HandlerLoader;
  /** Messages per batch (the mapping's BatchSize); SQS allows at most 10 per receive. Default 5. */
  batchSize?: number;
  /** Long-poll wait per receive. Default 1 s, so stopping never waits long. */
  waitTimeSeconds?: number;
  /** The function's timeout; the context's remaining time counts down from it. Default 60 s. */
  timeoutMs?: number;
  /** Batches handled at once (Lambda runs several pollers and invocations). Default 2. */
  maxConcurrentBatches?: number;
  /** One line per batch; errors are always reported. */
  log?: (line: string) => void;
  onError?: (message: string, error: unknown) => void;
}

const DEFAULT_BATCH_SIZE = 5;
const DEFAULT_WAIT_TIME_SECONDS = 1;
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_CONCURRENT_BATCHES = 2;
/** After a failed receive (emulator restarting, say), wait this long before the next. */
const RECEIVE_RETRY_DELAY_MS = 1_000;

export function startSqsPoller(options: SqsPollerOptions): RunningPoller {
  const sqs = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: options.endpoint });
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const waitTimeSeconds = options.waitTimeSeconds ?? DEFAULT_WAIT_TIME_SECONDS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxConcurrentBatches = options.maxConcurrentBatches ?? DEFAULT_MAX_CONCURRENT_BATCHES;
  const onError = options.onError ?? ((message, error) => console.error(message, error));
  const label = `[sqs ${options.queue.name} -> ${options.function.name}]`;

  const stopping = new AbortController();
  const batches = new Set<Promise<void>>();

  async function receive(): Promise<Message[]> {
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queue.url,
        MaxNumberOfMessages: batchSize,
        WaitTimeSeconds: waitTimeSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: stopping.signal },
    );
    return Messages ?? [];
  }

  /** Never rejects: whatever goes wrong is reported, and the messages stay on the queue. */
  async function handleBatch(messages: Message[]): Promise<void> {
    const startedAt = Date.now();
    const context = buildLambdaContext(options.function.name, timeoutMs);
    let event: SQSEvent;
    let failedIds: Set<string>;
    try {
      event = toSqsEvent(messages, options.queue.arn);
      const handler = await options.loadHandler(options.function.entry);
      const result = await withTimeout(handler(event, context), timeoutMs);
      failedIds = failedMessageIds(result, event);
    } catch (error) {
      onError(
        `${label} invocation ${context.awsRequestId} failed; its ${messages.length} message(s) stay on the queue:`,
        error,
      );
      return;
    }
    const done = event.Records.filter((record) => !failedIds.has(record.messageId));
    await deleteMessages(done);
    const receiveCounts = event.Records.map((record) => record.attributes.ApproximateReceiveCount).join(',');
    options.log?.(
      `${label} ${event.Records.length} message(s) (receive count ${receiveCounts}): ${done.length} done, ` +
        `${failedIds.size} failed (${Date.now() - startedAt} ms)`,
    );
  }

  async function deleteMessages(records: SQSRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      const { Failed } = await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queue.url,
          Entries: records.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
        }),
      );
      if (Failed && Failed.length > 0) onError(`${label} could not delete ${Failed.length} message(s):`, Failed);
    } catch (error) {
      onError(`${label} could not delete ${records.length} message(s); they will be delivered again:`, error);
    }
  }

  async function run(): Promise<void> {
    while (!stopping.signal.aborted) {
      if (batches.size >= maxConcurrentBatches) {
        await Promise.race(batches);
        continue;
      }
      let messages: Message[];
      try {
        messages = await receive();
      } catch (error) {
        if (stopping.signal.aborted) break;
        onError(`${label} receive failed; retrying in ${RECEIVE_RETRY_DELAY_MS} ms:`, error);
        await sleep(RECEIVE_RETRY_DELAY_MS, stopping.signal);
        continue;
      }
      if (messages.length === 0) continue;
      const batch = handleBatch(messages).finally(() => batches.delete(batch));
      batches.add(batch);
    }
  }

  const running = run();
  let stopped: Promise<void> | undefined;
  return {
    // Aborts the pending receive (a message it was about to return simply becomes visible again
    // after the visibility timeout), then lets batches already handed to the function finish.
    stop: () =>
      (stopped ??= (async () => {
        stopping.abort();
        await running;
        await Promise.allSettled([...batches]);
        sqs.destroy();
      })()),
  };
}

/** The event Lambda's SQS integration builds from a received batch. */
export function toSqsEvent(messages: readonly Message[], queueArn: string): SQSEvent {
  return { Records: messages.map((message) => toSqsRecord(message, queueArn)) };
}

function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  const recordAttributes: SQSRecordAttributes = {
    ...attributes,
    ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
    SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
    SenderId: attributes.SenderId ?? LOCAL_ACCOUNT_ID,
    ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
  };
  return {
    messageId: required(message.MessageId, 'MessageId'),
    receiptHandle: required(message.ReceiptHandle, 'ReceiptHandle'),
    body: message.Body ?? '',
    attributes: recordAttributes,
    messageAttributes: toRecordMessageAttributes(message.MessageAttributes ?? {}),
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(':')[3] ?? LOCAL_REGION,
  };
}

/** SDK shape (`StringValue`, bytes) to Lambda's (`stringValue`, base64, list members always present). */
function toRecordMessageAttributes(attributes: Record<string, MessageAttributeValue>): SQSMessageAttributes {
  const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      {
        ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
        ...(value.BinaryValue !== undefined ? { binaryValue: base64(value.BinaryValue) } : {}),
        stringListValues: value.StringListValues ?? [],
        binaryListValues: (value.BinaryListValues ?? []).map(base64),
        dataType: value.DataType ?? 'String',
      },
    ]),
  );
}

/**
 * The messages to keep, from the function's answer. As in Lambda: no answer or an empty list
 * means all succeeded; an identifier that is empty or names no message in the batch makes the
 * whole batch count as failed.
 */
function failedMessageIds(result: unknown, event: SQSEvent): Set<string> {
  const all = new Set(event.Records.map((record) => record.messageId));
  const failures = (result as Partial<SQSBatchResponse> | null | undefined)?.batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return all;
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !all.has(id)) return all;
    failed.add(id);
  }
  return failed;
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new Error(`SQS returned a message without ${name}`);
  return value;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
