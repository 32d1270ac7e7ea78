import { createHash } from 'node:crypto';
import { DeleteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PendingWebhookEvent, PendingWebhookEvents } from '#shared/domain/webhooks/ports.ts';
import type { WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { PENDING_EVENTS_PARTITION_PREFIX } from '#shared/config/table-definitions.ts';
import { epochSeconds } from './keys.ts';

/**
 * Pending events in the Webhooks table (`PENDING_EVENTS#{shard}` / `{keptAt}#{eventId}`), spread
 * over a few partitions by event id, so a queue outage under load does not write one partition
 * only. The items are written only while the queue refuses events, and read oldest first.
 */
const SHARDS = 4;
/** As long as SQS keeps a message by default: an event pending longer than that is dropped. */
const PENDING_RETENTION_SECONDS = 4 * 24 * 3600;

const shardOf = (eventId: string): number => createHash('sha256').update(eventId).digest()[0]! % SHARDS;
const partition = (shard: number) => `${PENDING_EVENTS_PARTITION_PREFIX}${shard}`;

export class DynamoDbPendingWebhookEvents implements PendingWebhookEvents {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async keep(event: WebhookEvent, now: Date): Promise<void> {
    const keptAt = now.toISOString();
    await this.documents.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: partition(shardOf(event.eventId)),
          sk: `${keptAt}#${event.eventId}`,
          event,
          keptAt,
          ttl: epochSeconds(keptAt) + PENDING_RETENTION_SECONDS,
        },
      }),
    );
  }

  async oldest(limit: number): Promise<PendingWebhookEvent[]> {
    const pending = await everyShard(async (pk) => {
      const page = await this.documents.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
          Limit: limit,
        }),
      );
      return page.Items ?? [];
    });
    return pending.sort((a, b) => a.keptAt.localeCompare(b.keptAt)).slice(0, limit);
  }

  ofOrganization(orgId: string): Promise<PendingWebhookEvent[]> {
    return everyShard(async (pk) => {
      const items: Array<Record<string, unknown>> = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await this.documents.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk',
            FilterExpression: '#event.orgId = :orgId',
            ExpressionAttributeNames: { '#event': 'event' },
            ExpressionAttributeValues: { ':pk': pk, ':orgId': orgId },
            ConsistentRead: true,
            ...(startKey ? { ExclusiveStartKey: startKey } : {}),
          }),
        );
        items.push(...(page.Items ?? []));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return items;
    });
  }

  async remove(pending: PendingWebhookEvent): Promise<void> {
    await this.documents.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: { pk: partition(shardOf(pending.event.eventId)), sk: `${pending.keptAt}#${pending.event.eventId}` },
      }),
    );
  }
}

/** Reads every pending partition at once, as `read` reads one; the items as pending events, unordered. */
async function everyShard(
  read: (pk: string) => Promise<Array<Record<string, unknown>>>,
): Promise<PendingWebhookEvent[]> {
  const shards = await Promise.all(Array.from({ length: SHARDS }, (_, shard) => read(partition(shard))));
  return shards.flat().map((item) => ({ event: item.event as WebhookEvent, keptAt: item.keptAt as string }));
}
