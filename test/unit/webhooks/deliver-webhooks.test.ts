import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { attemptWebhookDelivery, fanOutWebhookEvent } from '#shared/domain/webhooks/deliver-webhooks.ts';
import type { DeliveryMessage } from '#shared/domain/webhooks/ports.ts';
import { AWS_RETRY_DELAYS_SECONDS } from '#shared/domain/webhooks/retry-schedule.ts';
import type { WebhookEndpoint, WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { webhookEndpoint, webhookEvent } from '#test/support/fixtures/webhooks.ts';
import { FakeClock } from '#test/unit/reports/fakes.ts';
import {
  fakeSealer,
  fixedResolver,
  InMemoryDeliveryLog,
  InMemoryEndpoints,
  RecordingQueue,
  ScriptedSender,
} from './fakes.ts';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const resolver = fixedResolver({ 'hooks.example.com': ['93.184.216.34'], 'other.example.com': ['93.184.216.35'] });

async function endpoint(
  endpoints: InMemoryEndpoints,
  overrides: Partial<WebhookEndpoint> & Pick<WebhookEndpoint, 'endpointId' | 'orgId'>,
): Promise<WebhookEndpoint> {
  const created = webhookEndpoint({
    sealedSecret: await fakeSealer.seal(SECRET, overrides),
    createdAt: '2026-03-01T00:00:00.000Z',
    ...overrides,
  });
  await endpoints.create(created, 10);
  return created;
}

const event = (overrides: Partial<WebhookEvent> = {}): WebhookEvent =>
  webhookEvent({ orgId: 'org-a', timestamp: '2026-03-01T11:59:00.000Z', ...overrides });

function setup(answers?: ConstructorParameters<typeof ScriptedSender>[0]) {
  const deps = {
    endpoints: new InMemoryEndpoints(),
    deliveries: new InMemoryDeliveryLog(),
    queue: new RecordingQueue(),
    clock: new FakeClock(),
  };
  const sender = new ScriptedSender(answers);
  const attempt = attemptWebhookDelivery({
    ...deps,
    sealer: fakeSealer,
    resolver,
    sender,
    policy: { localMode: false },
    schedule: AWS_RETRY_DELAYS_SECONDS,
  });
  return { ...deps, sender, attempt, fanOut: fanOutWebhookEvent(deps) };
}

describe('fan-out', () => {
  it('queues one delivery per subscribed endpoint of the event’s organization only', async () => {
    const { endpoints, fanOut, queue, deliveries } = setup();
    await endpoint(endpoints, { endpointId: 'ep-a1', orgId: 'org-a' });
    await endpoint(endpoints, { endpointId: 'ep-a2', orgId: 'org-a', events: ['report.failed'] });
    await endpoint(endpoints, { endpointId: 'ep-a3', orgId: 'org-a', disabled: true });
    await endpoint(endpoints, { endpointId: 'ep-b1', orgId: 'org-b' });

    expect(await fanOut(event())).toBe(1);
    expect(queue.deliveries.map((d) => d.message.endpointId)).toEqual(['ep-a1']);
    expect(queue.deliveries[0]).toMatchObject({ delaySeconds: 0, message: { attempt: 1, orgId: 'org-a' } });
    expect([...deliveries.items.values()]).toEqual([
      expect.objectContaining({ endpointId: 'ep-a1', status: 'pending', attempts: 0, type: 'report.completed' }),
    ]);
  });

  it('gives the same message id when the same event is fanned out twice', async () => {
    const { endpoints, fanOut, queue, deliveries } = setup();
    await endpoint(endpoints, { endpointId: 'ep-a1', orgId: 'org-a' });
    await fanOut(event());
    await fanOut(event());
    expect(new Set(queue.deliveries.map((d) => d.message.messageId)).size).toBe(1);
    expect(deliveries.items.size).toBe(1);
  });

  it('sends a webhook.test to its endpoint alone', async () => {
    const { endpoints, fanOut, queue } = setup();
    await endpoint(endpoints, { endpointId: 'ep-a1', orgId: 'org-a' });
    await endpoint(endpoints, { endpointId: 'ep-a2', orgId: 'org-a' });
    await fanOut(event({ type: 'webhook.test', endpointId: 'ep-a2' }));
    expect(queue.deliveries.map((d) => d.message.endpointId)).toEqual(['ep-a2']);
  });
});

describe('a delivery attempt', () => {
  async function firstAttempt(ctx: ReturnType<typeof setup>): Promise<DeliveryMessage> {
    await endpoint(ctx.endpoints, { endpointId: 'ep-a1', orgId: 'org-a' });
    await ctx.fanOut(event());
    return ctx.queue.deliveries.shift()!.message;
  }

  it('POSTs the Standard Webhooks message to the checked address, verifiable with standardwebhooks', async () => {
    const ctx = setup();
    const message = await firstAttempt(ctx);
    expect(await ctx.attempt(message)).toEqual({ outcome: 'delivered', status: 204 });

    const [request] = ctx.sender.requests;
    expect(request!.target.address).toBe('93.184.216.34');
    expect(request!.headers['webhook-id']).toBe(message.messageId);
    // The library checks the timestamp against the real clock: verify as of the fake one.
    vi.useFakeTimers({ now: new FakeClock().now(), toFake: ['Date'] });
    const payload = new Webhook(SECRET).verify(request!.body, request!.headers);
    vi.useRealTimers();
    expect(payload).toEqual({
      type: 'report.completed',
      timestamp: '2026-03-01T11:59:00.000Z',
      livemode: true,
      data: { jobId: 'job-1', status: 'COMPLETE' },
    });
    expect(await ctx.deliveries.get(message)).toMatchObject({
      status: 'delivered',
      attempts: 1,
      lastResponseStatus: 204,
    });
  });

  it('says livemode false in a message of the sandbox’s, derived from the tenant key the event belongs to', async () => {
    const ctx = setup();
    await endpoint(ctx.endpoints, { endpointId: 'ep-s1', orgId: 'org-a~sandbox' });
    await ctx.fanOut(event({ orgId: 'org-a~sandbox' }));
    const message = ctx.queue.deliveries.shift()!.message;

    await ctx.attempt(message);

    expect(JSON.parse(ctx.sender.requests[0]!.body)).toMatchObject({ type: 'report.completed', livemode: false });
  });

  it('retries a failure with the same webhook-id on the schedule, and fails the message after the last retry', async () => {
    const ctx = setup([{ status: 500 }]);
    let message = await firstAttempt(ctx);
    const delays: number[] = [];
    for (let attempt = 1; attempt <= AWS_RETRY_DELAYS_SECONDS.length; attempt++) {
      const result = await ctx.attempt(message);
      expect(result.outcome).toBe('retrying');
      const next = ctx.queue.deliveries.shift()!;
      expect(next.message).toMatchObject({ messageId: message.messageId, attempt: attempt + 1 });
      delays.push((Date.parse(next.message.notBefore) - ctx.clock.now().getTime()) / 1000);
      expect(next.delaySeconds).toBe(Math.min(900, AWS_RETRY_DELAYS_SECONDS[attempt - 1]!));
      ctx.clock.advance(Date.parse(next.message.notBefore) - ctx.clock.now().getTime());
      message = next.message;
    }
    expect(delays).toEqual([...AWS_RETRY_DELAYS_SECONDS]);
    expect(await ctx.attempt(message)).toMatchObject({ outcome: 'failed', status: 500 });
    expect(ctx.queue.deliveries).toEqual([]);
    expect(await ctx.deliveries.get(message)).toMatchObject({ status: 'failed', attempts: 8, lastResponseStatus: 500 });
    expect(new Set(ctx.sender.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  it('chains queue delays longer than 15 minutes: an early message goes back for the rest of its wait', async () => {
    const ctx = setup();
    const message = await firstAttempt(ctx);
    const early = { ...message, attempt: 4, notBefore: new Date(ctx.clock.now().getTime() + 7200_000).toISOString() };
    expect(await ctx.attempt(early)).toEqual({ outcome: 'deferred' });
    expect(ctx.queue.deliveries).toEqual([{ message: early, delaySeconds: 900 }]);
    expect(ctx.sender.requests).toEqual([]);
  });

  it('counts a redirect as a failure', async () => {
    const ctx = setup([{ status: 302 }]);
    const message = await firstAttempt(ctx);
    expect(await ctx.attempt(message)).toMatchObject({ outcome: 'retrying', status: 302 });
    expect(await ctx.deliveries.get(message)).toMatchObject({ status: 'pending', lastResponseStatus: 302 });
  });

  it('checks the address again at delivery: a name that now resolves privately is not contacted', async () => {
    const ctx = setup();
    const message = await firstAttempt(ctx);
    const rebound = attemptWebhookDelivery({
      ...ctx,
      sealer: fakeSealer,
      resolver: fixedResolver({ 'hooks.example.com': ['10.0.0.5'] }),
      sender: ctx.sender,
      policy: { localMode: false },
      schedule: AWS_RETRY_DELAYS_SECONDS,
    });
    expect(await rebound(message)).toMatchObject({ outcome: 'retrying', error: expect.stringContaining('10.0.0.5') });
    expect(ctx.sender.requests).toEqual([]);
  });

  it('disables an endpoint that has had no success for 5 days since its first failure', async () => {
    const ctx = setup([{ error: 'connection refused' }]);
    const message = await firstAttempt(ctx);
    await ctx.attempt(message);
    expect(ctx.endpoints.items.get('ep-a1')!.disabled).toBe(false);
    ctx.clock.advance(5 * 24 * 3600 * 1000);
    const later = ctx.queue.deliveries.shift()!.message;
    expect(await ctx.attempt(later)).toMatchObject({ outcome: 'failed', endpointDisabled: true });
    expect(ctx.endpoints.items.get('ep-a1')).toMatchObject({ disabled: true });
  });

  it('a success clears the failing streak', async () => {
    const ctx = setup([{ status: 503 }, { status: 200 }]);
    const message = await firstAttempt(ctx);
    await ctx.attempt(message);
    expect(ctx.endpoints.items.get('ep-a1')!.failingSince).toBeDefined();
    const retry = ctx.queue.deliveries.shift()!.message;
    ctx.clock.advance(5000);
    expect(await ctx.attempt(retry)).toEqual({ outcome: 'delivered', status: 200 });
    expect(ctx.endpoints.items.get('ep-a1')!.failingSince).toBeUndefined();
  });

  it('skips a duplicate of an attempt already made, and a deleted endpoint', async () => {
    const ctx = setup();
    const message = await firstAttempt(ctx);
    await ctx.attempt(message);
    expect(await ctx.attempt(message)).toEqual({ outcome: 'skipped', reason: 'already-final' });
    await ctx.endpoints.delete('org-a', 'ep-a1');
    await ctx.fanOut(event({ eventId: 'evt_2' }));
    expect(ctx.sender.requests).toHaveLength(1);
  });
});

describe('a delivery attempt whose log write fails', () => {
  it('has already queued its retry, so the message is never left pending without one', async () => {
    const ctx = setup([{ status: 500 }]);
    await endpoint(ctx.endpoints, { endpointId: 'ep-a1', orgId: 'org-a' });
    await ctx.fanOut(event());
    const message = ctx.queue.deliveries.shift()!.message;
    ctx.deliveries.recordAttempt = () => Promise.reject(new Error('database unavailable'));
    await expect(ctx.attempt(message)).rejects.toThrow('database unavailable');
    expect(ctx.queue.deliveries).toEqual([
      expect.objectContaining({ message: expect.objectContaining({ attempt: 2 }) }),
    ]);
  });
});

describe('the two lanes (one organization’s hanging endpoints never hold another’s deliveries)', () => {
  const hanging = { timedOut: true, error: 'no answer within 2000 ms' };

  async function firstAttempt(ctx: ReturnType<typeof setup>): Promise<DeliveryMessage> {
    await endpoint(ctx.endpoints, { endpointId: 'ep-a1', orgId: 'org-a' });
    await ctx.fanOut(event());
    return ctx.queue.deliveries.shift()!.message;
  }

  it('starts every message in the fast lane, grouped by its organization', async () => {
    const ctx = setup();
    const message = await firstAttempt(ctx);
    expect(message).toMatchObject({ lane: 'fast', orgId: 'org-a' });
  });

  it('a fast-lane attempt left unanswered is not counted: the message moves to the slow lane and the endpoint is slow for 10 minutes', async () => {
    const ctx = setup([hanging]);
    const message = await firstAttempt(ctx);

    expect(await ctx.attempt(message)).toEqual({ outcome: 'moved', lane: 'slow', reason: 'no-answer-in-time' });

    expect(ctx.queue.deliveries).toEqual([{ message: { ...message, lane: 'slow', attempt: 1 }, delaySeconds: 0 }]);
    expect(await ctx.deliveries.get(message)).toMatchObject({ status: 'pending', attempts: 0 });
    expect((await ctx.endpoints.get('org-a', 'ep-a1'))!.slowUntil).toBe(
      new Date(ctx.clock.now().getTime() + 10 * 60 * 1000).toISOString(),
    );
  });

  it('later messages of a slow endpoint skip the fast lane: fanned out to the slow lane, or moved there unsent', async () => {
    const ctx = setup([hanging]);
    const message = await firstAttempt(ctx);
    await ctx.attempt(message);
    ctx.queue.deliveries.length = 0;

    await ctx.fanOut(event({ eventId: 'evt_2' }));
    expect(ctx.queue.deliveries[0]!.message.lane).toBe('slow');
    const stillFast = { ...message, messageId: 'msg_other' };
    expect(await ctx.attempt(stillFast)).toEqual({ outcome: 'moved', lane: 'slow', reason: 'endpoint-slow' });
    expect(ctx.sender.requests).toHaveLength(1);
  });

  it('in the slow lane an unanswered attempt counts as a failure with the full 15 s; a quick answer there brings the endpoint back', async () => {
    const ctx = setup([hanging, { status: 204 }]);
    const message = await firstAttempt(ctx);
    await ctx.attempt(message);
    const slow = ctx.queue.deliveries.shift()!.message;

    // The ScriptedSender answers the second request with 204 at once.
    expect(await ctx.attempt(slow)).toEqual({ outcome: 'delivered', status: 204 });
    expect((await ctx.endpoints.get('org-a', 'ep-a1'))!.slowUntil).toBeUndefined();
  });

  it('a slow-lane attempt that times out again is retried in the slow lane, counted', async () => {
    const ctx = setup([hanging]);
    const message = await firstAttempt(ctx);
    await ctx.attempt(message);
    const slow = ctx.queue.deliveries.shift()!.message;

    const result = await ctx.attempt(slow);

    expect(result.outcome).toBe('retrying');
    expect(ctx.queue.deliveries[0]!.message).toMatchObject({ lane: 'slow', attempt: 2 });
    expect(await ctx.deliveries.get(message)).toMatchObject({ attempts: 1, status: 'pending' });
  });
});
