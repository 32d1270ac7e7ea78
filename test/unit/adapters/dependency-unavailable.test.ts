import { DynamoDBClient, GetItemCommand, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { isDependencyUnavailable } from '#shared/adapters/aws-errors.ts';
import { withTransactionConflictRetry } from '#shared/adapters/dynamodb/transactions.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { fakeHttpHandler } from '#test/support/fake-http-handler.ts';

describe('isDependencyUnavailable', () => {
  it.each([
    ['an SDK throttling error', { name: 'ThrottlingException', $fault: 'client', $retryable: { throttling: true } }],
    ['a provisioned throughput error by name alone', { name: 'ProvisionedThroughputExceededException' }],
    ['an SDK server fault', { name: 'InternalError', $fault: 'server' }],
    ['a refused connection', { code: 'ECONNREFUSED' }],
    ['a timed-out request', { name: 'TimeoutError' }],
  ])('says yes to %s', (_label, shape) => {
    expect(isDependencyUnavailable(Object.assign(new Error('x'), shape))).toBe(true);
  });

  it('says no to an ordinary client fault', () => {
    const notFound = Object.assign(new Error('Requested resource not found'), {
      name: 'ResourceNotFoundException',
      $fault: 'client',
    });
    expect(isDependencyUnavailable(notFound)).toBe(false);
  });
});

describe('the service’s DynamoDB client', () => {
  const environment = { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' };
  beforeEach(() => Object.assign(process.env, environment));
  afterEach(() => {
    for (const name of Object.keys(environment)) delete process.env[name];
  });

  const clientAnswering = (answer: Parameters<typeof fakeHttpHandler>[0]): DynamoDBClient => {
    const { client } = createDynamoDbClients();
    client.config.requestHandler = fakeHttpHandler(answer) as never; // the SDK only calls handle()
    return client;
  };

  it('turns throttling that outlasted the SDK’s retries into DependencyUnavailableError (database)', async () => {
    const client = clientAnswering(() => ({
      statusCode: 400,
      headers: { 'x-amzn-errortype': 'ThrottlingException' },
      body: JSON.stringify({
        __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
        message: 'Rate exceeded',
      }),
    }));
    const failure = await client
      .send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }))
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    expect((failure as DependencyUnavailableError).dependency).toBe('database');
    expect((failure as Error).cause).toMatchObject({ name: 'ThrottlingException' });
  }, 20_000); // the SDK backs off between throttled attempts

  it('passes an ordinary client fault on as the SDK’s own error', async () => {
    const client = clientAnswering(() => ({
      statusCode: 400,
      headers: { 'x-amzn-errortype': 'ResourceNotFoundException' },
      body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException', message: 'no' }),
    }));
    const failure = await client
      .send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }))
      .catch((error: unknown) => error);

    expect(failure).toMatchObject({ name: 'ResourceNotFoundException' });
    expect(failure).not.toBeInstanceOf(DependencyUnavailableError);
  });
});

describe('withTransactionConflictRetry', () => {
  const cancelled = (...codes: string[]) =>
    new TransactionCanceledException({
      message: 'Transaction cancelled',
      $metadata: {},
      CancellationReasons: codes.map((Code) => ({ Code })),
    });

  it('reports contention that outlasted its attempts as the database being unavailable', async () => {
    let attempts = 0;
    const failure = await withTransactionConflictRetry(() => {
      attempts++;
      return Promise.reject(cancelled('None', 'TransactionConflict'));
    }, 3).catch((error: unknown) => error);

    expect(attempts).toBe(3);
    expect(failure).toBeInstanceOf(DependencyUnavailableError);
  });

  it('passes a failed condition on untouched, for the adapter to read', async () => {
    const conditionFailed = cancelled('ConditionalCheckFailed', 'None');
    await expect(withTransactionConflictRetry(() => Promise.reject(conditionFailed))).rejects.toBe(conditionFailed);
  });
});
