import {
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '#shared/domain/errors.ts';
import type {
  DeliveryAttemptUpdate,
  WebhookDeliveryLog,
  ListenerMessagePage,
  WebhookDeliveryPage,
  WebhookEndpointStore,
  WebhookListenerFeed,
} from '#shared/domain/webhooks/ports.ts';
import type { WebhookDelivery, WebhookEndpoint } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { epochSeconds, organizationPartition } from './keys.ts';
import { decodeCursor, encodeCursor } from './page-cursor.ts';
import { cancellationReasons, withTransactionConflictRetry } from './transactions.ts';

const ENDPOINT_PREFIX = 'ENDPOINT#';
const COUNT_SK = 'ENDPOINT_COUNT';
const DELIVERY_PREFIX = 'DELIVERY#';
/** The delivery log keeps a message this long after it was created. */
const DELIVERY_RETENTION_SECONDS = 30 * 24 * 3600;
/** A sandbox listener's message holds its body (personal data of test users): kept a week, like the sandbox's e-mails. */
const LISTENER_MESSAGE_RETENTION_SECONDS = 7 * 24 * 3600;

const endpointKey = (orgId: string, endpointId: string) => ({
  pk: organizationPartition(orgId),
  sk: `${ENDPOINT_PREFIX}${endpointId}`,
});
const countKey = (orgId: string) => ({ pk: organizationPartition(orgId), sk: COUNT_SK });
const deliveryKey = (d: Pick<WebhookDelivery, 'orgId' | 'endpointId' | 'messageId' | 'createdAt'>) => ({
  pk: `${organizationPartition(d.orgId)}#${ENDPOINT_PREFIX}${d.endpointId}`,
  sk: `${DELIVERY_PREFIX}${d.createdAt}#${d.messageId}`,
});

function endpointFrom(item: Record<string, unknown>): WebhookEndpoint {
  return {
    orgId: item.orgId as string,
    endpointId: item.endpointId as string,
    url: item.url as string,
    events: item.events as WebhookEndpoint['events'],
    sealedSecret: item.sealedSecret as string,
    createdAt: item.createdAt as string,
    disabled: item.disabled === true,
    ...(typeof item.disabledAt === 'string' ? { disabledAt: item.disabledAt } : {}),
    ...(typeof item.failingSince === 'string' ? { failingSince: item.failingSince } : {}),
    ...(typeof item.slowUntil === 'string' ? { slowUntil: item.slowUntil } : {}),
    ...(item.kind === 'listener' ? { kind: 'listener' as const } : {}),
  };
}

function deliveryFrom(item: Record<string, unknown>): WebhookDelivery {
  const optional = (name: string) => (item[name] === undefined ? {} : { [name]: item[name] });
  return {
    orgId: item.orgId as string,
    endpointId: item.endpointId as string,
    messageId: item.messageId as string,
    type: item.type as WebhookDelivery['type'],
    status: item.status as WebhookDelivery['status'],
    attempts: item.attempts as number,
    createdAt: item.createdAt as string,
    ...optional('lastResponseStatus'),
    ...optional('lastAttemptAt'),
    ...optional('nextAttemptAt'),
    ...optional('body'),
  };
}

export class DynamoDbWebhookEndpointStore implements WebhookEndpointStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(endpoint: WebhookEndpoint, maxPerOrganization: number): Promise<void> {
    try {
      await withTransactionConflictRetry(() =>
        this.documents.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: this.tableName,
                  Key: countKey(endpoint.orgId),
                  UpdateExpression: 'ADD endpointCount :one',
                  ConditionExpression: 'attribute_not_exists(endpointCount) OR endpointCount < :max',
                  ExpressionAttributeValues: { ':one': 1, ':max': maxPerOrganization },
                },
              },
              {
                Put: {
                  TableName: this.tableName,
                  Item: { ...endpointKey(endpoint.orgId, endpoint.endpointId), ...endpoint },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
            ],
          }),
        ),
      );
    } catch (error) {
      if (cancellationReasons(error)[0] === 'ConditionalCheckFailed') {
        throw new ConflictError(`an organization has at most ${maxPerOrganization} webhook endpoints`);
      }
      throw error;
    }
  }

  async list(orgId: string): Promise<WebhookEndpoint[]> {
    const result = await this.documents.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': organizationPartition(orgId), ':prefix': ENDPOINT_PREFIX },
      }),
    );
    return (result.Items ?? [])
      .map(endpointFrom)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.endpointId.localeCompare(b.endpointId));
  }

  async get(orgId: string, endpointId: string): Promise<WebhookEndpoint | undefined> {
    const result = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: endpointKey(orgId, endpointId), ConsistentRead: true }),
    );
    return result.Item ? endpointFrom(result.Item) : undefined;
  }

  async delete(orgId: string, endpointId: string): Promise<boolean> {
    try {
      await withTransactionConflictRetry(() =>
        this.documents.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Delete: {
                  TableName: this.tableName,
                  Key: endpointKey(orgId, endpointId),
                  ConditionExpression: 'attribute_exists(pk)',
                },
              },
              {
                Update: {
                  TableName: this.tableName,
                  Key: countKey(orgId),
                  UpdateExpression: 'ADD endpointCount :minusOne',
                  ExpressionAttributeValues: { ':minusOne': -1 },
                },
              },
            ],
          }),
        ),
      );
      return true;
    } catch (error) {
      if (cancellationReasons(error)[0] === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  async recordFailure(endpoint: WebhookEndpoint, now: Date): Promise<WebhookEndpoint> {
    const result = await this.documents
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKey(endpoint.orgId, endpoint.endpointId),
          UpdateExpression: 'SET failingSince = if_not_exists(failingSince, :now)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':now': now.toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      )
      .catch((error: unknown) => {
        if ((error as Error).name === 'ConditionalCheckFailedException') return { Attributes: undefined };
        throw error;
      });
    return result.Attributes ? endpointFrom(result.Attributes) : endpoint;
  }

  async recordSuccess(endpoint: WebhookEndpoint): Promise<void> {
    await this.documents
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKey(endpoint.orgId, endpoint.endpointId),
          UpdateExpression: 'REMOVE failingSince',
          ConditionExpression: 'attribute_exists(pk)',
        }),
      )
      .catch((error: unknown) => {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      });
  }

  async setSlowUntil(endpoint: WebhookEndpoint, until: Date | undefined): Promise<void> {
    await this.documents
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKey(endpoint.orgId, endpoint.endpointId),
          UpdateExpression: until ? 'SET slowUntil = :until' : 'REMOVE slowUntil',
          ConditionExpression: 'attribute_exists(pk)',
          ...(until ? { ExpressionAttributeValues: { ':until': until.toISOString() } } : {}),
        }),
      )
      .catch((error: unknown) => {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      });
  }

  async disable(endpoint: WebhookEndpoint, now: Date): Promise<void> {
    await this.documents
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKey(endpoint.orgId, endpoint.endpointId),
          UpdateExpression: 'SET disabled = :true, disabledAt = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':true': true, ':now': now.toISOString() },
        }),
      )
      .catch((error: unknown) => {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      });
  }
}

