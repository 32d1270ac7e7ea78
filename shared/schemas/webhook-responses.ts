import * as v from 'valibot';
import { WEBHOOK_EVENT_TYPES } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { cursorPage, instant } from './response-members.ts';

const endpointMembers = {
  id: v.pipe(v.string(), v.uuid()),
  url: v.pipe(v.string(), v.description('Where messages are POSTed.')),
  events: v.pipe(v.array(v.picklist(WEBHOOK_EVENT_TYPES)), v.minLength(1)),
  createdAt: instant('When the endpoint was registered.'),
};

/** An endpoint as every listing shows it: never its secret. */
export const webhookEndpointSchema = v.object({
  ...endpointMembers,
  disabled: v.pipe(
    v.boolean(),
    v.description('True once every message failed for 5 days; a disabled endpoint gets no messages.'),
  ),
});

/** 201 of POST /v1/webhooks: the only answer that carries the secret. */
export const webhookEndpointCreatedSchema = v.object({
  ...endpointMembers,
  disabled: v.literal(false),
  secret: v.pipe(
    v.string(),
    v.regex(/^whsec_[A-Za-z0-9+/]{43}=$/),
    v.description(
      'The Standard Webhooks signing secret (`whsec_` + base64 of 32 random bytes). Shown here only; the service stores it encrypted.',
    ),
    v.metadata({ readOnly: true }),
  ),
});

/** 200 of GET /v1/webhooks. */
export const webhookEndpointListSchema = v.object({
  results: v.pipe(v.array(webhookEndpointSchema), v.maxLength(10)),
});

/** 202 of POST /v1/webhooks/{id}/test. */
export const webhookTestQueuedSchema = v.object({
  eventId: v.pipe(v.string(), v.description('The queued `webhook.test` event.')),
});

/** One entry of an endpoint's delivery log. */
export const webhookDeliverySchema = v.object({
  messageId: v.pipe(v.string(), v.description('The `webhook-id` header of every attempt of this message.')),
  type: v.picklist([...WEBHOOK_EVENT_TYPES, 'webhook.test']),
  status: v.pipe(
    v.picklist(['pending', 'delivered', 'failed']),
    v.description('pending until a 2XX (delivered) or the last retry failed (failed).'),
  ),
  attempts: v.pipe(v.number(), v.integer(), v.minValue(0)),
  lastResponseStatus: v.pipe(
    v.nullable(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599))),
    v.description('The receiver’s last HTTP status; null when it gave none (timeout, refused).'),
  ),
  createdAt: instant('When the event happened.'),
  lastAttemptAt: v.nullable(v.pipe(v.string(), v.isoTimestamp())),
  nextAttemptAt: v.pipe(
    v.nullable(v.pipe(v.string(), v.isoTimestamp())),
    v.description('When a pending message is retried.'),
  ),
});

/** 200 of GET /v1/webhooks/{id}/deliveries. */
export const webhookDeliveryPageSchema = cursorPage(webhookDeliverySchema);

export type WebhookEndpointBody = v.InferOutput<typeof webhookEndpointSchema>;
export type WebhookEndpointCreatedBody = v.InferOutput<typeof webhookEndpointCreatedSchema>;
export type WebhookEndpointListBody = v.InferOutput<typeof webhookEndpointListSchema>;
export type WebhookTestQueuedBody = v.InferOutput<typeof webhookTestQueuedSchema>;
export type WebhookDeliveryBody = v.InferOutput<typeof webhookDeliverySchema>;
export type WebhookDeliveryPageBody = v.InferOutput<typeof webhookDeliveryPageSchema>;
