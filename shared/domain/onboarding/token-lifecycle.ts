import type { Clock } from '#shared/domain/clock.ts';
import { DependencyUnavailableError, NotFoundError, TokenNotIssuedError } from '#shared/domain/errors.ts';
import type { QuotaDecision } from '#shared/domain/limits/rate-limit.ts';
import { onboardingEmail } from './create-onboarding-token.ts';
import { spendingEmailQuota } from '#shared/domain/limits/email-quota.ts';
import { hashOnboardingToken, issueTokenFor, tokenStatus, type OnboardingTokenRecord } from './onboarding-token.ts';
import type { EmailSendingStatus } from './email-reputation.ts';
import type { OnboardingEmailQuota, OnboardingMailer, OnboardingTokenEvents, OnboardingTokenStore } from './ports.ts';

export interface TokenLifecycleDeps {
  tokens: OnboardingTokenStore;
  events: OnboardingTokenEvents;
  clock: Clock;
}

const notFound = () => new NotFoundError('onboarding token not found');

/**
 * Primary course: find the organization's token by the SHA-256 of what the end user typed, and
 * turn it from Issued to Used (freeing the e-mail) in one conditional write, so of concurrent
 * redemptions exactly one succeeds. A token of another organization is never found (404).
 */
export function redeemOnboardingToken(deps: TokenLifecycleDeps) {
  return async (input: { orgId: string; onboardingToken: string }): Promise<OnboardingTokenRecord> => {
    const record = await deps.tokens.findByHash(input.orgId, hashOnboardingToken(input.onboardingToken));
    if (!record) throw notFound();
    const outcome = await deps.tokens.markUsed(record, deps.clock.now());
    if (typeof outcome === 'string') throw new TokenNotIssuedError(outcome);
    await deps.events.tokenUsed(outcome);
    return outcome;
  };
}

/**
 * Primary course: Issued -> Revoked, the e-mail freed. Revoking a Revoked token again changes
 * nothing (idempotent); a Used or Expired one is a conflict naming its status.
 */
export function revokeOnboardingToken(deps: TokenLifecycleDeps) {
  return async (input: { orgId: string; tokenId: string; revokedBy: string | undefined }): Promise<void> => {
    const record = await deps.tokens.findById(input.orgId, input.tokenId);
    if (!record) throw notFound();
    const outcome = await deps.tokens.revoke(record, input.revokedBy, deps.clock.now());
    if (outcome === 'Revoked') return;
    if (typeof outcome === 'string') throw new TokenNotIssuedError(outcome);
    await deps.events.tokenRevoked(outcome);
  };
}

/**
 * Sandbox (POST /v1/sandbox/onboarding-tokens/{tokenId}/expire): Issued -> Expired now, the e-mail
 * freed, so an integration can meet an expired token without waiting 14 days. Any other status is
 * a conflict naming it. No webhook event: expiry has none.
 */
export function expireOnboardingToken(deps: Pick<TokenLifecycleDeps, 'tokens' | 'clock'>) {
  return async (input: { orgId: string; tokenId: string }): Promise<OnboardingTokenRecord> => {
    const record = await deps.tokens.findById(input.orgId, input.tokenId);
    if (!record) throw notFound();
    const outcome = await deps.tokens.expire(record, deps.clock.now());
    if (typeof outcome === 'string') throw new TokenNotIssuedError(outcome);
    return outcome;
  };
}

export interface ResentOnboardingToken {
  onboardingToken: string;
  tokenId: string;
  expiresAt: string;
  /** The e-mail quota nearest to refusing, after this e-mail (`RateLimit-*`). */
  emailQuota: QuotaDecision;
}

/**
 * Primary course: for an Issued or Expired token, record a new token for the same person (the old
 * one Revoked if it was Issued) and spend the e-mail quota in one transaction, then e-mail the new
 * one. All or nothing: beyond the quota (429) or if the token changed meanwhile (409) nothing
 * changes and nothing is spent; if the e-mail cannot be sent, the transaction is undone (the
 * e-mail stays counted) and the old token is as it was.
 */
export function resendOnboardingToken(
  deps: TokenLifecycleDeps & {
    mailer: OnboardingMailer;
    emailQuota: OnboardingEmailQuota;
    emailSending: EmailSendingStatus;
  },
) {
  return async (input: {
    orgId: string;
    tokenId: string;
    organizationName: string;
    revokedBy: string | undefined;
  }): Promise<ResentOnboardingToken> => {
    const previous = await deps.tokens.findById(input.orgId, input.tokenId);
    if (!previous) throw notFound();
    const now = deps.clock.now();
    const status = tokenStatus(previous, now);
    if (status === 'Used' || status === 'Revoked') throw new TokenNotIssuedError(status);

    const { token, record: next } = issueTokenFor(previous, now);
    const { decision: emailQuota } = await spendingEmailQuota(
      deps.emailQuota,
      next,
      now,
      (spend) => deps.tokens.replace(previous, next, input.revokedBy, now, spend),
      deps.emailSending,
    );
    try {
      await deps.mailer.sendOnboardingToken(onboardingEmail(next, token, input.organizationName));
    } catch (mailError) {
      await deps.tokens.undoReplace(previous, next);
      throw new DependencyUnavailableError('mail', { cause: mailError });
    }
    if (status === 'Issued') {
      await deps.events.tokenRevoked({ ...previous, revokedAt: now.toISOString(), revokedBy: input.revokedBy });
    }
    return {
      onboardingToken: token,
      tokenId: next.tokenId,
      expiresAt: next.expiresAt,
      emailQuota,
    };
  };
}
