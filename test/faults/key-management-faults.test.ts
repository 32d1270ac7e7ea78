import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { startWebhookReceiver } from '#test/support/webhook-receiver.ts';
import {
  expectContractAnswers,
  fault,
  receivedEvents,
  sleep,
  timed,
  type TimedResponse,
  type WebhookReceiver,
} from './fault-support.ts';

/**
 * KMS (the fault tier's emulator, test/support/kms-emulator.ts, behind a fault proxy) black-holed,
 * then refusing connections. Registering an endpoint seals its secret with KMS, so it is a 201 or
 * the contract's 503 leaving no endpoint; a delivery opens the secret with KMS, so an event
 * emitted meanwhile is delivered once KMS is back, once, with the same webhook-id the delivery
 * log shows.
 */

/** The webhook queue's visibility timeout (the delivery function's 30 s + 5 s) and a delivery. */
const REDELIVERY_MS = 50_000;

describe('KMS stalled, then refusing connections, while endpoints are registered and events delivered', () => {
  const orgId = uniqueOrg('kmsfault');
  let token: string;
  let receiver: WebhookReceiver;
  let endpointId: string;
  const answers: TimedResponse[] = [];

  const register = (label: string) =>
    timed(label, callApi('POST', '/v1/webhooks', { token, body: { url: receiver.url, events: ['report.completed'] } }));

  beforeAll(async () => {
    token = await tokenFor(orgId);
    receiver = await startWebhookReceiver();
    const registered = await register('register before the faults');
    expect(registered.status).toBe(201);
    endpointId = registered.body.id as string;

    await fault('kms', 'stall');
    try {
      answers.push(
        ...(await Promise.all([
          register('register, KMS stalled'),
          timed('test event, KMS stalled', callApi('POST', `/v1/webhooks/${endpointId}/test`, { token, body: {} })),
          timed('list endpoints, KMS stalled', callApi('GET', '/v1/webhooks', { token })),
        ])),
      );
      // The delivery attempt of the test event has met the stall by now (2 s per KMS attempt, 3 attempts).
      await sleep(3_000);
      const stalled = await fault('kms', 'refuse');
      expect(stalled.stalledConnections, 'the functions reached the stalled KMS').toBeGreaterThan(0);
      answers.push(await register('register, KMS refusing'));
    } finally {
      await fault('kms', 'pass');
    }
  }, 60_000);

  afterAll(async () => {
    await fault('kms', 'pass');
    await receiver?.close();
  });

  it('answers each registration with the contract’s 503 in time; the test event and the list need no key', () => {
    const registrations = answers.filter((answer) => answer.label.startsWith('register'));
    expectContractAnswers(registrations, 201);
    expect(registrations.map((answer) => answer.status)).toEqual([503, 503]);
    const others = answers.filter((answer) => !answer.label.startsWith('register'));
    expect(others.map((answer) => [answer.label, answer.status])).toEqual([
      ['test event, KMS stalled', 202],
      ['list endpoints, KMS stalled', 200],
    ]);
  });

  it('left no endpoint of a 503 behind', async () => {
    const listed = await callApi('GET', '/v1/webhooks', { token });
    expect((listed.body.results as Array<{ id: string }>).map((endpoint) => endpoint.id)).toEqual([endpointId]);
  });

  it(
    'delivers the event emitted while KMS was down once it is back, once, under the logged webhook-id',
    async () => {
      await receiver.waitFor(1, REDELIVERY_MS);
      await sleep(1_500);
      const events = receivedEvents(receiver);
      expect(events.map((event) => event.type)).toEqual(['webhook.test']);
      const deliveries = await callApi('GET', `/v1/webhooks/${endpointId}/deliveries`, { token });
      expect(deliveries.body.results).toEqual([
        expect.objectContaining({ messageId: events[0]!.webhookId, type: 'webhook.test', status: 'delivered' }),
      ]);
    },
    REDELIVERY_MS + 10_000,
  );
});
