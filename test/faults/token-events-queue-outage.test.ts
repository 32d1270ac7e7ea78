import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { PENDING_EVENTS_PARTITION_PREFIX } from '#shared/config/table-definitions.ts';
import { eventIdFor } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { startWebhookReceiver } from '#test/support/webhook-receiver.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { fault, FUNCTION_TIMEOUT_MS, receivedEvents, sleep, timed, type TimedResponse } from './fault-support.ts';

/**
 * Token events while SQS stalls and then refuses the functions' messages: a redemption and a
 * revocation (SQS stalled: the publish gives up after its own 3 s, leaving the invocation time to
 * keep the event) and a resend (SQS answering 503; it revokes the token it replaces) all succeed
 * with their whole effect, and their events are kept as pending. Once SQS takes messages again, the
 * republish schedule (every second in this tier) queues them: each reaches the receiver once, with
 * the event id of its state change.
 */

const person = (email: string) => ({ email, first_name: 'Zoë', last_name: 'Ångström' });
const email = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}@example.com`;

async function pendingEventIds(): Promise<string[]> {
  const { documents, client } = createDynamoDbClients();
  try {
    const ids: string[] = [];
    for (let shard = 0; shard < 4; shard++) {
      const { Items = [] } = await documents.send(
        new QueryCommand({
          TableName: inject('localEnv').WEBHOOKS_TABLE_NAME!,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `${PENDING_EVENTS_PARTITION_PREFIX}${shard}` },
        }),
      );
      ids.push(...Items.map((item) => (item.event as { eventId: string }).eventId));
    }
    return ids;
  } finally {
    client.destroy();
  }
}

describe('SQS failing while tokens are redeemed, revoked and resent', () => {
  const orgId = uniqueOrg('tokenevents');
  let token: string;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const answers: TimedResponse[] = [];
  const expected: Array<{ type: string; tokenId: string }> = [];
  let keptDuringOutage: string[] = [];

  beforeAll(async () => {
    token = await tokenFor(orgId);
    receiver = await startWebhookReceiver();
    const endpoint = await callApi('POST', '/v1/webhooks', {
      token,
      body: { url: receiver.url, events: ['onboarding_token.used', 'onboarding_token.revoked'] },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const issue = async (label: string) => {
      const created = await callApi('POST', '/v1/onboarding-token', { token, body: person(email(label)) });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body as { tokenId: string; onboarding_token: string };
    };
    const [toRedeem, toRevoke, toResend] = [await issue('redeem'), await issue('revoke'), await issue('resend')];

    await fault('sqs', 'stall');
    try {
      answers.push(
        ...(await Promise.all([
          timed(
            'redeem, SQS stalled',
            callApi('POST', '/v1/onboarding-token/redeem', {
              token,
              body: { onboarding_token: toRedeem.onboarding_token },
            }),
          ),
          timed('revoke, SQS stalled', callApi('DELETE', `/v1/onboarding-tokens/${toRevoke.tokenId}`, { token })),
        ])),
      );
      const stalled = await fault('sqs', 'http-503');
      expect(stalled.stalledConnections, 'the functions reached the stalled SQS').toBeGreaterThan(0);
      answers.push(
        await timed(
          'resend, SQS failing',
          callApi('POST', `/v1/onboarding-tokens/${toResend.tokenId}/resend`, { token }),
        ),
      );
      keptDuringOutage = await pendingEventIds();
    } finally {
      await fault('sqs', 'pass');
    }
    expected.push(
      { type: 'onboarding_token.used', tokenId: toRedeem.tokenId },
      { type: 'onboarding_token.revoked', tokenId: toRevoke.tokenId },
      { type: 'onboarding_token.revoked', tokenId: toResend.tokenId },
    );
  }, 60_000);

  afterAll(async () => {
    await fault('sqs', 'pass');
    await receiver?.close();
  });

  it('answers each change with its success, in time, and keeps its event as pending', () => {
    for (const answer of answers) expect(answer.elapsedMs, answer.label).toBeLessThan(FUNCTION_TIMEOUT_MS);
    expect(answers.map((answer) => [answer.label, answer.status])).toEqual([
      ['redeem, SQS stalled', 200],
      ['revoke, SQS stalled', 204],
      ['resend, SQS failing', 201],
    ]);
    expect(keptDuringOutage).toEqual(
      expect.arrayContaining(expected.map(({ type, tokenId }) => eventIdFor(type, tokenId))),
    );
  });

  it('delivers each kept event once SQS is back, once, with its state change’s event id', async () => {
    const deadline = Date.now() + 30_000;
    const arrived = () =>
      expected.every(({ type, tokenId }) =>
        receivedEvents(receiver).some((event) => event.type === type && event.subject === tokenId),
      );
    while (!arrived() && Date.now() < deadline) await sleep(200);
    await sleep(1_500); // time for a duplicate to show up, had one been sent
    const events = receivedEvents(receiver);
    for (const { type, tokenId } of expected) {
      const matching = events.filter((event) => event.subject === tokenId);
      expect(
        matching.map((event) => event.type),
        tokenId,
      ).toEqual([type]);
    }
    expect(events).toHaveLength(expected.length);
    const pendingIds = await pendingEventIds();
    for (const { type, tokenId } of expected) expect(pendingIds).not.toContain(eventIdFor(type, tokenId));
  }, 45_000);
});
