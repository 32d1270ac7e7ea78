import * as v from 'valibot';
import { LISTENER_MAX_WAIT_SECONDS } from '#shared/domain/webhooks/webhook-listener.ts';
import { WEBHOOK_EVENT_TYPES } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { instant } from './response-members.ts';

/** GET /v1/sandbox/webhook-messages query string. */
export const sandboxWebhookMessagesQuerySchema = v.object({
  after: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(2048))),
  wait: v.optional(
    v.pipe(
      v.string(),
      v.transform(Number),
      v.number(),
      v.integer(),
      v.minValue(0),
      v.maxValue(LISTENER_MAX_WAIT_SECONDS),
    ),
    '0',
  ),
});

/** 200 of POST /v1/sandbox/webhook-listener. */
export const sandboxWebhookListenerSchema = v.object({
  id: v.pipe(
    v.string(),
    v.uuid(),
    v.description('The listener’s endpoint id: the same for the sandbox until it is deleted.'),
  ),
  events: v.pipe(v.array(v.picklist(WEBHOOK_EVENT_TYPES)), v.description('Every event type.')),
  createdAt: instant('When the listener was first opened.'),
  secret: v.pipe(
    v.string(),
    v.regex(/^whsec_[A-Za-z0-9+/]{43}=$/),
    v.description(
      'The secret the feed’s messages are signed with (Standard Webhooks): configure the local receiver with it. The same on every call until the listener is deleted (`DELETE /v1/webhooks/{id}`) or the sandbox wiped.',
    ),
    v.metadata({ readOnly: true }),
  ),
});

const headerValue = (description: string) => v.pipe(v.string(), v.description(description));

/** One message of the feed: what a delivery would POST. */
export const sandboxWebhookMessageSchema = v.object({
  messageId: v.pipe(v.string(), v.description('The message’s `webhook-id`.')),
  type: v.picklist([...WEBHOOK_EVENT_TYPES, 'webhook.test']),
  body: v.pipe(
    v.string(),
    v.description(
      'The request body, byte for byte: `{type, timestamp, livemode, data}` as JSON. Forward it unchanged.',
    ),
  ),
  headers: v.pipe(
    v.object({
      'content-type': headerValue('`application/json`.'),
      'webhook-id': headerValue('As `messageId`.'),
      'webhook-timestamp': headerValue('Seconds since the epoch when this answer was signed.'),
      'webhook-signature': headerValue(
        '`v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` with the listener’s secret.',
      ),
    }),
    v.description('The headers a delivery would carry, signed now with the listener’s secret.'),
  ),
});

/** 200 of GET /v1/sandbox/webhook-messages. */
export const sandboxWebhookMessagesSchema = v.object({
  results: v.pipe(v.array(sandboxWebhookMessageSchema), v.maxLength(100), v.description('Oldest first.')),
  cursor: v.pipe(v.string(), v.description('Pass as `after` to read the messages after these.')),
});

export type SandboxWebhookListenerBody = v.InferOutput<typeof sandboxWebhookListenerSchema>;
export type SandboxWebhookMessagesBody = v.InferOutput<typeof sandboxWebhookMessagesSchema>;
