import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { LocalSecretSealer } from '#shared/adapters/crypto/local-secret-sealer.ts';
import { DynamoDbWebhookDeliveryLog, DynamoDbWebhookEndpointStore } from '#shared/adapters/dynamodb/webhook-store.ts';
import { KmsSecretSealer } from '#shared/adapters/kms/kms-secret-sealer.ts';
import { SqsWebhookQueue } from '#shared/adapters/sqs/webhook-queue.ts';
import { ConflictError, InvalidInputError } from '#shared/domain/errors.ts';
import { webhookEndpoint } from '#test/support/fixtures/webhooks.ts';

const documentsMock = mockClient(DynamoDBDocumentClient);
const kmsMock = mockClient(KMSClient);
const sqsMock = mockClient(SQSClient);
beforeEach(() => {
  documentsMock.reset();
  kmsMock.reset();
  sqsMock.reset();
});

const documents = () => DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const endpoint = webhookEndpoint({ orgId: 'org-a', sealedSecret: 'kms:AAAA' });

describe('DynamoDbWebhookEndpointStore', () => {
  it('adds an endpoint and counts it in one transaction, under the organization’s partition', async () => {
    documentsMock.on(TransactWriteCommand).resolves({});
    await new DynamoDbWebhookEndpointStore(documents(), 'Webhooks').create(endpoint, 10);
    const items = documentsMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items[0]!.Update).toMatchObject({
      Key: { pk: 'ORG#org-a', sk: 'ENDPOINT_COUNT' },
      ConditionExpression: 'attribute_not_exists(endpointCount) OR endpointCount < :max',
      ExpressionAttributeValues: { ':one': 1, ':max': 10 },
    });
    expect(items[1]!.Put).toMatchObject({
      Item: { pk: 'ORG#org-a', sk: `ENDPOINT#${endpoint.endpointId}`, sealedSecret: 'kms:AAAA' },
    });
  });

  it('answers ConflictError when the organization already has the maximum', async () => {
    documentsMock.on(TransactWriteCommand).rejects(
      new TransactionCanceledException({
        message: 'cancelled',
        $metadata: {},
        CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
      }),
    );
    await expect(new DynamoDbWebhookEndpointStore(documents(), 'Webhooks').create(endpoint, 10)).rejects.toBeInstanceOf(
      ConflictError,
    );
  });

  it('sets failingSince only if it is not set yet', async () => {
    documentsMock.on(UpdateCommand).resolves({ Attributes: { ...endpoint, failingSince: '2026-03-01T00:00:00.000Z' } });
    const stored = await new DynamoDbWebhookEndpointStore(documents(), 'Webhooks').recordFailure(
      endpoint,
      new Date('2026-03-02T00:00:00.000Z'),
    );
    expect(stored.failingSince).toBe('2026-03-01T00:00:00.000Z');
    expect(documentsMock).toReceiveCommandWith(UpdateCommand, {
      UpdateExpression: 'SET failingSince = if_not_exists(failingSince, :now)',
    });
  });
});

