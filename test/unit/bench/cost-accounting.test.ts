import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { CostAccounting, functionNameOf } from '#bench/support/cost-accounting.ts';
import { ensureLocalReportSigningKey } from '#local/report-signing-key.ts';
import { LocalSecretSealer } from '#shared/adapters/crypto/local-secret-sealer.ts';
import { LocalReportSigningKey } from '#shared/adapters/signing/local-report-signing-key.ts';
import { fakeHttpHandler } from '#test/support/fake-http-handler.ts';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const bodyOf = (body: unknown): string =>
  typeof body === 'string' ? body : new TextDecoder().decode(body as Uint8Array);

/**
 * A DynamoDB client whose "table" answers a PutItem with 2 units and a GetItem with 0.5, as DynamoDB would report
 * them, and refuses every conditional write.
 */
function countingDynamoDb() {
  const http = fakeHttpHandler((request) => {
    const target = request.headers['x-amz-target'] ?? '';
    const input = JSON.parse(bodyOf(request.body)) as { ReturnConsumedCapacity?: string; ConditionExpression?: string };
    const consumed = input.ReturnConsumedCapacity === 'TOTAL';
    if (target.endsWith('.PutItem') && !input.ConditionExpression)
      return {
        statusCode: 200,
        body: JSON.stringify(consumed ? { ConsumedCapacity: { TableName: 't', CapacityUnits: 2 } } : {}),
      };
    if (target.endsWith('.GetItem'))
      return {
        statusCode: 200,
        body: JSON.stringify({
          Item: { id: { S: 'a' } },
          ...(consumed ? { ConsumedCapacity: { TableName: 't', CapacityUnits: 0.5 } } : {}),
        }),
      };
    return {
      statusCode: 400,
      body: JSON.stringify({
        __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
        message: 'no',
      }),
    };
  });
  const client = new DynamoDBClient({ region: 'us-east-1', credentials, requestHandler: http, maxAttempts: 1 });
  return { http, documents: DynamoDBDocumentClient.from(client) };
}

const context = {} as Context;
const emfLine = (names: string[]) =>
  `${JSON.stringify({
    _aws: {
      Timestamp: 0,
      CloudWatchMetrics: [
        {
          Namespace: 'Ns',
          Dimensions: [['service', 'stage']],
          Metrics: names.map((Name) => ({ Name, Unit: 'Count' })),
        },
      ],
    },
    service: 'svc',
    stage: 'local',
    ...Object.fromEntries(names.map((name) => [name, 1])),
  })}\n`;

// One accounting per process: its hooks patch shared prototypes.
const accounting = new CostAccounting();
beforeAll(() => accounting.install());

