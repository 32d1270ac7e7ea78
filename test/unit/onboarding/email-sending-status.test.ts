import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { emailSendingStatusFor, MAY_SEND_REUSE_MS } from '#shared/wiring/onboarding.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const dynamoDb = mockClient(documents);
const config = { ONBOARDING_TOKENS_TABLE_NAME: 'OnboardingTokens', EMAIL_REPUTATION_FAIL_OPEN_SECONDS: 300 };
const startedAt = Date.parse('2026-11-28T12:00:00Z');
const at = (seconds: number) => new Date(startedAt + seconds * 1000);
const reads = () => dynamoDb.commandCalls(GetCommand).map((call) => call.args[0].input.Key?.pk);
const paused = { Item: { paused: { since: '2026-11-28T11:00:00Z', reason: 'bounces' } } };

beforeEach(() => dynamoDb.reset());

describe('the e-mail pause as the sending functions read it', () => {
  it('reads an organization that may send once per reuse window, each organization for itself', async () => {
    dynamoDb.on(GetCommand).resolves({});
    const sending = emailSendingStatusFor(documents, config, { startedAt });

    expect(await sending.pausedFor('org-a', at(0))).toBeUndefined();
    expect(await sending.pausedFor('org-a', at(MAY_SEND_REUSE_MS / 1000 - 1))).toBeUndefined();
    expect(await sending.pausedFor('org-b', at(1))).toBeUndefined();
    expect(reads()).toEqual(['EMAIL_REPUTATION#org-a', 'EMAIL_REPUTATION#org-b']);

    expect(await sending.pausedFor('org-a', at(MAY_SEND_REUSE_MS / 1000))).toBeUndefined();
    expect(reads()).toHaveLength(3);
  });

  it('sees a pause recorded after its last read once the reuse window has passed', async () => {
    dynamoDb.on(GetCommand).resolvesOnce({}).resolves(paused);
    const sending = emailSendingStatusFor(documents, config, { startedAt });

    expect(await sending.pausedFor('org-a', at(0))).toBeUndefined();
    expect(await sending.pausedFor('org-a', at(MAY_SEND_REUSE_MS / 1000))).toBe('bounces');
  });

  it('never remembers a pause: a resume takes effect at the next e-mail', async () => {
    dynamoDb.on(GetCommand).resolvesOnce(paused).resolves({});
    const sending = emailSendingStatusFor(documents, config, { startedAt });

    expect(await sending.pausedFor('org-a', at(0))).toBe('bounces');
    expect(await sending.pausedFor('org-a', at(0.1))).toBeUndefined();
    expect(reads()).toHaveLength(2);
  });

  it('lets e-mail go while the pause cannot be read, within the fail-open window, and reads again each time', async () => {
    dynamoDb.on(GetCommand).rejects(new Error('connection reset'));
    const sending = emailSendingStatusFor(documents, config, { startedAt });

    expect(await sending.pausedFor('org-a', at(10))).toBeUndefined();
    expect(await sending.pausedFor('org-a', at(11))).toBeUndefined();
    expect(reads()).toHaveLength(2);
  });

  it('refuses e-mail as a dependency failure once the pause has been unreadable past the window', async () => {
    dynamoDb.on(GetCommand).resolvesOnce({}).rejects(new Error('connection reset'));
    const sending = emailSendingStatusFor(documents, config, { startedAt });

    expect(await sending.pausedFor('org-a', at(0))).toBeUndefined();
    expect(await sending.pausedFor('org-b', at(300))).toBeUndefined();
    await expect(sending.pausedFor('org-b', at(301))).rejects.toBeInstanceOf(DependencyUnavailableError);
  });
});
