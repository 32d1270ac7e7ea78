import type { DeliveryLane } from './ports.ts';
import { ATTEMPT_BUDGET_MS } from './ssrf-guard.ts';
import type { WebhookEndpoint } from './webhook-endpoint.ts';

/**
 * Two lanes keep one organization's slow or hanging endpoints from delaying another's deliveries
 * (docs/contract.md §15, docs/webhooks.md "Isolation between organizations"):
 *
 * - the fast lane, where every message starts: an attempt there gets FAST_LANE_ATTEMPT_MS,
 *   name resolution included. A receiver that has not answered by then is not failed: the
 *   attempt is not counted, the endpoint is marked slow for SLOW_LANE_HOLD_MS and the message
 *   moves, same attempt number, to
 * - the slow lane, a second queue with consumers of its own, where the contract's full 15 s
 *   apply. A receiver that answers there within the fast lane's time is fast again.
 *
 * So a consumer of the fast lane is never held longer than FAST_LANE_ATTEMPT_MS by any
 * receiver, and the messages of an endpoint already known to hang skip it altogether. A receiver
 * that answers in 2 to 15 s gets its message twice (the first connection cut, the second
 * answered): Standard Webhooks receivers deduplicate by `webhook-id`, which stays the same.
 */
export const FAST_LANE_ATTEMPT_MS = 2_000;
/** How long an endpoint that left a fast-lane attempt unanswered stays in the slow lane. */
export const SLOW_LANE_HOLD_MS = 10 * 60 * 1000;

export const attemptBudgetMs = (lane: DeliveryLane): number =>
  lane === 'fast' ? FAST_LANE_ATTEMPT_MS : ATTEMPT_BUDGET_MS;

/** The lane an endpoint's next message travels in. */
export function laneFor(endpoint: Pick<WebhookEndpoint, 'slowUntil'>, now: Date): DeliveryLane {
  return endpoint.slowUntil !== undefined && Date.parse(endpoint.slowUntil) > now.getTime() ? 'slow' : 'fast';
}