export class DynamoDbWebhookDeliveryLog implements WebhookDeliveryLog, WebhookListenerFeed {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async open(delivery: WebhookDelivery): Promise<void> {
    await this.documents
      .send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...deliveryKey(delivery),
            ...delivery,
            ttl:
              epochSeconds(delivery.createdAt) +
              (delivery.body === undefined ? DELIVERY_RETENTION_SECONDS : LISTENER_MESSAGE_RETENTION_SECONDS),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      )
      .catch((error: unknown) => {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      });
  }

  async get(
    delivery: Pick<WebhookDelivery, 'orgId' | 'endpointId' | 'messageId' | 'createdAt'>,
  ): Promise<WebhookDelivery | undefined> {
    const result = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: deliveryKey(delivery), ConsistentRead: true }),
    );
    return result.Item ? deliveryFrom(result.Item) : undefined;
  }

  async recordAttempt(
    delivery: Pick<WebhookDelivery, 'orgId' | 'endpointId' | 'messageId' | 'createdAt'>,
    update: DeliveryAttemptUpdate,
  ): Promise<void> {
    const set = ['#status = :status', 'attempts = :attempts', 'lastAttemptAt = :lastAttemptAt'];
    const values: Record<string, unknown> = {
      ':status': update.status,
      ':attempts': update.attempts,
      ':lastAttemptAt': update.lastAttemptAt,
    };
    if (update.lastResponseStatus !== undefined) {
      set.push('lastResponseStatus = :lastResponseStatus');
      values[':lastResponseStatus'] = update.lastResponseStatus;
    }
    if (update.nextAttemptAt !== undefined) {
      set.push('nextAttemptAt = :nextAttemptAt');
      values[':nextAttemptAt'] = update.nextAttemptAt;
    }
    const remove = update.nextAttemptAt === undefined ? ' REMOVE nextAttemptAt' : '';
    await this.documents.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: deliveryKey(delivery),
        UpdateExpression: `SET ${set.join(', ')}${remove}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      }),
    );
  }

  async list(
    orgId: string,
    endpointId: string,
    page: { limit: number; cursor: string | undefined },
  ): Promise<WebhookDeliveryPage> {
    const pk = `${organizationPartition(orgId)}#${ENDPOINT_PREFIX}${endpointId}`;
    const result = await this.documents.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': DELIVERY_PREFIX },
        ScanIndexForward: false,
        Limit: page.limit,
        ...(page.cursor ? { ExclusiveStartKey: { pk, sk: decodeCursor(page.cursor, DELIVERY_PREFIX) } } : {}),
      }),
    );
    const lastSk = result.LastEvaluatedKey?.sk as string | undefined;
    return {
      records: (result.Items ?? []).map(deliveryFrom),
      nextCursor: lastSk ? encodeCursor(lastSk) : undefined,
    };
  }

  /** The listener's partition read forwards from the cursor's sort key up to `settledBy`: one Query. */
  async messagesAfter(
    orgId: string,
    endpointId: string,
    read: { cursor: string | undefined; settledBy: string; limit: number },
  ): Promise<ListenerMessagePage> {
    const pk = `${organizationPartition(orgId)}#${ENDPOINT_PREFIX}${endpointId}`;
    // Past every message logged at `settledBy` (`#` sorts before every id character, `~` after).
    const upTo = `${DELIVERY_PREFIX}${read.settledBy}#~`;
    if (read.cursor === undefined) return { records: [], cursor: encodeCursor(upTo) };
    const after = decodeCursor(read.cursor, DELIVERY_PREFIX);
    if (after >= upTo) return { records: [], cursor: read.cursor };
    const result = await this.documents.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :after AND :upTo',
        ExpressionAttributeValues: { ':pk': pk, ':after': after, ':upTo': upTo },
        ConsistentRead: true,
        Limit: read.limit + 1,
      }),
    );
    const records = (result.Items ?? []).filter((item) => item.sk !== after).slice(0, read.limit);
    const last = records.at(-1)?.sk as string | undefined;
    // A full page continues after its last message; otherwise everything up to `settledBy` has been read.
    const full = records.length === read.limit;
    return { records: records.map(deliveryFrom), cursor: encodeCursor(full && last ? last : upTo) };
  }
}
