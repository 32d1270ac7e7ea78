import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { RateLimitPolicy } from '#shared/domain/limits/rate-limit.ts';
import { isSandbox, tenantOfKey } from '#shared/domain/identity/tenant.ts';

import type { SubscribableEventType, WebhookEventType } from './event-types.ts';

export { WEBHOOK_EVENT_TYPES, type SubscribableEventType, type WebhookEventType } from './event-types.ts';

export const MAX_ENDPOINTS_PER_ORGANIZATION = 10;
/** `POST /v1/webhooks/{id}/test`: at most 10 per organization in any minute (contract §15). */
export const WEBHOOK_TEST_RATE_LIMIT: RateLimitPolicy = { capacity: 10, windowMs: 60 * 1000 };
/** An endpoint that has had no successful delivery for this long since its first failure is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;

export interface WebhookEndpoint {
  orgId: string;
  endpointId: string;
  url: string;
  events: SubscribableEventType[];
  /** The signing secret as the SecretSealer sealed it; the plain secret is never stored. */
  sealedSecret: string;
  createdAt: string;
  disabled: boolean;
  disabledAt?: string;
  /** When the first failed attempt since the last success happened. */
  failingSince?: string;
  /** Until this ISO time the endpoint's messages go to the slow lane (it left an attempt unanswered). */
  slowUntil?: string;
  /**
   * `listener`: the sandbox's feed for `onboarding listen` (webhook-listener.ts): its messages are
   * logged with their bodies and read by the CLI; the service never POSTs them anywhere.
   */
  kind?: 'listener';
}

/** An event as it happened, before fan-out to the organization's endpoints. */
export interface WebhookEvent {
  /** Deterministic for a state change, so emitting it twice yields the same message ids. */
  eventId: string;
  orgId: string;
  type: WebhookEventType;
  /** ISO time of the state change (also deterministic). */
  timestamp: string;
  data: Record<string, unknown>;
  /** Only this endpoint (a `webhook.test`). */
  endpointId?: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One message to one endpoint, as the delivery log holds it. */
export interface WebhookDelivery {
  orgId: string;
  endpointId: string;
  messageId: string;
  type: WebhookEventType;
  status: DeliveryStatus;
  attempts: number;
  lastResponseStatus?: number;
  createdAt: string;
  lastAttemptAt?: string;
  nextAttemptAt?: string;
  /** The message body exactly as a delivery carries it: logged for a listener's messages alone. */
  body?: string;
}

/** `whsec_` + base64 of 32 random bytes, the Standard Webhooks secret format. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function newEndpointId(): string {
  return randomUUID();
}

/** The same state change always gets the same event id. */
export function eventIdFor(...parts: string[]): string {
  return `evt_${createHash('sha256').update(parts.join(':')).digest('base64url').slice(0, 32)}`;
}

/** The `webhook-id` of one event sent to one endpoint: the same across every retry and re-emission. */
export function messageIdFor(eventId: string, endpointId: string): string {
  return `msg_${createHash('sha256').update(`${eventId}:${endpointId}`).digest('base64url').slice(0, 32)}`;
}

/** What subscribers of this endpoint receive: the event's type subscribed, or a test addressed to it. */
export function endpointReceives(endpoint: WebhookEndpoint, event: WebhookEvent): boolean {
  if (endpoint.disabled || endpoint.orgId !== event.orgId) return false;
  if (event.endpointId !== undefined) return event.endpointId === endpoint.endpointId;
  return (endpoint.events as readonly string[]).includes(event.type);
}

/**
 * The Standard Webhooks body: `{type, timestamp, livemode, data}`. `livemode` (contract §23) is
 * derived from the tenant key the event was filed under: `false` from a sandbox, `true` from live.
 */
export function messageBody(event: WebhookEvent): string {
  const livemode = !isSandbox(tenantOfKey(event.orgId));
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, livemode, data: event.data });
}