describe('what the cost accounting counts per function', () => {
  it('counts invocations, HTTP API events and SQS records, each under the function the entry file names', async () => {
    const handlers = new Map([['functions/create-report-job.ts', async () => ({ statusCode: 202 })]]);
    const load = accounting.wrapLoader(async (entry) => handlers.get(entry)!, functionNameOf);
    const handler = await load('functions/create-report-job.ts');
    accounting.take();
    await handler({ requestContext: { http: { method: 'POST' } } }, context);
    await handler({ Records: [{ eventSource: 'aws:sqs' }, { eventSource: 'aws:sqs' }] }, context);
    const tally = accounting.take().get('CreateReportJob')!;
    expect(tally).toMatchObject({ invocations: 2, apiRequests: 1, sqsRecords: 2 });
    expect(tally.durationsMs).toHaveLength(2);
    expect(accounting.take().size).toBe(0);
  });

  it('asks DynamoDB for the consumed capacity and adds it up as read and write units; a refused condition costs a write unit', async () => {
    const { http, documents } = countingDynamoDb();
    const load = accounting.wrapLoader(
      async () => async () => {
        await documents.send(new PutCommand({ TableName: 't', Item: { id: 'a' } }));
        await documents.send(new GetCommand({ TableName: 't', Key: { id: 'a' } }));
        await documents
          .send(new PutCommand({ TableName: 't', Item: { id: 'a' }, ConditionExpression: 'attribute_not_exists(id)' }))
          .catch(() => undefined);
      },
      () => 'Writer',
    );
    await (
      await load('writer')
    )({}, context);
    const tally = accounting.take().get('Writer')!;
    expect(http.requests.map((request) => JSON.parse(bodyOf(request.body)).ReturnConsumedCapacity)).toEqual([
      'TOTAL',
      'TOTAL',
      'TOTAL',
    ]);
    expect(tally).toMatchObject({ dynamoDbWriteUnits: 3, dynamoDbReadUnits: 0.5 });
    expect(Object.fromEntries(tally.requests)).toEqual({ 'DynamoDB.Put': 2, 'DynamoDB.Get': 1 });
    expect(Object.fromEntries(tally.capacityUnits)).toEqual({ 'DynamoDB.Put': 3, 'DynamoDB.Get': 0.5 });
  });

  it('counts the requests of any SDK client, KMS stand-in calls, log bytes and EMF metric values', async () => {
    const sqs = new SQSClient({
      region: 'us-east-1',
      endpoint: 'http://localhost',
      credentials,
      requestHandler: fakeHttpHandler(() => ({
        statusCode: 200,
        body: JSON.stringify({ MessageId: 'm', MD5OfMessageBody: '900150983cd24fb0d6963f7d28e17f72' }),
      })),
    });
    const sealer = new LocalSecretSealer(randomBytes(32).toString('base64'));
    const line = emfLine(['TokensIssued', 'ReportsRequested']);
    const load = accounting.wrapLoader(
      async () => async () => {
        await sqs.send(new SendMessageCommand({ QueueUrl: 'http://localhost/000000000000/q', MessageBody: 'abc' }));
        await sealer.open(await sealer.seal('secret', { orgId: 'o', endpointId: 'e' }), {
          orgId: 'o',
          endpointId: 'e',
        });
        process.stdout.write(line);
      },
      () => 'Emitter',
    );
    await (
      await load('emitter')
    )({}, context);
    const tally = accounting.take().get('Emitter')!;
    expect(Object.fromEntries(tally.requests)).toEqual({ 'SQS.SendMessage': 1 });
    expect(tally.kmsRequests).toBe(2);
    expect(tally.logBytes).toBe(Buffer.byteLength(line));
    expect(tally.metricValues).toBe(2);
    expect([...tally.metrics]).toEqual(['Ns/TokensIssued[service,stage]', 'Ns/ReportsRequested[service,stage]']);
  });

  it('counts each report signature as the kms:Sign with the asymmetric key it stands in for', async () => {
    const keysDir = await mkdtemp(path.join(tmpdir(), 'cost-accounting-keys-'));
    try {
      const key = new LocalReportSigningKey(await ensureLocalReportSigningKey(keysDir));
      const load = accounting.wrapLoader(
        async () => async () => {
          await key.signSha256(new Uint8Array([1, 2, 3]));
          await key.signSha256(new Uint8Array([4, 5, 6]));
        },
        () => 'Signer',
      );
      await (
        await load('signer')
      )({}, context);
      const tally = accounting.take().get('Signer')!;
      expect(tally.kmsSignRequests).toBe(2);
      expect(tally.kmsRequests).toBe(0);
    } finally {
      await rm(keysDir, { recursive: true, force: true });
    }
  });

  it('counts nothing made outside an invocation', async () => {
    const { documents } = countingDynamoDb();
    await documents.send(new PutCommand({ TableName: 't', Item: { id: 'a' } }));
    process.stdout.write('');
    expect(accounting.take().size).toBe(0);
  });

  it('names every function the local stack runs by its entry file', () => {
    expect(functionNameOf('functions/deliver-webhooks.ts')).toBe('DeliverWebhooks');
    expect(functionNameOf('/repo/functions/process-report-jobs.ts')).toBe('ProcessReportJobs');
    // The SES event destination's function: unnamed, its invocations (one per e-mail sent) went uncounted.
    expect(functionNameOf('functions/count-email-events.ts')).toBe('CountEmailEvents');
    expect(() => functionNameOf(path.join('functions', 'unknown.ts'))).toThrow(/no function/);
  });
});
