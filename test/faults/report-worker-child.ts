import { ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';
import { buildLambdaContext } from '#local/lambda-invocation.ts';
import { toSqsEvent } from '#local/sqs-poller.ts';

/**
 * One report worker invocation in a process of its own, so a fault test can kill it mid-job: a
 * cold start of the worker (the environment is the local stack's, given by the parent), one
 * receive from CHILD_QUEUE_URL on the SQS emulator at CHILD_SQS_ENDPOINT, the handler run on
 * that batch with a CHILD_TIMEOUT_MS function timeout. Prints `received` once it has the message.
 */

const { CHILD_QUEUE_URL, CHILD_QUEUE_ARN, CHILD_SQS_ENDPOINT, CHILD_TIMEOUT_MS } = process.env;
if (!CHILD_QUEUE_URL || !CHILD_QUEUE_ARN || !CHILD_SQS_ENDPOINT || !CHILD_TIMEOUT_MS) {
  throw new Error('set CHILD_QUEUE_URL, CHILD_QUEUE_ARN, CHILD_SQS_ENDPOINT and CHILD_TIMEOUT_MS');
}

const { handler } = await import('#functions/process-report-jobs.ts');
const sqs = new SQSClient({ endpoint: CHILD_SQS_ENDPOINT, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
let messages: Message[] = [];
while (messages.length === 0) {
  const received = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: CHILD_QUEUE_URL,
      MaxNumberOfMessages: 1,
      WaitTimeSeconds: 1,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  messages = received.Messages ?? [];
}
process.stdout.write('received\n');
const result = await handler(
  toSqsEvent(messages, CHILD_QUEUE_ARN),
  buildLambdaContext('worker', Number(CHILD_TIMEOUT_MS)),
);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
