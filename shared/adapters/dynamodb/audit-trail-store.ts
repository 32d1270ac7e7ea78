import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AuditEvent, AuditEventPage, AuditEventQuery, AuditTrail } from '#shared/domain/audit/audit-event.ts';
import { ConflictError } from '#shared/domain/errors.ts';
import { epochSeconds, organizationPartition } from './keys.ts';
import { decodeCursor, encodeCursor } from './page-cursor.ts';
import { writeOnce } from './write-once.ts';

const EVENT_PREFIX = 'EVENT#';
/** Sorts after every `{instant}#{eventId}` of the same instant (`#` < `~`). */
const AFTER_ANY_EVENT = '~';
/** Queries one request may read while filtering by action, before it answers with what it found and a cursor. */
const MAX_PAGES_PER_REQUEST = 10;

const eventSortKey = (event: AuditEvent): string => `${EVENT_PREFIX}${event.occurredAt}#${event.eventId}`;
const targetPartition = (orgId: string, targetId: string): string =>
  `${organizationPartition(orgId)}#TARGET#${targetId}`;

/**
 * The organization's audit trail in DynamoDB (shared/config/table-definitions.ts `auditEventsTable`). Events
 * are only ever put, on the condition that none exists with the same key; functions hold PutItem
 * alone on this table. A retried put that meets an event of its own id is that event, put by an
 * attempt whose answer was lost (write-once.ts). They expire `retentionDays` after they occurred
 * (DynamoDB TTL).
 */
export class DynamoDbAuditTrail implements AuditTrail {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly retentionDays = 400,
  ) {}

  async append(orgId: string, event: AuditEvent): Promise<void> {
    const written = await writeOnce(
      this.documents,
      {
        Put: {
          TableName: this.tableName,
          Item: {
            pk: organizationPartition(orgId),
            sk: eventSortKey(event),
            targetPk: targetPartition(orgId, event.target.id),
            ttl: epochSeconds(event.occurredAt) + this.retentionDays * 86_400,
            ...event,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      { attribute: 'eventId', value: event.eventId },
    );
    if (written.kind === 'condition-failed') throw new ConflictError('another audit event holds this event’s key');
  }

  /**
   * Newest first. `targetId` reads the `byTarget` index, otherwise the organization's partition;
   * `from`/`to` bound the sort key; `action` filters. The cursor is the last returned event's
   * sort key: the partition always comes from the caller's organization.
   */
  async list(orgId: string, query: AuditEventQuery): Promise<AuditEventPage> {
    const pk = organizationPartition(orgId);
    const partition = query.targetId
      ? { indexName: 'byTarget', name: 'targetPk', value: targetPartition(orgId, query.targetId) }
      : { indexName: undefined, name: 'pk', value: pk };
    const lower = `${EVENT_PREFIX}${query.from ?? ''}`;
    const upper = `${EVENT_PREFIX}${query.to ?? '9999'}${AFTER_ANY_EVENT}`;
    let startKey: Record<string, unknown> | undefined;
    if (query.cursor) {
      const sk = decodeCursor(query.cursor, EVENT_PREFIX);
      startKey = { pk, sk, ...(query.targetId ? { targetPk: partition.value } : {}) };
    }

    const results: AuditEvent[] = [];
    let lastSortKey: string | undefined;
    for (let page = 0; page < MAX_PAGES_PER_REQUEST; page++) {
      const answer = await this.documents.send(
        new QueryCommand({
          TableName: this.tableName,
          ...(partition.indexName ? { IndexName: partition.indexName } : {}),
          KeyConditionExpression: '#partition = :partition AND sk BETWEEN :lower AND :upper',
          ...(query.action ? { FilterExpression: '#action = :action' } : {}),
          ExpressionAttributeNames: { '#partition': partition.name, ...(query.action ? { '#action': 'action' } : {}) },
          ExpressionAttributeValues: {
            ':partition': partition.value,
            ':lower': lower,
            ':upper': upper,
            ...(query.action ? { ':action': query.action } : {}),
          },
          ScanIndexForward: false,
          Limit: query.limit - results.length,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const item of answer.Items ?? []) {
        results.push(eventFrom(item));
        lastSortKey = item.sk as string;
      }
      startKey = answer.LastEvaluatedKey;
      if (!startKey || results.length >= query.limit) break;
      // The page did not fill the request: the next one (or the cursor) starts where DynamoDB stopped.
      lastSortKey = startKey.sk as string;
    }
    return { results, nextCursor: startKey && lastSortKey ? encodeCursor(lastSortKey) : null };
  }
}

function eventFrom(item: Record<string, unknown>): AuditEvent {
  return {
    eventId: item.eventId as string,
    occurredAt: item.occurredAt as string,
    action: item.action as AuditEvent['action'],
    actor: item.actor as AuditEvent['actor'],
    target: item.target as AuditEvent['target'],
    requestId: item.requestId as string,
    outcome: item.outcome === 'started' ? 'started' : 'success',
  };
}
