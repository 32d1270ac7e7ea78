import * as v from 'valibot';
import { WEBHOOK_EVENT_TYPES } from '#shared/domain/webhooks/webhook-endpoint.ts';

/** POST /v1/webhooks body. Whether the URL may be reached is the SSRF guard's call (400 `isIn` on `url`). */
export const webhookEndpointRequestSchema = v.object({
  url: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(2048)),
  events: v.pipe(v.array(v.picklist(WEBHOOK_EVENT_TYPES)), v.minLength(1), v.maxLength(WEBHOOK_EVENT_TYPES.length)),
});

/** GET /v1/webhooks/{id}/deliveries query string. */
export const webhookDeliveryListQuerySchema = v.object({
  limit: v.optional(
    v.pipe(v.string(), v.transform(Number), v.number(), v.integer(), v.minValue(1), v.maxValue(100)),
    '25',
  ),
  cursor: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(2048))),
});
