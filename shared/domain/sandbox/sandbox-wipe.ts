import { tenantOfKey } from '#shared/domain/identity/tenant.ts';

/**
 * `DELETE /v1/sandbox` (contract §23): every token, job, report, user, kept e-mail, webhook endpoint
 * and delivery of one organization's sandbox deleted, store by store in bounded pages, by a queue
 * consumer that sends itself a continuation before its time runs out. docs/sandbox.md#wiping-a-sandbox.
 */

export type SandboxWipeStatus = 'RUNNING' | 'DONE';

/** One wipe of one sandbox; at most one runs per sandbox at a time. */
export interface SandboxWipe {
  /** The sandbox's tenant key (`{orgId}~sandbox`). */
  tenantKey: string;
  wipeId: string;
  status: SandboxWipeStatus;
  requestedAt: string;
  /** When a message last set the wipe going (the request, a continuation, a resend). */
  sentAt: string;
  finishedAt?: string;
}

/** What the queue carries: a wipe of one sandbox. */
export interface SandboxWipeMessage {
  tenantKey: string;
  wipeId: string;
}

declare const sandboxKeyBrand: unique symbol;
/** A tenant key `tenantOfKey` reads as a sandbox's: the only key a wipe's delete accepts. */
export type SandboxKey = string & { readonly [sandboxKeyBrand]: true };

/** A key that is not a sandbox's reached the wipe: a bug, refused before anything is deleted. */
export class LiveDataRefusedError extends Error {
  override name = 'LiveDataRefusedError';
  constructor() {
    // Not the key itself: a live key is an organization's id, which the log keeps out of this message.
    super('a sandbox wipe was asked to delete under a key that is not a sandbox key');
  }
}

/**
 * The guard every wipe delete passes through: the key as a `SandboxKey`, or `LiveDataRefusedError`.
 * Each store's delete takes a `SandboxKey`, so no delete can be written with a key that skipped it.
 */
export function sandboxKeyOnly(key: string): SandboxKey {
  if (tenantOfKey(key).mode !== 'sandbox') throw new LiveDataRefusedError();
  return key as SandboxKey;
}

/**
 * One store's share of a sandbox (its tokens and e-mails, its jobs, its report objects, ...).
 * `deletePage` deletes at most one bounded page of what the sandbox holds there and says how many
 * objects it deleted: 0 once nothing is left. Each page stands alone, so a wipe cut off anywhere
 * resumes by calling it again.
 */
export interface SandboxDataStore {
  /** For logs and summaries: `reportJobs`, `users`, ... */
  readonly name: string;
  deletePage(key: SandboxKey): Promise<number>;
}

/** The wipe records: one item per sandbox. */
export interface SandboxWipes {
  /**
   * Records `wipe` unless a wipe of its sandbox runs; answers the wipe that runs then (the new
   * one, or the one found).
   */
  start(wipe: SandboxWipe): Promise<SandboxWipe>;
  get(tenantKey: string): Promise<SandboxWipe | undefined>;
  /** Sets `sentAt` if `wipe` still runs and was last sent at `wipe.sentAt`; false when another writer came first. */
  markSent(wipe: SandboxWipe, sentAt: string): Promise<boolean>;
  /** The wipe is DONE, if it still runs under this id. */
  finish(wipe: SandboxWipeMessage, finishedAt: string): Promise<void>;
}

export interface SandboxWipeQueue {
  send(message: SandboxWipeMessage): Promise<void>;
}
