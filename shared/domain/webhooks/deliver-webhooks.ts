import type { Clock } from '#shared/domain/clock.ts';
import type {
  DeliveryMessage,
  HostResolver,
  SecretSealer,
  WebhookDeliveryLog,
  WebhookEndpointStore,
  WebhookQueue,
  WebhookSender,
} from './ports.ts';
import { signedMessageHeaders } from './signed-message.ts';
import { retryDelaySeconds, MAX_QUEUE_DELAY_SECONDS, type RetrySchedule } from './retry-schedule.ts';
import { startDeadline, UnsafeWebhookUrlError, vetWebhookUrl, type UrlPolicy } from './ssrf-guard.ts';
import { listenerMessage } from './webhook-listener.ts';
import { attemptBudgetMs, FAST_LANE_ATTEMPT_MS, laneFor, SLOW_LANE_HOLD_MS } from './webhook-lanes.ts';
import {
  DISABLE_AFTER_FAILING_MS,
  endpointReceives,
  messageBody,
  messageIdFor,
  type WebhookEvent,
} from './webhook-endpoint.ts';

export interface DeliveryDeps {
  endpoints: WebhookEndpointStore;
  deliveries: WebhookDeliveryLog;
  queue: WebhookQueue;
  clock: Clock;
}

/**
 * Primary course: for each of the event's organization's endpoints that receives it, open a
 * pending delivery log entry (idempotent: the message id and creation time are derived from the
 * event) and queue the first attempt, in the endpoint's lane (webhook-lanes.ts); a sandbox
 * listener's entry holds the message instead, for its feed to read (webhook-listener.ts). Only the
 * event's own organization's endpoints are read, so an event can never reach another
 * organization's endpoint.
 */
export function fanOutWebhookEvent(deps: DeliveryDeps) {
  return async (event: WebhookEvent): Promise<number> => {
    const receivers = (await deps.endpoints.list(event.orgId)).filter((endpoint) => endpointReceives(endpoint, event));
    const now = deps.clock.now().toISOString();
    for (const endpoint of receivers) {
      const messageId = messageIdFor(event.eventId, endpoint.endpointId);
      if (endpoint.kind === 'listener') {
        await deps.deliveries.open(listenerMessage(endpoint, event, messageId, now));
        continue;
      }
      await deps.deliveries.open({
        orgId: event.orgId,
        endpointId: endpoint.endpointId,
        messageId,
        type: event.type,
        status: 'pending',
        attempts: 0,
        createdAt: event.timestamp,
        nextAttemptAt: now,
      });
      await deps.queue.scheduleDelivery(
        {
          kind: 'delivery',
          orgId: event.orgId,
          endpointId: endpoint.endpointId,
          messageId,
          createdAt: event.timestamp,
          attempt: 1,
          notBefore: now,
          event,
          lane: laneFor(endpoint, deps.clock.now()),
        },
        0,
      );
    }
    return receivers.length;
  };
}

export type AttemptOutcome =
  | { outcome: 'delivered'; status: number }
  | { outcome: 'retrying'; status?: number; error?: string; nextAttemptAt: string }
  | { outcome: 'failed'; status?: number; error?: string; endpointDisabled: boolean }
  | { outcome: 'deferred' }
  /** Not attempted (the endpoint is known to be slow) or not answered within the fast lane's time: on to the slow lane, no attempt counted. */
  | { outcome: 'moved'; lane: 'slow'; reason: 'endpoint-slow' | 'no-answer-in-time' }
  | { outcome: 'skipped'; reason: 'endpoint-gone' | 'endpoint-disabled' | 'already-final' };

/**
 * Primary course: a message not yet due goes back on the queue for the rest of its wait. Else
 * check the endpoint's URL again (resolving its host now, and connecting to the very address
 * checked), sign the message with the endpoint's secret (Standard Webhooks, `standardwebhooks`),
 * POST it, and log the attempt. A failure is retried with the same `webhook-id` on the schedule;
 * after the last retry the message is `failed`. An endpoint with no success for 5 days since its
 * first failure is disabled. The attempt gets its lane's time (webhook-lanes.ts): a fast-lane
 * attempt left unanswered moves the message to the slow lane instead of failing it.
 */
