import type { OnboardingTokenRecord, OnboardingTokenStatus } from './onboarding-token.ts';

export interface OnboardingTokenPage {
  records: OnboardingTokenRecord[];
  /** Opaque; present when more records follow. */
  nextCursor: string | undefined;
}

export interface OnboardingTokenStore {
  /**
   * Records a new token, provisionally: until `confirm`, no reader sees it, and from
   * `provisionalUntil` on it holds nothing (its e-mail is free again), whether or not this write
   * took effect after its caller gave up. Throws `ConflictError` when the organization already
   * holds an unexpired token for the same e-mail; atomic under concurrent calls.
   */
  issue(record: OnboardingTokenRecord, now: Date, provisionalUntil: Date): Promise<void>;
  /** Makes an issued token real (its e-mail was sent). Throws if it is no longer provisional-and-held. */
  confirm(record: OnboardingTokenRecord, provisionalUntil: Date): Promise<void>;
  /** Undoes `issue` (used when the e-mail could not be sent). */
  withdraw(record: OnboardingTokenRecord): Promise<void>;
  /**
   * Newest first, optionally only tokens in one status (as of `now`). Throws `InvalidInputError`
   * for a cursor it did not issue to this organization.
   */
  listByOrganization(
    orgId: string,
    page: { limit: number; cursor: string | undefined; status?: OnboardingTokenStatus; now: Date },
  ): Promise<OnboardingTokenPage>;
  /** The organization's token with this id; another organization's is never found. */
  findById(orgId: string, tokenId: string): Promise<OnboardingTokenRecord | undefined>;
  /** The organization's token whose SHA-256 this is. */
  findByHash(orgId: string, tokenHash: string): Promise<OnboardingTokenRecord | undefined>;
  /**
   * Issued -> Used and the e-mail freed, atomically; exactly one of concurrent calls succeeds.
   * Returns the updated record, or the status that kept it from changing.
   */
  markUsed(record: OnboardingTokenRecord, now: Date): Promise<OnboardingTokenRecord | OnboardingTokenStatus>;
  /** Issued -> Revoked and the e-mail freed, atomically. Returns the record, or the status that kept it. */
  revoke(
    record: OnboardingTokenRecord,
    revokedBy: string | undefined,
    now: Date,
  ): Promise<OnboardingTokenRecord | OnboardingTokenStatus>;
  /**
   * Records `next` for the same person and, if `previous` is still Issued, revokes it, in one
   * transaction holding the e-mail guard. Throws `TokenNotIssuedError` when `previous` changed
   * status meanwhile, `ConflictError` when another live token holds the e-mail.
   */
  replace(
    previous: OnboardingTokenRecord,
    next: OnboardingTokenRecord,
    revokedBy: string | undefined,
    now: Date,
  ): Promise<void>;
  /** Undoes `replace` (the new token's e-mail could not be sent): `previous` is as it was before. */
  undoReplace(previous: OnboardingTokenRecord, next: OnboardingTokenRecord): Promise<void>;
  /**
   * Erasure: deletes every token of the organization issued to `email` (already trimmed and
   * lower-cased), whatever its status, with every item that names it or the e-mail. Idempotent;
   * returns how many tokens it deleted.
   */
  eraseIssuedTo(orgId: string, email: string): Promise<number>;
}

/** Where token lifecycle events go (webhooks `onboarding_token.used` / `.revoked`, later). */
export interface OnboardingTokenEvents {
  tokenUsed(record: OnboardingTokenRecord): Promise<void>;
  tokenRevoked(record: OnboardingTokenRecord): Promise<void>;
}

/** Until webhooks exist, lifecycle events go nowhere. */
export const discardTokenEvents: OnboardingTokenEvents = {
  tokenUsed: () => Promise.resolve(),
  tokenRevoked: () => Promise.resolve(),
};

export interface OnboardingEmail {
  to: string;
  firstName: string;
  lastName: string;
  token: string;
  expiresAt: Date;
  organizationName: string;
}

export interface OnboardingMailer {
  sendOnboardingToken(email: OnboardingEmail): Promise<void>;
}
