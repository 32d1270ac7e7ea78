import { createServer, type Server, type Socket } from 'node:net';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbClients, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { runWithDeadline } from '#shared/support/request-deadline.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { useAwsEndpoint } from '#test/support/aws-endpoint-environment.ts';

/** A TCP endpoint that accepts connections and reads requests but never answers: a stalled service. */
let stalledEndpoint: Server;
const sockets = new Set<Socket>();
let endpointUrl = '';

beforeAll(async () => {
  stalledEndpoint = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => stalledEndpoint.listen(0, '127.0.0.1', resolve));
  const address = stalledEndpoint.address();
  endpointUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => stalledEndpoint.close(resolve));
});

useAwsEndpoint(() => endpointUrl, ['DYNAMODB', 'SQS']);

describe('an AWS call to a stalled service inside an invocation deadline', () => {
  it('ends at the deadline as DependencyUnavailableError, outcome unknown, with a Retry-After of the stall', async () => {
    const { client } = createDynamoDbClients();
    const startedAt = Date.now();
    const failure = await runWithDeadline(2_500, () =>
      client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } })),
    ).catch((error: unknown) => error);
    const elapsedMs = Date.now() - startedAt;

    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    expect(failure).toMatchObject({ dependency: 'database', outcomeUnknown: true, retryAfterSeconds: 3 });
    expect(elapsedMs).toBeGreaterThanOrEqual(2_400);
    expect(elapsedMs).toBeLessThan(4_000);
  });

  it('bounds every client the same way (SQS)', async () => {
    const failure = await runWithDeadline(300, () =>
      createSqsClient().send(new SendMessageCommand({ QueueUrl: `${endpointUrl}/000000000000/q`, MessageBody: 'x' })),
    ).catch((error: unknown) => error);

    expect(failure).toMatchObject({ name: 'DependencyUnavailableError', dependency: 'queue', outcomeUnknown: true });
    expect((failure as DependencyUnavailableError).retryAfterSeconds).toBe(2);
  });

  it('outside any deadline, leaves the caller’s own abort signal in charge', async () => {
    const { client } = createDynamoDbClients();
    const failure = await client
      .send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }), { abortSignal: AbortSignal.timeout(200) })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'AbortError' });
  });
});