export function attemptWebhookDelivery(
  deps: DeliveryDeps & {
    sealer: SecretSealer;
    resolver: HostResolver;
    sender: WebhookSender;
    policy: UrlPolicy;
    schedule: RetrySchedule;
  },
) {
  return async (message: DeliveryMessage): Promise<AttemptOutcome> => {
    const now = deps.clock.now();
    const waitMs = Date.parse(message.notBefore) - now.getTime();
    if (waitMs > 1000) {
      await deps.queue.scheduleDelivery(message, Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil(waitMs / 1000)));
      return { outcome: 'deferred' };
    }
    const key = message;
    const logged = await deps.deliveries.get(key);
    if (logged && logged.status !== 'pending') return { outcome: 'skipped', reason: 'already-final' };
    if (logged && logged.attempts >= message.attempt) return { outcome: 'skipped', reason: 'already-final' };

    const endpoint = await deps.endpoints.get(message.orgId, message.endpointId);
    if (!endpoint) return { outcome: 'skipped', reason: 'endpoint-gone' };
    if (endpoint.disabled || endpoint.orgId !== message.event.orgId) {
      await deps.deliveries.recordAttempt(key, {
        status: 'failed',
        attempts: logged?.attempts ?? 0,
        lastAttemptAt: now.toISOString(),
      });
      return { outcome: 'skipped', reason: 'endpoint-disabled' };
    }

    const lane = message.lane ?? 'fast';
    if (lane === 'fast' && laneFor(endpoint, now) === 'slow') {
      await deps.queue.scheduleDelivery({ ...message, lane: 'slow' }, 0);
      return { outcome: 'moved', lane: 'slow', reason: 'endpoint-slow' };
    }

    const deadline = startDeadline(attemptBudgetMs(lane));
    const startedAt = deps.clock.now();
    let response: { status?: number; error?: string; timedOut?: boolean };
    try {
      const target = await vetWebhookUrl(endpoint.url, deps.policy, deps.resolver, { deadline });
      const secret = await deps.sealer.open(endpoint.sealedSecret, endpoint);
      const body = messageBody(message.event);
      response = await deps.sender.send(target, {
        headers: signedMessageHeaders(secret, { messageId: message.messageId, body }, deps.clock.now()),
        body,
      });
    } catch (error) {
      if (!(error instanceof UnsafeWebhookUrlError)) throw error;
      response = { error: error.message };
    }
    const attemptedAt = deps.clock.now();
    const unanswered = response.status === undefined && (response.timedOut === true || deadline.signal.aborted);

    if (unanswered) {
      // Hanging (or resolving slowly): the slow lane's consumers wait for it from now on, not the fast lane's.
      await deps.endpoints.setSlowUntil(endpoint, new Date(attemptedAt.getTime() + SLOW_LANE_HOLD_MS));
      if (lane === 'fast') {
        await deps.queue.scheduleDelivery({ ...message, lane: 'slow' }, 0);
        return { outcome: 'moved', lane: 'slow', reason: 'no-answer-in-time' };
      }
    }
    const answeredQuickly = !unanswered && attemptedAt.getTime() - startedAt.getTime() < FAST_LANE_ATTEMPT_MS;
    if (answeredQuickly && endpoint.slowUntil) await deps.endpoints.setSlowUntil(endpoint, undefined);
    const nextLane = unanswered ? 'slow' : answeredQuickly ? 'fast' : laneFor(endpoint, attemptedAt);

    if (response.status !== undefined && response.status >= 200 && response.status < 300) {
      await deps.deliveries.recordAttempt(key, {
        status: 'delivered',
        attempts: message.attempt,
        lastResponseStatus: response.status,
        lastAttemptAt: attemptedAt.toISOString(),
      });
      if (endpoint.failingSince) await deps.endpoints.recordSuccess(endpoint);
      return { outcome: 'delivered', status: response.status };
    }

    const failing = await deps.endpoints.recordFailure(endpoint, attemptedAt);
    const failingForMs = attemptedAt.getTime() - Date.parse(failing.failingSince ?? attemptedAt.toISOString());
    const endpointDisabled = failingForMs >= DISABLE_AFTER_FAILING_MS;
    if (endpointDisabled) await deps.endpoints.disable(failing, attemptedAt);
    const delaySeconds = endpointDisabled ? undefined : retryDelaySeconds(deps.schedule, message.attempt);
    const lastResponse = response.status === undefined ? {} : { lastResponseStatus: response.status };
    if (delaySeconds === undefined) {
      await deps.deliveries.recordAttempt(key, {
        status: 'failed',
        attempts: message.attempt,
        lastAttemptAt: attemptedAt.toISOString(),
        ...lastResponse,
      });
      return { outcome: 'failed', ...response, endpointDisabled };
    }
    const nextAttemptAt = new Date(attemptedAt.getTime() + delaySeconds * 1000).toISOString();
    // The retry is queued before the attempt is logged: if logging fails, this message comes back
    // and is attempted again (a duplicate the receiver deduplicates by webhook-id), whereas a
    // logged attempt whose retry was never queued would leave the message pending forever.
    await deps.queue.scheduleDelivery(
      { ...message, attempt: message.attempt + 1, notBefore: nextAttemptAt, lane: nextLane },
      Math.min(MAX_QUEUE_DELAY_SECONDS, delaySeconds),
    );
    await deps.deliveries.recordAttempt(key, {
      status: 'pending',
      attempts: message.attempt,
      lastAttemptAt: attemptedAt.toISOString(),
      nextAttemptAt,
      ...lastResponse,
    });
    return { outcome: 'retrying', ...response, nextAttemptAt };
  };
}
