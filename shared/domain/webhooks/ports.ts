import type { DeliveryStatus, WebhookDelivery, WebhookEndpoint, WebhookEvent } from './webhook-endpoint.ts';
import type { VettedTarget } from './ssrf-guard.ts';

export type { HostResolver } from './ssrf-guard.ts';

export interface WebhookEndpointStore {
  /** Adds an endpoint; throws `ConflictError` when the organization already has `maxPerOrganization`. Atomic. */
  create(endpoint: WebhookEndpoint, maxPerOrganization: number): Promise<void>;
  /** The organization's endpoints, oldest first. */
  list(orgId: string): Promise<WebhookEndpoint[]>;
  /** Another organization's endpoint is never found. */
  get(orgId: string, endpointId: string): Promise<WebhookEndpoint | undefined>;
  /** False when there was no such endpoint. */
  delete(orgId: string, endpointId: string): Promise<boolean>;
  /** Notes a failed attempt: sets `failingSince` unless already set; returns the endpoint as stored. */
  recordFailure(endpoint: WebhookEndpoint, now: Date): Promise<WebhookEndpoint>;
  /** Clears `failingSince` after a success. */
  recordSuccess(endpoint: WebhookEndpoint): Promise<void>;
  /** Sends the endpoint's messages to the slow lane until `until` (undefined: back to the fast lane now). */
  setSlowUntil(endpoint: WebhookEndpoint, until: Date | undefined): Promise<void>;
  disable(endpoint: WebhookEndpoint, now: Date): Promise<void>;
}

export interface DeliveryAttemptUpdate {
  status: DeliveryStatus;
  attempts: number;
  lastResponseStatus?: number;
  lastAttemptAt: string;
  nextAttemptAt?: string;
}

export interface WebhookDeliveryPage {
  records: WebhookDelivery[];
  nextCursor: string | undefined;
}

export interface WebhookDeliveryLog {
  /** Records a pending delivery; an existing one (a repeated fan-out) is left as it is. */
  open(delivery: WebhookDelivery): Promise<void>;
  get(
    delivery: Pick<WebhookDelivery, 'orgId' | 'endpointId' | 'messageId' | 'createdAt'>,
  ): Promise<WebhookDelivery | undefined>;
  recordAttempt(
    delivery: Pick<WebhookDelivery, 'orgId' | 'endpointId' | 'messageId' | 'createdAt'>,
    update: DeliveryAttemptUpdate,
  ): Promise<void>;
  /** Newest first. Throws `InvalidInputError` for a cursor it did not issue for this endpoint. */
  list(
    orgId: string,
    endpointId: string,
    page: { limit: number; cursor: string | undefined },
  ): Promise<WebhookDeliveryPage>;
}

/** One read of a listener's messages: oldest first, and where the next read starts. */
export interface ListenerMessagePage {
  records: WebhookDelivery[];
  cursor: string;
}

/** The sandbox listener's messages, read in the order they were logged (webhook-listener.ts). */
export interface WebhookListenerFeed {
  /**
   * Messages logged after `cursor` and at or before `settledBy`, oldest first, at most `limit`;
   * without a cursor, none: the feed starts at `settledBy`. Throws `InvalidInputError` for a
   * cursor it did not issue for this endpoint.
   */
  messagesAfter(
    orgId: string,
    endpointId: string,
    read: { cursor: string | undefined; settledBy: string; limit: number },
  ): Promise<ListenerMessagePage>;
}

/** Encrypts endpoint secrets at rest: KMS in AWS, a local AES-256-GCM key in the local stack. */
export interface SecretSealer {
  seal(secret: string, context: { orgId: string; endpointId: string }): Promise<string>;
  open(sealed: string, context: { orgId: string; endpointId: string }): Promise<string>;
}

/** One delivery attempt, as queued. */
export interface DeliveryMessage {
  kind: 'delivery';
  orgId: string;
  endpointId: string;
  messageId: string;
  /** The delivery log entry's creation time (part of its key). */
  createdAt: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** Not to be attempted before this ISO time (longer waits than one queue delay are chained). */
  notBefore: string;
  event: WebhookEvent;
  /** The queue the message travels in (see webhook-lanes.ts); absent: the fast lane. */
  lane?: DeliveryLane;
}

/** `fast`: every endpoint, attempts cut at FAST_LANE_ATTEMPT_MS; `slow`: endpoints that left one unanswered, the full 15 s. */
export type DeliveryLane = 'fast' | 'slow';

export interface WebhookQueue {
  /** An event to fan out to the organization's endpoints. */
  publishEvent(event: WebhookEvent): Promise<void>;
  /** A delivery attempt in the queue of its `lane`, visible after `delaySeconds` (at most 900). */
  scheduleDelivery(message: DeliveryMessage, delaySeconds: number): Promise<void>;
}

export interface WebhookResponse {
  /** HTTP status, when the receiver answered. */
  status?: number;
  /** The attempt's time ran out (name resolution, connection or answer) before an answer. */
  timedOut?: boolean;
  /** Why there was no usable answer (timeout, refused, unsafe address). */
  error?: string;
}

/** POSTs a signed message to the vetted address, with the 15 s / no redirect / 64 KB rules. */
export interface WebhookSender {
  send(target: VettedTarget, request: { headers: Record<string, string>; body: string }): Promise<WebhookResponse>;
}

/** An event SQS did not take when it happened, kept until the republish schedule hands it over. */
export interface PendingWebhookEvent {
  event: WebhookEvent;
  keptAt: string;
}

/**
 * Where an emitted event waits while the webhook queue is unreachable (an outbox written only
 * when publishing fails). Keeping the same event twice is harmless: its id decides the message ids.
 */
export interface PendingWebhookEvents {
  keep(event: WebhookEvent, now: Date): Promise<void>;
  /** Up to `limit` pending events, oldest first. */
  oldest(limit: number): Promise<PendingWebhookEvent[]>;
  /** Every pending event of one organization (an erasure looks for those naming its person). */
  ofOrganization(orgId: string): Promise<PendingWebhookEvent[]>;
  remove(pending: PendingWebhookEvent): Promise<void>;
}