describe('DynamoDbWebhookDeliveryLog', () => {
  it('lists an endpoint’s deliveries newest first, with a cursor that stays in its partition', async () => {
    documentsMock.on(QueryCommand).resolves({
      Items: [],
      LastEvaluatedKey: { pk: 'x', sk: 'DELIVERY#2026-03-01T12:00:00.000Z#msg_1' },
    });
    const log = new DynamoDbWebhookDeliveryLog(documents(), 'Webhooks');
    const page = await log.list('org-a', endpoint.endpointId, { limit: 5, cursor: undefined });
    expect(documentsMock).toReceiveCommandWith(QueryCommand, {
      ExpressionAttributeValues: { ':pk': `ORG#org-a#ENDPOINT#${endpoint.endpointId}`, ':prefix': 'DELIVERY#' },
      ScanIndexForward: false,
      Limit: 5,
    });
    await log.list('org-a', endpoint.endpointId, { limit: 5, cursor: page.nextCursor });
    expect(documentsMock.commandCalls(QueryCommand)[1]!.args[0].input.ExclusiveStartKey).toEqual({
      pk: `ORG#org-a#ENDPOINT#${endpoint.endpointId}`,
      sk: 'DELIVERY#2026-03-01T12:00:00.000Z#msg_1',
    });
    await expect(log.list('org-a', endpoint.endpointId, { limit: 5, cursor: 'garbage' })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
  });
});

describe('KmsSecretSealer', () => {
  it('encrypts and decrypts with the organization and endpoint as encryption context', async () => {
    kmsMock.on(EncryptCommand).resolves({ CiphertextBlob: Buffer.from('cipher') });
    kmsMock.on(DecryptCommand).resolves({ Plaintext: Buffer.from('whsec_abc') });
    const sealer = new KmsSecretSealer(new KMSClient({ region: 'eu-west-1' }), 'arn:aws:kms:eu-west-1:1:key/k');
    const context = { orgId: 'org-a', endpointId: 'ep-1' };
    const sealed = await sealer.seal('whsec_abc', context);
    expect(sealed).toBe(`kms:${Buffer.from('cipher').toString('base64')}`);
    expect(kmsMock).toReceiveCommandWith(EncryptCommand, {
      KeyId: 'arn:aws:kms:eu-west-1:1:key/k',
      EncryptionContext: context,
    });
    await expect(sealer.open(sealed, context)).resolves.toBe('whsec_abc');
    expect(kmsMock).toReceiveCommandWith(DecryptCommand, { EncryptionContext: context });
  });
});

describe('LocalSecretSealer', () => {
  const sealer = new LocalSecretSealer(Buffer.alloc(32, 1).toString('base64'));

  it('round-trips a secret and never stores it in the clear', async () => {
    const sealed = await sealer.seal('whsec_secret', { orgId: 'a', endpointId: 'e' });
    expect(sealed).not.toContain('whsec_secret');
    await expect(sealer.open(sealed, { orgId: 'a', endpointId: 'e' })).resolves.toBe('whsec_secret');
  });

  it('refuses a sealed secret moved to another endpoint or organization', async () => {
    const sealed = await sealer.seal('whsec_secret', { orgId: 'a', endpointId: 'e' });
    await expect(sealer.open(sealed, { orgId: 'b', endpointId: 'e' })).rejects.toThrow();
  });
});

describe('SqsWebhookQueue', () => {
  it('sends events at once and delayed attempts with DelaySeconds capped at 900, each grouped by its organization, in its lane’s queue', async () => {
    sqsMock.on(SendMessageCommand).resolves({});
    const queue = new SqsWebhookQueue(new SQSClient({ region: 'eu-west-1' }), 'https://sqs/q', 'https://sqs/slow');
    const event = {
      eventId: 'evt_1',
      orgId: 'org-a',
      type: 'report.failed' as const,
      timestamp: '2026-03-01T12:00:00.000Z',
      data: {},
    };
    await queue.publishEvent(event);
    await queue.scheduleDelivery(
      {
        kind: 'delivery',
        orgId: 'org-a',
        endpointId: 'ep',
        messageId: 'msg_1',
        createdAt: event.timestamp,
        attempt: 4,
        notBefore: event.timestamp,
        event,
      },
      7200,
    );
    const calls = sqsMock.commandCalls(SendMessageCommand).map((call) => call.args[0].input);
    expect(calls[0]).toEqual({
      QueueUrl: 'https://sqs/q',
      MessageBody: JSON.stringify({ kind: 'event', event }),
      MessageGroupId: 'org-a',
    });
    expect(calls[1]).toMatchObject({ QueueUrl: 'https://sqs/q', DelaySeconds: 900, MessageGroupId: 'org-a' });
    expect(JSON.parse(calls[1]!.MessageBody!)).toMatchObject({ kind: 'delivery', attempt: 4 });

    await queue.scheduleDelivery(
      { ...JSON.parse(calls[1]!.MessageBody!), orgId: 'org-b', lane: 'slow' } as Parameters<
        typeof queue.scheduleDelivery
      >[0],
      0,
    );
    const slow = sqsMock.commandCalls(SendMessageCommand)[2]!.args[0].input;
    expect(slow).toMatchObject({ QueueUrl: 'https://sqs/slow', MessageGroupId: 'org-b' });
    expect(slow.DelaySeconds).toBeUndefined();
  });
});
