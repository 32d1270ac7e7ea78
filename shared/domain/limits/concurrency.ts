/**
 * Every organization's concurrency limit (docs/contract.md §25, Stripe's concurrent-requests
 * limiter): besides its request budget, an organization holds at most `perOrganization` requests
 * in flight on all routes together, and at most `databasePerOrganization` of them on the routes
 * that run database statements (`runsDatabaseStatements` in shared/config/api-routes.ts). A
 * request holds a slot from admission to its end; a slot also expires by itself at the request's
 * deadline, so an invocation that crashed holds none for longer than it could have run.
 */
export interface ConcurrencyPolicy {
  /** Requests one organization may have in flight on all routes together. */
  perOrganization: number;
  /** Requests one organization may have in flight on the database routes (counted in `perOrganization` too). */
  databasePerOrganization: number;
}

/** The contract's 20 on all routes, 4 on the database routes. */
export const DEFAULT_CONCURRENCY: ConcurrencyPolicy = { perOrganization: 20, databasePerOrganization: 4 };

/** A slot comes back when a request ends, which is usually within a second: the contract's `Retry-After`. */
export const CONCURRENCY_RETRY_AFTER_SECONDS = 1;

/** One request's slot. */
export interface SlotLease {
  /** Unique to the request. */
  id: string;
  orgId: string;
  /** Epoch milliseconds: the request's deadline, after which the slot is free whether released or not. */
  expiresAt: number;
  /** Taken on a database route: it counts against `databasePerOrganization` too. */
  database: boolean;
}

/** A slot taken, or the limit the organization already holds: all routes', or the database routes'. */
export type SlotTaking = 'taken' | 'at-limit' | 'at-database-limit';

/** The organizations' slots, shared by every container (DynamoDB in the service). */
export interface ConcurrencySlots {
  /**
   * Takes `lease`'s slot if the organization holds fewer unexpired slots than the policy allows
   * (expired ones are reclaimed on the way); otherwise says which limit it holds.
   */
  take(lease: SlotLease, policy: ConcurrencyPolicy, nowMs: number): Promise<SlotTaking>;
  /** Gives the slot back; releasing one not held (expired and reclaimed, or released already) does nothing. */
  release(lease: SlotLease): Promise<void>;
}

/** True when a slot expiring at `expiresAt` is free at `nowMs`. */
export const slotExpired = (expiresAt: number, nowMs: number): boolean => expiresAt <= nowMs;
