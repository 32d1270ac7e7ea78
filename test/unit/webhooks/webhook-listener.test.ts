import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { fanOutWebhookEvent } from '#shared/domain/webhooks/deliver-webhooks.ts';
import { ConflictError, NotFoundError } from '#shared/domain/errors.ts';
import {
  LISTENER_SETTLE_MS,
  listenerEndpointId,
  openWebhookListener,
  readListenerMessages,
} from '#shared/domain/webhooks/webhook-listener.ts';
import { messageBody } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { webhookEndpoint, webhookEvent } from '#test/support/fixtures/webhooks.ts';
import { FakeClock } from '#test/unit/reports/fakes.ts';
import { fakeSealer, InMemoryDeliveryLog, InMemoryEndpoints, RecordingQueue } from './fakes.ts';

const SANDBOX = 'org-a~sandbox';

function setup() {
  // Now, so a signature it makes verifies (standardwebhooks checks the timestamp against the real clock).
  const clock = new FakeClock(new Date());
  const endpoints = new InMemoryEndpoints();
  const deliveries = new InMemoryDeliveryLog();
  const queue = new RecordingQueue();
  const slept: number[] = [];
  const sleep = async (ms: number) => {
    slept.push(ms);
    clock.advance(ms);
  };
  return {
    clock,
    endpoints,
    deliveries,
    queue,
    slept,
    open: openWebhookListener({ endpoints, sealer: fakeSealer, clock }),
    read: readListenerMessages({ endpoints, feed: deliveries, sealer: fakeSealer, clock, sleep }),
    fanOut: fanOutWebhookEvent({ endpoints, deliveries, queue, clock }),
  };
}

const sanctionsCompleted = webhookEvent({
  eventId: 'evt_sanctions',
  orgId: SANDBOX,
  data: { jobId: 'job-1', userId: 'sbx-sanctions', status: 'COMPLETE' },
});

describe('the sandbox webhook listener', () => {
  it('is one endpoint per tenant with a stable secret, subscribed to every event type', async () => {
    const { open, endpoints } = setup();
    const first = await open({ orgId: SANDBOX });
    const again = await open({ orgId: SANDBOX });
    expect(first.created).toBe(true);
    expect(again).toMatchObject({ created: false, secret: first.secret });
    expect(first.secret).toMatch(/^whsec_/);
    expect(first.endpoint).toMatchObject({ endpointId: listenerEndpointId(SANDBOX), kind: 'listener' });
    expect(first.endpoint.events).toEqual([
      'report.completed',
      'report.failed',
      'onboarding_token.used',
      'onboarding_token.revoked',
    ]);
    expect(await endpoints.list(SANDBOX)).toHaveLength(1);
    expect(listenerEndpointId(SANDBOX)).not.toBe(listenerEndpointId('org-b~sandbox'));
    expect(listenerEndpointId(SANDBOX)).toMatch(/^[\da-f]{8}(-[\da-f]{4}){3}-[\da-f]{12}$/);
  });

  it('counts as one of the tenant’s endpoints: a tenant with ten already gets ConflictError', async () => {
    const { open, endpoints } = setup();
    for (let n = 0; n < 10; n++) await endpoints.create(webhookEndpoint({ orgId: SANDBOX, endpointId: `ep-${n}` }), 10);
    await expect(open({ orgId: SANDBOX })).rejects.toThrow(ConflictError);
  });

  it('logs a fanned-out message with its body and queues no delivery attempt', async () => {
    const { open, fanOut, queue, deliveries } = setup();
    const { endpoint } = await open({ orgId: SANDBOX });
    expect(await fanOut(sanctionsCompleted)).toBe(1);
    expect(queue.deliveries).toEqual([]);
    expect([...deliveries.items.values()]).toEqual([
      expect.objectContaining({
        endpointId: endpoint.endpointId,
        status: 'pending',
        body: messageBody(sanctionsCompleted),
      }),
    ]);
  });

  it('answers a first read at once with a cursor at now, then the messages after it, signed as a delivery is', async () => {
    const { open, read, fanOut, clock, slept } = setup();
    const { secret } = await open({ orgId: SANDBOX });
    await fanOut(webhookEvent({ eventId: 'evt_before', orgId: SANDBOX }));
    clock.advance(LISTENER_SETTLE_MS + 1);
    const start = await read({ orgId: SANDBOX, cursor: undefined, waitSeconds: 20 });
    expect(start.messages).toEqual([]);
    expect(slept).toEqual([]);

    await fanOut(sanctionsCompleted);
    const page = await read({ orgId: SANDBOX, cursor: start.cursor, waitSeconds: 20 });
    expect(page.messages).toHaveLength(1);
    const [message] = page.messages;
    expect(message!.body).toBe(messageBody(sanctionsCompleted));
    expect(JSON.parse(message!.body)).toMatchObject({ type: 'report.completed', livemode: false });
    expect(message!.headers['webhook-id']).toBe(message!.messageId);
    expect(new Webhook(secret).verify(message!.body, message!.headers)).toMatchObject({ type: 'report.completed' });
    // Not earlier than it had settled: the read waited for it.
    expect(slept.length).toBeGreaterThan(0);

    const next = await read({ orgId: SANDBOX, cursor: page.cursor, waitSeconds: 3 });
    expect(next.messages).toEqual([]);
  });

  it('waits up to waitSeconds (at most 20) for a message, looking every second', async () => {
    const { open, read, slept } = setup();
    await open({ orgId: SANDBOX });
    const { cursor } = await read({ orgId: SANDBOX, cursor: undefined, waitSeconds: 0 });
    await read({ orgId: SANDBOX, cursor, waitSeconds: 3 });
    expect(slept).toEqual([1000, 1000, 1000]);
    slept.length = 0;
    await read({ orgId: SANDBOX, cursor, waitSeconds: 600 });
    expect(slept).toHaveLength(20);
  });

  it('is 404 before the listener is opened, and reads only its own tenant’s messages', async () => {
    const { open, read, fanOut, clock } = setup();
    await expect(read({ orgId: SANDBOX, cursor: undefined, waitSeconds: 0 })).rejects.toThrow(NotFoundError);
    await open({ orgId: SANDBOX });
    await open({ orgId: 'org-b~sandbox' });
    const { cursor } = await read({ orgId: SANDBOX, cursor: undefined, waitSeconds: 0 });
    await fanOut(webhookEvent({ eventId: 'evt_b', orgId: 'org-b~sandbox' }));
    clock.advance(LISTENER_SETTLE_MS + 1);
    expect((await read({ orgId: SANDBOX, cursor, waitSeconds: 0 })).messages).toEqual([]);
  });
});
