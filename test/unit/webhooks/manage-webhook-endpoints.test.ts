import { describe, expect, it } from 'vitest';
import { InvalidInputError, NotFoundError } from '#shared/domain/errors.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  testWebhookEndpoint,
} from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import { webhookEndpointCreatedBody, webhookEndpointListBody } from '#shared/presenters/webhook-bodies.ts';
import { FakeClock } from '#test/unit/reports/fakes.ts';
import { fakeSealer, fixedResolver, InMemoryDeliveryLog, InMemoryEndpoints, RecordingQueue } from './fakes.ts';

const resolver = fixedResolver({
  'hooks.example.com': ['93.184.216.34'],
  'sneaky.example.com': ['192.168.10.1'],
});

function setup(localMode = false) {
  const endpoints = new InMemoryEndpoints();
  const clock = new FakeClock();
  const register = createWebhookEndpoint({ endpoints, sealer: fakeSealer, resolver, policy: { localMode }, clock });
  const create = async (input: Parameters<typeof register>[0]) => webhookEndpointCreatedBody(await register(input));
  return { endpoints, clock, create };
}

describe('registering a webhook endpoint (AWS-mode configuration)', () => {
  it.each([
    'http://10.0.0.1/',
    'http://169.254.169.254/',
    'http://[::ffff:127.0.0.1]/',
    'https://10.0.0.1/',
    'https://169.254.169.254/',
    'https://[::ffff:127.0.0.1]/',
    'https://sneaky.example.com/hook',
  ])('refuses %s with a validation error on url', async (url) => {
    const { create, endpoints } = setup();
    const error = await create({ orgId: 'org-a', url, events: ['report.completed'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).problems).toEqual([
      { field: 'url', code: 'isIn', hint: expect.stringContaining('url') },
    ]);
    expect(endpoints.items.size).toBe(0);
  });

  it('answers a whsec_ secret once and stores only its sealed form', async () => {
    const { create, endpoints } = setup();
    const created = await create({
      orgId: 'org-a',
      url: 'https://hooks.example.com/in',
      events: ['report.completed', 'report.completed', 'onboarding_token.used'],
    });
    expect(created).toEqual({
      id: expect.any(String),
      url: 'https://hooks.example.com/in',
      events: ['report.completed', 'onboarding_token.used'],
      createdAt: '2026-03-01T12:00:00.000Z',
      disabled: false,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    const stored = endpoints.items.get(created.id)!;
    expect(JSON.stringify(stored)).not.toContain(created.secret);
    await expect(fakeSealer.open(stored.sealedSecret, stored)).resolves.toBe(created.secret);

    const listed = webhookEndpointListBody(
      await listWebhookEndpoints({ endpoints, clock: new FakeClock() })({ orgId: 'org-a' }),
    );
    expect(JSON.stringify(listed)).not.toContain('whsec_');
  });
});

describe('managing endpoints', () => {
  it('never finds another organization’s endpoint (404 on delete, test and deliveries)', async () => {
    const { create, endpoints, clock } = setup();
    const { id } = await create({ orgId: 'org-a', url: 'https://hooks.example.com/', events: ['report.failed'] });
    const queue = new RecordingQueue();
    const deps = { endpoints, clock };
    await expect(deleteWebhookEndpoint(deps)({ orgId: 'org-b', endpointId: id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      testWebhookEndpoint({ ...deps, queue })({ orgId: 'org-b', endpointId: id, requestId: 'r1' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      listWebhookDeliveries({ ...deps, deliveries: new InMemoryDeliveryLog() })({
        orgId: 'org-b',
        endpointId: id,
        limit: 25,
        cursor: undefined,
      }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(queue.events).toEqual([]);
    expect(endpoints.items.size).toBe(1);
  });

  it('queues a webhook.test event addressed to the endpoint alone', async () => {
    const { create, endpoints, clock } = setup();
    const { id } = await create({ orgId: 'org-a', url: 'https://hooks.example.com/', events: ['report.failed'] });
    const queue = new RecordingQueue();
    const answer = await testWebhookEndpoint({ endpoints, clock, queue })({
      orgId: 'org-a',
      endpointId: id,
      requestId: 'r1',
    });
    expect(queue.events).toEqual([
      {
        eventId: answer.eventId,
        orgId: 'org-a',
        type: 'webhook.test',
        timestamp: '2026-03-01T12:00:00.000Z',
        endpointId: id,
        data: { endpointId: id, url: 'https://hooks.example.com/' },
      },
    ]);
  });
});
