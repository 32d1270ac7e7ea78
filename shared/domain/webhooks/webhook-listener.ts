import { createHash } from 'node:crypto';
import type { Clock } from '#shared/domain/clock.ts';
import { ConflictError, NotFoundError } from '#shared/domain/errors.ts';
import type { SecretSealer, WebhookEndpointStore, WebhookListenerFeed } from './ports.ts';
import { signedMessageHeaders } from './signed-message.ts';
import {
  MAX_ENDPOINTS_PER_ORGANIZATION,
  messageBody,
  newWebhookSecret,
  WEBHOOK_EVENT_TYPES,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEvent,
} from './webhook-endpoint.ts';

/**
 * The sandbox's webhook listener (docs/sandbox.md#the-webhook-listener): an endpoint of kind
 * `listener` whose messages are logged with their bodies instead of being POSTed, and read by
 * `onboarding listen` through a long-polling feed that signs each as a delivery would be signed.
 * A deployed sandbox cannot reach a developer's machine; the machine can reach the sandbox.
 */

/** What the listener's `url` says: it is no address, and the delivery path refuses it (not https). */
export const LISTENER_URL = 'onboarding-listen:';
/** How long after it was logged a message may still be written before an older one: the feed reads no closer to now. */
export const LISTENER_SETTLE_MS = 2000;
/** The longest a feed read waits for a message (the API's function has 29 s). */
export const LISTENER_MAX_WAIT_SECONDS = 20;
const LISTENER_POLL_MS = 1000;
const LISTENER_PAGE_SIZE = 100;

/** One tenant's listener always has this id, so opening it twice at once cannot make two. */
export function listenerEndpointId(tenantKey: string): string {
  const hex = createHash('sha256').update(`webhook-listener:${tenantKey}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The log entry a listener's message is: logged when it was fanned out, with its body. */
export function listenerMessage(
  endpoint: WebhookEndpoint,
  event: WebhookEvent,
  messageId: string,
  loggedAt: string,
): WebhookDelivery {
  return {
    orgId: endpoint.orgId,
    endpointId: endpoint.endpointId,
    messageId,
    type: event.type,
    status: 'pending',
    attempts: 0,
    createdAt: loggedAt,
    body: messageBody(event),
  };
}

export interface OpenedWebhookListener {
  endpoint: WebhookEndpoint;
  secret: string;
  created: boolean;
}

/**
 * Primary course: the tenant's listener and its secret, made on first use (subscribed to every
 * event type, one of the tenant's endpoints). The secret stays the same until the listener is
 * deleted, so a receiver configured with it keeps verifying.
 */
export function openWebhookListener(deps: { endpoints: WebhookEndpointStore; sealer: SecretSealer; clock: Clock }) {
  const existing = async (orgId: string, endpointId: string): Promise<OpenedWebhookListener | undefined> => {
    const endpoint = await deps.endpoints.get(orgId, endpointId);
    return endpoint && { endpoint, secret: await deps.sealer.open(endpoint.sealedSecret, endpoint), created: false };
  };
  return async (input: { orgId: string }): Promise<OpenedWebhookListener> => {
    const endpointId = listenerEndpointId(input.orgId);
    const opened = await existing(input.orgId, endpointId);
    if (opened) return opened;
    const secret = newWebhookSecret();
    const endpoint: WebhookEndpoint = {
      orgId: input.orgId,
      endpointId,
      url: LISTENER_URL,
      events: [...WEBHOOK_EVENT_TYPES],
      sealedSecret: await deps.sealer.seal(secret, { orgId: input.orgId, endpointId }),
      createdAt: deps.clock.now().toISOString(),
      disabled: false,
      kind: 'listener',
    };
    try {
      await deps.endpoints.create(endpoint, MAX_ENDPOINTS_PER_ORGANIZATION);
    } catch (error) {
      // Opened at the same time by another call: that one's listener is this one.
      if (error instanceof ConflictError) throw error;
      const raced = await existing(input.orgId, endpointId);
      if (raced) return raced;
      throw error;
    }
    return { endpoint, secret, created: true };
  };
}

/** One message as the feed answers it: the body and headers a delivery would POST. */
export interface ListenerMessage {
  messageId: string;
  type: WebhookDelivery['type'];
  body: string;
  headers: Record<string, string>;
}

export interface ListenerMessages {
  messages: ListenerMessage[];
  /** Where the next read starts. */
  cursor: string;
}

/**
 * Primary course: without a cursor, answer at once with one that starts now. With one, read the
 * listener's messages logged after it; none yet: look again every second for up to `waitSeconds`.
 * Each message is signed now with the listener's secret, exactly as a delivery attempt signs.
 * Only messages logged at least LISTENER_SETTLE_MS ago are read, so a message logged late by a
 * slower fan-out (with an earlier time) is never behind a cursor already answered.
 */
export function readListenerMessages(deps: {
  endpoints: WebhookEndpointStore;
  feed: WebhookListenerFeed;
  sealer: SecretSealer;
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
}) {
  return async (input: {
    orgId: string;
    cursor: string | undefined;
    waitSeconds: number;
  }): Promise<ListenerMessages> => {
    const endpoint = await deps.endpoints.get(input.orgId, listenerEndpointId(input.orgId));
    if (!endpoint) throw new NotFoundError('no webhook listener: POST /v1/sandbox/webhook-listener opens it');
    const waitUntil = deps.clock.now().getTime() + Math.min(input.waitSeconds, LISTENER_MAX_WAIT_SECONDS) * 1000;
    let cursor = input.cursor;
    for (;;) {
      const settledBy = new Date(deps.clock.now().getTime() - LISTENER_SETTLE_MS).toISOString();
      const page = await deps.feed.messagesAfter(input.orgId, endpoint.endpointId, {
        cursor,
        settledBy,
        limit: LISTENER_PAGE_SIZE,
      });
      if (page.records.length > 0 || cursor === undefined || deps.clock.now().getTime() >= waitUntil) {
        const secret = page.records.length > 0 ? await deps.sealer.open(endpoint.sealedSecret, endpoint) : '';
        const sentAt = deps.clock.now();
        return {
          messages: page.records.map((record) => ({
            messageId: record.messageId,
            type: record.type,
            body: record.body ?? '',
            headers: signedMessageHeaders(secret, { messageId: record.messageId, body: record.body ?? '' }, sentAt),
          })),
          cursor: page.cursor,
        };
      }
      cursor = page.cursor;
      await deps.sleep(LISTENER_POLL_MS);
    }
  };
}
