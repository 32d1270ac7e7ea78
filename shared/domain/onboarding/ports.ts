import type { QuotaDecision } from '#shared/domain/limits/rate-limit.ts';
import type { OnboardingTokenRecord, OnboardingTokenStatus } from './onboarding-token.ts';

export interface OnboardingTokenPage {
  records: OnboardingTokenRecord[];
  /** Opaque; present when more records may follow (a filtered listing stops after a bounded read, maybe with none). */
  nextCursor: string | undefined;
}

export interface OnboardingTokenStore {
  /**
   * Records a new token, provisionally: until `confirm`, no reader sees it, and from
   * `provisionalUntil` on it holds nothing (its e-mail is free again), whether or not this write
   * took effect after its caller gave up. Throws `ConflictError` when the organization already
   * holds an unexpired token for the same e-mail; atomic under concurrent calls. `emailQuota` is
   * spent in the same transaction: refused, nothing of it is spent; changed meanwhile,
   * `QuotaChangedError` and nothing written.
   */
  issue(record: OnboardingTokenRecord, now: Date, provisionalUntil: Date, emailQuota?: EmailQuotaSpend): Promise<void>;
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
   * Sandbox: Issued -> Expired at `now` (its expiry moved to `now`) and the e-mail freed,
   * atomically. Returns the record, or the status that kept it.
   */
  expire(record: OnboardingTokenRecord, now: Date): Promise<OnboardingTokenRecord | OnboardingTokenStatus>;
  /**
   * Records `next` for the same person and, if `previous` is still Issued, revokes it, in one
   * transaction holding the e-mail guard. Throws `TokenNotIssuedError` when `previous` changed
   * status meanwhile, `ConflictError` when another live token holds the e-mail. `emailQuota` is
   * spent in the same transaction, as in `issue`.
   */
  replace(
    previous: OnboardingTokenRecord,
    next: OnboardingTokenRecord,
    revokedBy: string | undefined,
    now: Date,
    emailQuota?: EmailQuotaSpend,
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
  /**
   * The sending tenant's key (the organization's id in live): the e-mail's `org_id` tag, so bounces
   * and complaints are counted per organization; a sandbox key's e-mail is kept, never sent.
   */
  orgId: string;
  /** The token the e-mail carries (a sandbox mailbox lists e-mails by it). */
  tokenId: string;
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

/**
 * One onboarding e-mail's share of the quotas, decided but not yet spent: the token store spends it
 * in the same transaction as the token's write, so a request refused for any reason spends nothing.
 */
export interface EmailQuotaReservation {
  allowed: true;
  /** The quota nearest to refusing, after this e-mail (for `RateLimit-*`). */
  decision: QuotaDecision;
  spend: EmailQuotaSpend;
}

/**
 * The conditional writes that spend a reservation, opaque to the domain: the quota adapter makes
 * them, the token store commits them with the token (both are the DynamoDB adapters of one table).
 * If one of them fails its condition, the store throws `QuotaChangedError` and writes nothing.
 */
export interface EmailQuotaSpend {
  readonly writes: readonly object[];
}

export interface EmailQuotaRefusal {
  allowed: false;
  /** The refusing quota's decision (`Retry-After`, `RateLimit-*`). */
  decision: QuotaDecision;
  exhausted: 'recipient' | 'organization';
}

/** The onboarding e-mail quotas (contract §15): per address within the organization, and per organization. */
export interface OnboardingEmailQuota {
  /**
   * Reads the address's quota and the organization's and decides on one more e-mail to `email`
   * (trimmed and lower-cased before it is counted). Writes nothing.
   */
  reserve(orgId: string, email: string, now: Date): Promise<EmailQuotaReservation | EmailQuotaRefusal>;
}
