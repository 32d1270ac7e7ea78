import type { Clock } from '#shared/domain/clock.ts';
import { NotFoundError } from '#shared/domain/errors.ts';
import { tenantKey, type Tenant } from '#shared/domain/identity/tenant.ts';
import {
  sandboxKeyOnly,
  type SandboxDataStore,
  type SandboxWipe,
  type SandboxWipeMessage,
  type SandboxWipeQueue,
  type SandboxWipes,
} from './sandbox-wipe.ts';

/**
 * A running wipe whose last message is older than this is sent again by the next request: its
 * consumer was cut off for good (its message dead-lettered) or its continuation was lost. Within
 * it, a second request answers the same wipe and sends nothing, so a caller polling with DELETE
 * never starts a crowd of consumers on one sandbox.
 */
export const WIPE_RESEND_AFTER_MS = 60_000;
/** `sentAt` of a wipe recorded before its message went: a failed send leaves it, so the next request sends. */
const NOT_SENT = new Date(0).toISOString();

const messageOf = ({ tenantKey: key, wipeId }: SandboxWipe): SandboxWipeMessage => ({ tenantKey: key, wipeId });

/**
 * `DELETE /v1/sandbox`. Primary course: a live tenant has no such route (NotFoundError, 404); the
 * sandbox's wipe is recorded unless one runs (one item per sandbox, a conditional write), its
 * message sent to the wipe queue, and the running wipe answered, so a second request while it runs
 * answers the same wipe.
 */
export function requestSandboxWipe(deps: {
  wipes: SandboxWipes;
  queue: SandboxWipeQueue;
  clock: Clock;
  newId: () => string;
}) {
  const send = async (wipe: SandboxWipe, previousSentAt: string): Promise<void> => {
    await deps.queue.send(messageOf(wipe));
    // Lost to a race or a failure, the next request only sends once more: a wipe done twice is the same wipe.
    await deps.wipes.markSent({ ...wipe, sentAt: previousSentAt }, deps.clock.now().toISOString());
  };

  return async (tenant: Tenant): Promise<SandboxWipe> => {
    if (tenant.mode !== 'sandbox') throw new NotFoundError('the sandbox routes answer sandbox tokens only');
    const at = deps.clock.now();
    const candidate: SandboxWipe = {
      tenantKey: sandboxKeyOnly(tenantKey(tenant)),
      wipeId: deps.newId(),
      status: 'RUNNING',
      requestedAt: at.toISOString(),
      sentAt: NOT_SENT,
    };
    const wipe = await deps.wipes.start(candidate);
    if (wipe.wipeId === candidate.wipeId) {
      await send(wipe, NOT_SENT);
    } else if (at.getTime() - Date.parse(wipe.sentAt) >= WIPE_RESEND_AFTER_MS) {
      await send(wipe, wipe.sentAt);
    }
    return wipe;
  };
}

export type SandboxWipeRun =
  { outcome: 'done' | 'continued'; deleted: Record<string, number> } | { outcome: 'skipped'; reason: 'not-running' };

/**
 * The wipe queue's consumer. Primary course: the message's key must be a sandbox's
 * (LiveDataRefusedError otherwise, before any read); a message of a wipe that no longer runs (done,
 * or replaced by a later one) is skipped; each store then deletes page after page until it has
 * nothing left, in the order given; when `hasTimeLeft` says no before a page, the wipe is sent
 * again and this run ends (`continued`); once every store is empty the wipe is DONE. Nothing is
 * remembered between runs: a run cut off anywhere (a crash, a failing store) is finished by the
 * next, which finds what is left.
 */
export function runSandboxWipe(deps: {
  wipes: SandboxWipes;
  queue: SandboxWipeQueue;
  stores: readonly SandboxDataStore[];
  clock: Clock;
}) {
  return async (message: SandboxWipeMessage, hasTimeLeft: () => boolean): Promise<SandboxWipeRun> => {
    const key = sandboxKeyOnly(message.tenantKey);
    const wipe = await deps.wipes.get(key);
    if (wipe?.status !== 'RUNNING' || wipe.wipeId !== message.wipeId)
      return { outcome: 'skipped', reason: 'not-running' };
    const deleted: Record<string, number> = Object.fromEntries(deps.stores.map((store) => [store.name, 0]));
    for (const store of deps.stores) {
      for (;;) {
        if (!hasTimeLeft()) {
          await deps.queue.send(message);
          await deps.wipes.markSent(wipe, deps.clock.now().toISOString());
          return { outcome: 'continued', deleted };
        }
        const count = await store.deletePage(key);
        deleted[store.name] = (deleted[store.name] ?? 0) + count;
        if (count === 0) break;
      }
    }
    await deps.wipes.finish(message, deps.clock.now().toISOString());
    return { outcome: 'done', deleted };
  };
}
