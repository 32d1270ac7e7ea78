import type { PendingWebhookEvents, WebhookQueue } from './ports.ts';

export interface RepublishDeps {
  pending: PendingWebhookEvents;
  queue: WebhookQueue;
  /** Events handed over per run at most; the rest wait for the next run. */
  batchSize: number;
}

export interface RepublishResult {
  republished: number;
  /** Still pending after the run (at least; only the batch read is counted). */
  stillPending: number;
  /** Why the queue refused the event that ended the run, if one did. */
  refusedBy?: unknown;
}

/**
 * The scheduled half of emission (see `EventPublishing`): hands the oldest pending events to the
 * queue and forgets each once the queue took it. The first event the queue refuses ends the run:
 * the queue is still unreachable, and the events wait for the next one. An event handed over whose
 * removal then fails is handed over again next time, with the same id (receivers deduplicate).
 */
export function republishPendingEvents(deps: RepublishDeps) {
  return async (): Promise<RepublishResult> => {
    const batch = await deps.pending.oldest(deps.batchSize);
    let republished = 0;
    for (const pending of batch) {
      try {
        await deps.queue.publishEvent(pending.event);
      } catch (error) {
        return { republished, stillPending: batch.length - republished, refusedBy: error };
      }
      republished++;
      await deps.pending.remove(pending);
    }
    return { republished, stillPending: 0 };
  };
}
