import type { SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import type { DeliveryMessage } from '#shared/domain/webhooks/ports.ts';
import type { WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';

/**
 * The webhook queue's two kinds of message: an event to fan out, and one delivery attempt.
 * The delivery function's timeout leaves room for one 15 s attempt per record (records of a
 * batch run in parallel) plus the log writes.
 */
export const WEBHOOK_DELIVERY_TIMEOUT_SECONDS = 30;
/** A record that keeps failing (its fan-out or log write, never its receiver's answer) goes to the DLQ after this. */
export const WEBHOOK_MAX_RECEIVES = 5;

const eventSchema = v.object({
  eventId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  orgId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  type: v.picklist([
    'report.completed',
    'report.failed',
    'onboarding_token.used',
    'onboarding_token.revoked',
    'webhook.test',
  ]),
  timestamp: v.pipe(v.string(), v.isoTimestamp()),
  data: v.record(v.string(), v.unknown()),
  endpointId: v.optional(v.string()),
});

const messageSchema = v.variant('kind', [
  v.object({ kind: v.literal('event'), event: eventSchema }),
  v.object({
    kind: v.literal('delivery'),
    orgId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
    endpointId: v.string(),
    messageId: v.string(),
    createdAt: v.string(),
    attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
    notBefore: v.string(),
    event: eventSchema,
  }),
]);

export type WebhookQueueMessage = { kind: 'event'; event: WebhookEvent } | DeliveryMessage;

/** The message a record carries, or undefined for a body that is not one of ours. */
export function webhookQueueMessageFrom(record: SQSRecord): WebhookQueueMessage | undefined {
  try {
    const parsed = v.safeParse(messageSchema, JSON.parse(record.body));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}
