import type { Clock } from '#shared/domain/clock.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { outcomeOf, TARGET_TYPE_OF, type AuditAction, type AuditEvent, type AuditTrail } from './audit-event.ts';

export interface AuditContext {
  orgId: string;
  actor: { sub: string | undefined; clientId: string | undefined };
  requestId: string;
}

export interface AuditRecordingOptions {
  /**
   * The event must be in the trail before the request goes on (an erasure's start): a failure to
   * append it is a DependencyUnavailableError (503), not a lost event.
   */
  required?: boolean;
}

/** Records what a request did, once its change has committed (or, `required`, before it starts). */
export type AuditRecorder = (
  context: AuditContext,
  action: AuditAction,
  targetId: string,
  options?: AuditRecordingOptions,
) => Promise<void>;

/**
 * Primary course: build the event (a fresh id, the clock's time, the action's target type and
 * outcome) and append it to the organization's trail. It never fails the request: the change is
 * already made, so a lost event is handed to `onLost` (logged, counted and alarmed) instead; only
 * a `required` event, recorded before a change, fails it.
 */
export function recordAuditEvent(deps: {
  trail: Pick<AuditTrail, 'append'>;
  clock: Clock;
  newId: () => string;
  onLost: (event: AuditEvent, orgId: string, error: unknown) => void;
}): AuditRecorder {
  return async (context, action, targetId, options) => {
    const event: AuditEvent = {
      eventId: deps.newId(),
      occurredAt: deps.clock.now().toISOString(),
      action,
      actor: { sub: context.actor.sub ?? null, clientId: context.actor.clientId ?? null },
      target: { type: TARGET_TYPE_OF[action], id: targetId },
      requestId: context.requestId,
      outcome: outcomeOf(action),
    };
    try {
      await deps.trail.append(context.orgId, event);
    } catch (error) {
      if (options?.required) throw new DependencyUnavailableError('audit trail', { cause: error });
      deps.onLost(event, context.orgId, error);
    }
  };
}
