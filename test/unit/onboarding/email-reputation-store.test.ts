import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbEmailReputationStore } from '#shared/adapters/dynamodb/email-reputation-store.ts';
import { countEmailEvent, type EmailEvent } from '#shared/domain/onboarding/email-reputation.ts';
import { FakeClock } from '#test/unit/reports/fakes.ts';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const dynamoDb = mockClient(documents);
const KEY = { pk: 'EMAIL_REPUTATION#acme', sk: 'EMAIL_REPUTATION' };
const sent = (messageId: string): EmailEvent => ({ kind: 'send', messageId, orgId: 'acme' });
const conditionFailed = () =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

const counter = () =>
  countEmailEvent({
    store: new DynamoDbEmailReputationStore(documents, 'OnboardingTokens'),
    clock: new FakeClock(new Date('2026-11-28T12:00:00Z')),
    alerts: { emailPaused: () => Promise.resolve() },
  });
const puts = () => dynamoDb.commandCalls(PutCommand).map((call) => call.args[0].input);

beforeEach(() => dynamoDb.reset());

describe('DynamoDbEmailReputationStore as the counter uses it', () => {
  it('reads an organization once, then writes each next event on the state it wrote, conditioned on its version', async () => {
    dynamoDb.on(GetCommand).resolves({ Item: { ...KEY, version: 4, recent: [['m-0', false, false]], early: [] } });
    dynamoDb.on(PutCommand).resolves({});
    const count = counter();

    expect(await count(sent('m-1'))).toBe('counted');
    expect(await count(sent('m-2'))).toBe('counted');

    expect(dynamoDb.commandCalls(GetCommand)).toHaveLength(1);
    expect(puts().map((put) => [put.ExpressionAttributeValues?.[':version'], put.Item?.version])).toEqual([
      [4, 5],
      [5, 6],
    ]);
    expect(puts()[1]?.Item?.recent).toEqual([
      ['m-0', false, false],
      ['m-1', false, false],
      ['m-2', false, false],
    ]);
  });

  it('makes the change again on a fresh read when another container wrote meanwhile', async () => {
    dynamoDb
      .on(GetCommand)
      .resolvesOnce({ Item: { ...KEY, version: 1, recent: [], early: [] } })
      .resolves({ Item: { ...KEY, version: 3, recent: [['m-other', true, false]], early: [] } });
    dynamoDb.on(PutCommand).resolvesOnce({}).rejectsOnce(conditionFailed()).resolves({});
    const count = counter();

    await count(sent('m-1'));
    await count(sent('m-2'));

    expect(dynamoDb.commandCalls(GetCommand)).toHaveLength(2);
    const last = puts().at(-1)!;
    expect(last.ExpressionAttributeValues).toEqual({ ':version': 3 });
    expect(last.Item?.recent).toEqual([
      ['m-other', true, false],
      ['m-2', false, false],
    ]);
  });

  it('decides that an event changes nothing on a fresh read, never on the remembered state alone', async () => {
    dynamoDb
      .on(GetCommand)
      .resolvesOnce({ Item: { ...KEY, version: 1, recent: [], early: [] } })
      .resolves({ Item: { ...KEY, version: 9, recent: [], early: [] } });
    dynamoDb.on(PutCommand).resolves({});
    const count = counter();
    await count(sent('m-1'));

    // An operator's resume emptied the item meanwhile: the repeated send is an e-mail the count no longer holds.
    expect(await count(sent('m-1'))).toBe('counted');
    expect(dynamoDb.commandCalls(GetCommand)).toHaveLength(2);
    expect(puts().at(-1)?.ExpressionAttributeValues).toEqual({ ':version': 9 });
  });
});
