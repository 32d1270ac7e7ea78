import type { Clock } from '#shared/domain/clock.ts';
import { InvalidInputError, NotFoundError } from '#shared/domain/errors.ts';
import type { HostResolver, SecretSealer, WebhookDeliveryLog, WebhookEndpointStore, WebhookQueue } from './ports.ts';
import { UnsafeWebhookUrlError, vetWebhookUrl, type UrlPolicy } from './ssrf-guard.ts';
import {
  eventIdFor,
  MAX_ENDPOINTS_PER_ORGANIZATION,
  newEndpointId,
  newWebhookSecret,
  type SubscribableEventType,
  type WebhookDelivery,
  type WebhookEndpoint,
} from './webhook-endpoint.ts';

export interface WebhookManagementDeps {
  endpoints: WebhookEndpointStore;
  clock: Clock;
}

const notFound = () => new NotFoundError('webhook endpoint not found');

/** A new endpoint with its signing secret in the clear: the one time it is ever answered. */
export interface CreatedWebhookEndpoint {
  endpoint: WebhookEndpoint;
  secret: string;
}

export interface QueuedWebhookTest {
  eventId: string;
}

/** One page of an endpoint's delivery log, newest first; `nextCursor` is null on the last page. */
export interface WebhookDeliveryListing {
  deliveries: WebhookDelivery[];
  nextCursor: string | null;
}

/**
 * Primary course: check the URL against the SSRF rules (resolving its host), generate the
 * secret, store the endpoint with the secret sealed, and answer the secret this once.
 */
export function createWebhookEndpoint(
  deps: WebhookManagementDeps & { sealer: SecretSealer; resolver: HostResolver; policy: UrlPolicy },
) {
  return async (input: {
    orgId: string;
    url: string;
    events: SubscribableEventType[];
  }): Promise<CreatedWebhookEndpoint> => {
    try {
      await vetWebhookUrl(input.url, deps.policy, deps.resolver);
    } catch (error) {
      if (!(error instanceof UnsafeWebhookUrlError)) throw error;
      throw new InvalidInputError([{ field: 'url', code: 'isIn', hint: error.message }]);
    }
    const endpointId = newEndpointId();
    const secret = newWebhookSecret();
    const endpoint: WebhookEndpoint = {
      orgId: input.orgId,
      endpointId,
      url: input.url,
      events: [...new Set(input.events)],
      sealedSecret: await deps.sealer.seal(secret, { orgId: input.orgId, endpointId }),
      createdAt: deps.clock.now().toISOString(),
      disabled: false,
    };
    await deps.endpoints.create(endpoint, MAX_ENDPOINTS_PER_ORGANIZATION);
    return { endpoint, secret };
  };
}

export function listWebhookEndpoints(deps: WebhookManagementDeps) {
  return (input: { orgId: string }): Promise<WebhookEndpoint[]> => deps.endpoints.list(input.orgId);
}

export function deleteWebhookEndpoint(deps: WebhookManagementDeps) {
  return async (input: { orgId: string; endpointId: string }): Promise<void> => {
    if (!(await deps.endpoints.delete(input.orgId, input.endpointId))) throw notFound();
  };
}

/** Queues a `webhook.test` event for this endpoint alone (even a disabled one is not re-enabled by it). */
export function testWebhookEndpoint(deps: WebhookManagementDeps & { queue: WebhookQueue }) {
  return async (input: { orgId: string; endpointId: string; requestId: string }): Promise<QueuedWebhookTest> => {
    const endpoint = await deps.endpoints.get(input.orgId, input.endpointId);
    if (!endpoint) throw notFound();
    const timestamp = deps.clock.now().toISOString();
    const eventId = eventIdFor('webhook.test', endpoint.endpointId, input.requestId);
    await deps.queue.publishEvent({
      eventId,
      orgId: input.orgId,
      type: 'webhook.test',
      timestamp,
      endpointId: endpoint.endpointId,
      data: { endpointId: endpoint.endpointId, url: endpoint.url },
    });
    return { eventId };
  };
}

export function listWebhookDeliveries(deps: WebhookManagementDeps & { deliveries: WebhookDeliveryLog }) {
  return async (input: {
    orgId: string;
    endpointId: string;
    limit: number;
    cursor: string | undefined;
  }): Promise<WebhookDeliveryListing> => {
    if (!(await deps.endpoints.get(input.orgId, input.endpointId))) throw notFound();
    const page = await deps.deliveries.list(input.orgId, input.endpointId, {
      limit: input.limit,
      cursor: input.cursor,
    });
    return { deliveries: page.records, nextCursor: page.nextCursor ?? null };
  };
}
