import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ATTEMPT_TIMEOUT_MS, createDynamoDbClients, dynamoDbAttemptTimeoutMs } from '#shared/adapters/aws-clients.ts';
import { runWithDeadline } from '#shared/support/request-deadline.ts';
import { useAwsEndpoint } from '#test/support/aws-endpoint-environment.ts';

/**
 * A DynamoDB endpoint whose first request on a fresh count hangs (read, never answered) and whose
 * later requests are answered at once: the gray failure of one bad connection.
 */
let endpoint: Server;
let endpointUrl = '';
let requests: Array<{ target: string; answered: boolean }> = [];
const hung = new Set<ServerResponse>();

beforeAll(async () => {
  endpoint = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      const first = requests.length === 0;
      requests.push({ target: String(request.headers['x-amz-target']), answered: !first });
      if (first) {
        hung.add(response);
        return;
      }
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{"Item":{"pk":{"S":"a"}}}');
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  const address = endpoint.address();
  endpointUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  endpoint.closeAllConnections();
  await new Promise((resolve) => endpoint.close(resolve));
});

useAwsEndpoint(() => endpointUrl, ['DYNAMODB']);
beforeEach(() => {
  requests = [];
});

describe('an attempt that hangs', () => {
  it('is cut off at its attempt timeout and retried, and the call succeeds far inside the deadline', async () => {
    const { client } = createDynamoDbClients();
    const startedAt = Date.now();
    const answer = await runWithDeadline(8_000, () =>
      client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } })),
    );
    const elapsedMs = Date.now() - startedAt;

    expect(answer.Item).toEqual({ pk: { S: 'a' } });
    expect(requests).toEqual([
      { target: 'DynamoDB_20120810.GetItem', answered: false },
      { target: 'DynamoDB_20120810.GetItem', answered: true },
    ]);
    expect(elapsedMs).toBeGreaterThanOrEqual(ATTEMPT_TIMEOUT_MS.dynamoDbItem - 20);
    expect(elapsedMs).toBeLessThan(ATTEMPT_TIMEOUT_MS.dynamoDbItem + 800);
  });
});

describe('DynamoDB attempt timeouts', () => {
  it('give a page read (Query, Scan) longer than a single-item call', async () => {
    const { client } = createDynamoDbClients();
    const seen: number[] = [];
    client.middlewareStack.add(
      (next) => async (args) => {
        seen.push(dynamoDbAttemptTimeoutMs(args.request as Parameters<typeof dynamoDbAttemptTimeoutMs>[0]));
        return next(args);
      },
      { step: 'finalizeRequest', name: 'recordAttemptTimeout' },
    );
    requests = [{ target: 'warm', answered: true }];
    await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }));
    await client.send(new QueryCommand({ TableName: 't', KeyConditionExpression: 'pk = :pk' }));

    expect(seen).toEqual([ATTEMPT_TIMEOUT_MS.dynamoDbItem, ATTEMPT_TIMEOUT_MS.dynamoDbPage]);
    expect(ATTEMPT_TIMEOUT_MS.dynamoDbPage).toBeGreaterThan(ATTEMPT_TIMEOUT_MS.dynamoDbItem);
  });
});
