import type { SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { queueRecordBody } from '#shared/queue/queue-record-body.ts';
import type { DeliveryMessage } from '#shared/domain/webhooks/ports.ts';
import type { WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT } from '#shared/domain/webhooks/event-types.ts';

/**
 * The webhook queue's two kinds of message: an event to fan out, and one delivery attempt.
 * The delivery function's timeout leaves room for one 15 s attempt per record (records of a
 * batch run in parallel) plus the log writes.
 */
export const WEBHOOK_DELIVERY_TIMEOUT_SECONDS = 30;
/** The republish function's timeout; it hands pending events over in batches until a little before it. */
export const WEBHOOK_REPUBLISH_TIMEOUT_SECONDS = 30;
/** Pending events read and handed over per batch. */
export const WEBHOOK_REPUBLISH_BATCH_SIZE = 100;
/** A record that keeps failing (its fan-out or log write, never its receiver's answer) goes to the DLQ after this. */
export const WEBHOOK_MAX_RECEIVES = 5;

const eventSchema = v.object({
  eventId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  orgId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  type: v.picklist([...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT]),
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
    lane: v.optional(v.picklist(['fast', 'slow'])),
  }),
]);

export type WebhookQueueMessage = { kind: 'event'; event: WebhookEvent } | DeliveryMessage;

/**
 * How the two lanes' queues are consumed (lib/webhooks-construct.ts, and local/pollers.ts alike):
 * few records per batch, all of a batch's records handled at once (a record's attempt never waits
 * for another's), partial batch responses, and enough concurrent batches that the fast lane's
 * consumers are never all held: a fast-lane attempt ends within FAST_LANE_ATTEMPT_MS.
 */
export const WEBHOOK_LANE_CONSUMERS = {
  fast: { batchSize: 5, maxConcurrency: 10 },
  slow: { batchSize: 10, maxConcurrency: 5 },
} as const;

/** The message a record carries, or undefined for a body that is not one of ours. */
export const webhookQueueMessageFrom: (record: SQSRecord) => WebhookQueueMessage | undefined =
  queueRecordBody(messageSchema);
