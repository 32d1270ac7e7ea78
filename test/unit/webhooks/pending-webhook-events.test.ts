import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbPendingWebhookEvents } from '#shared/adapters/dynamodb/pending-webhook-events.ts';
import type { WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';

const documentsMock = mockClient(DynamoDBDocumentClient);
const pending = () =>
  new DynamoDbPendingWebhookEvents(
    DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
    'Webhooks',
  );

const event = (eventId: string): WebhookEvent => ({
  eventId,
  orgId: 'org-1',
  type: 'onboarding_token.revoked',
  timestamp: '2026-11-25T10:00:00.000Z',
  data: { tokenId: 't-1' },
});

describe('pending webhook events in DynamoDB', () => {
  beforeEach(() => documentsMock.reset());

  it('keeps an event in its shard’s pending partition, keyed by when it was kept, expiring after 4 days', async () => {
    documentsMock.on(PutCommand).resolves({});
    await pending().keep(event('evt_a'), new Date('2026-11-25T10:00:01.000Z'));
    const [put] = documentsMock.commandCalls(PutCommand);
    const item = put!.args[0].input.Item!;
    expect(item).toEqual({
      pk: expect.stringMatching(/^PENDING_EVENTS#[0-3]$/),
      sk: '2026-11-25T10:00:01.000Z#evt_a',
      event: event('evt_a'),
      keptAt: '2026-11-25T10:00:01.000Z',
      ttl: Date.parse('2026-11-25T10:00:01.000Z') / 1000 + 4 * 24 * 3600,
    });
    expect(put!.args[0].input.TableName).toBe('Webhooks');
  });

  it('reads every shard, consistently, and returns the oldest events across them', async () => {
    const item = (eventId: string, keptAt: string) => ({ event: event(eventId), keptAt });
    documentsMock
      .on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'PENDING_EVENTS#0' } })
      .resolves({ Items: [item('evt_3', '2026-11-25T10:00:03.000Z')] })
      .on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'PENDING_EVENTS#2' } })
      .resolves({ Items: [item('evt_1', '2026-11-25T10:00:01.000Z'), item('evt_4', '2026-11-25T10:00:04.000Z')] })
      .on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'PENDING_EVENTS#3' } })
      .resolves({ Items: [item('evt_2', '2026-11-25T10:00:02.000Z')] })
      .on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'PENDING_EVENTS#1' } })
      .resolves({ Items: [] });
    const oldest = await pending().oldest(3);
    expect(oldest.map((one) => one.event.eventId)).toEqual(['evt_1', 'evt_2', 'evt_3']);
    const queries = documentsMock.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(queries).toHaveLength(4);
    for (const query of queries) expect(query).toMatchObject({ ConsistentRead: true, Limit: 3, TableName: 'Webhooks' });
  });

  it('lists one organization’s pending events: every shard, filtered by the event’s organization, every page', async () => {
    const item = (eventId: string) => ({ event: event(eventId), keptAt: '2026-11-25T10:00:01.000Z' });
    documentsMock
      .on(QueryCommand)
      .resolves({ Items: [] })
      .on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'PENDING_EVENTS#1', ':orgId': 'org-1' } })
      .resolvesOnce({ Items: [item('evt_1')], LastEvaluatedKey: { pk: 'PENDING_EVENTS#1', sk: 'a' } })
      .resolvesOnce({ Items: [item('evt_2')] });

    const listed = await pending().ofOrganization('org-1');

    expect(listed.map((one) => one.event.eventId)).toEqual(['evt_1', 'evt_2']);
    const queries = documentsMock.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(queries).toHaveLength(5);
    for (const query of queries)
      expect(query).toMatchObject({
        TableName: 'Webhooks',
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: '#event.orgId = :orgId',
        ExpressionAttributeNames: { '#event': 'event' },
        ConsistentRead: true,
      });
    expect(queries.filter((query) => query.ExclusiveStartKey)).toEqual([
      expect.objectContaining({ ExclusiveStartKey: { pk: 'PENDING_EVENTS#1', sk: 'a' } }),
    ]);
  });

  it('removes exactly the item it kept', async () => {
    documentsMock.on(PutCommand).resolves({});
    documentsMock.on(DeleteCommand).resolves({});
    const at = new Date('2026-11-25T10:00:01.000Z');
    await pending().keep(event('evt_a'), at);
    await pending().remove({ event: event('evt_a'), keptAt: at.toISOString() });
    const kept = documentsMock.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(documentsMock.commandCalls(DeleteCommand)[0]!.args[0].input.Key).toEqual({ pk: kept.pk, sk: kept.sk });
  });
});
