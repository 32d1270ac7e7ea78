import type {
  CreatedWebhookEndpoint,
  QueuedWebhookTest,
  WebhookDeliveryListing,
} from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import type { WebhookDelivery, WebhookEndpoint } from '#shared/domain/webhooks/webhook-endpoint.ts';
import type {
  WebhookDeliveryBody,
  WebhookDeliveryPageBody,
  WebhookEndpointBody,
  WebhookEndpointCreatedBody,
  WebhookEndpointListBody,
  WebhookTestQueuedBody,
} from '#shared/schemas/webhook-responses.ts';

/** An endpoint as every listing shows it: never its secret. */
export function webhookEndpointBody(endpoint: WebhookEndpoint): WebhookEndpointBody {
  return {
    id: endpoint.endpointId,
    url: endpoint.url,
    events: endpoint.events,
    createdAt: endpoint.createdAt,
    disabled: endpoint.disabled,
  };
}

/** 201 of `POST /v1/webhooks`: the only answer that carries the signing secret. */
export function webhookEndpointCreatedBody(created: CreatedWebhookEndpoint): WebhookEndpointCreatedBody {
  return { ...webhookEndpointBody(created.endpoint), disabled: false, secret: created.secret };
}

export function webhookEndpointListBody(endpoints: readonly WebhookEndpoint[]): WebhookEndpointListBody {
  return { results: endpoints.map(webhookEndpointBody) };
}

export function webhookTestQueuedBody(queued: QueuedWebhookTest): WebhookTestQueuedBody {
  return { eventId: queued.eventId };
}

export function webhookDeliveryBody(delivery: WebhookDelivery): WebhookDeliveryBody {
  return {
    messageId: delivery.messageId,
    type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    lastResponseStatus: delivery.lastResponseStatus ?? null,
    createdAt: delivery.createdAt,
    lastAttemptAt: delivery.lastAttemptAt ?? null,
    nextAttemptAt: delivery.nextAttemptAt ?? null,
  };
}

export function webhookDeliveryPageBody(listing: WebhookDeliveryListing): WebhookDeliveryPageBody {
  return { results: listing.deliveries.map(webhookDeliveryBody), nextCursor: listing.nextCursor };
}
