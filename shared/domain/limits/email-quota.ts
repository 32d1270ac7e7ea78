import { DependencyUnavailableError, EmailPausedError, EmailQuotaExceededError } from '#shared/domain/errors.ts';
import { QuotaChangedError, type QuotaDecision } from '#shared/domain/limits/rate-limit.ts';
import { exponentialBackoff, withRetries } from '#shared/support/retry.ts';
import type { EmailSendingStatus } from '#shared/domain/onboarding/email-reputation.ts';
import type { EmailQuotaSpend, OnboardingEmailQuota } from '#shared/domain/onboarding/ports.ts';

/**
 * The onboarding e-mail quotas (contract §15): at most `perRecipientPerHour` e-mails to one
 * address and `perOrganizationPerHour` e-mails in all, per organization and hour. Both are
 * deployment settings (CDK context `emailQuotaPerRecipientPerHour`,
 * `emailQuotaPerOrganizationPerHour`; Lambda environment `EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR`,
 * `EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR`).
 */
export interface EmailQuotaPolicy {
  perRecipientPerHour: number;
  perOrganizationPerHour: number;
}

export const DEFAULT_EMAIL_QUOTA: EmailQuotaPolicy = { perRecipientPerHour: 5, perOrganizationPerHour: 1000 };

/** An address's spend times live in one item read and rewritten by each of its e-mails: kept small. */
export const MAX_EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR = 100;
/** The organization's quota is a counter, so its size costs nothing; this only catches typos. */
export const MAX_EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR = 1_000_000;

export const EMAIL_QUOTA_WINDOW_MS = 60 * 60 * 1000;

/** Mailboxes that ignore dots in the local part; `googlemail.com` is the same mailbox as `gmail.com`. */
const DOT_BLIND_DOMAINS: Readonly<Record<string, string>> = { 'gmail.com': 'gmail.com', 'googlemail.com': 'gmail.com' };

/**
 * The recipient as the quotas count it (contract §19), so `victim+1@…` and Gmail's dot variants
 * share one address's quota: trimmed and lower-cased, the `+tag` removed from the local part, and
 * for Gmail the dots removed too. Only the quota uses it; the token keeps the address as given.
 */
export function quotaAddress(email: string): string {
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf('@');
  if (at <= 0) return address;
  const domain = address.slice(at + 1);
  let local = address.slice(0, at);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  const mailbox = DOT_BLIND_DOMAINS[domain];
  return mailbox ? `${local.replaceAll('.', '')}@${mailbox}` : `${local}@${domain}`;
}

/** Decisions on fresh state before a request gives up on a contended quota (503). */
const MAX_QUOTA_ATTEMPTS = 25;

/**
 * Runs the request's first write (`write`, which must commit `spend` in its own transaction) with
 * one onboarding e-mail to `to.email` spent on the way, before anything is sent:
 * - the quotas refuse: `EmailQuotaExceededError` (429), nothing written;
 * - the store refuses the write for another reason (a live token holds the e-mail, the token is no
 *   longer Issued): that error, and nothing of the quota spent, since it was one transaction;
 * - a concurrent request spent meanwhile (`QuotaChangedError`): decided again on fresh state.
 * An organization whose e-mail is paused (`sending`, contract §19) is refused first:
 * `EmailPausedError` (429), nothing read, written or sent.
 * Returns the write's result and the quota nearest to refusing. A stalled write may still land
 * later, quota and all; a failed send afterwards keeps the e-mail counted (SES may have delivered
 * it after all): the quota errs on the side of fewer e-mails.
 */
export async function spendingEmailQuota<T>(
  quota: OnboardingEmailQuota,
  to: { orgId: string; email: string },
  now: Date,
  write: (spend: EmailQuotaSpend) => Promise<T>,
  sending: EmailSendingStatus,
): Promise<{ result: T; decision: QuotaDecision }> {
  const paused = await sending.pausedFor(to.orgId, now);
  if (paused) throw new EmailPausedError(paused);
  try {
    return await withRetries(
      async () => {
        const reservation = await quota.reserve(to.orgId, to.email, now);
        if (!reservation.allowed) throw new EmailQuotaExceededError(reservation.decision, reservation.exhausted);
        return { result: await write(reservation.spend), decision: reservation.decision };
      },
      {
        maxAttempts: MAX_QUOTA_ATTEMPTS,
        isRetryable: (error) => error instanceof QuotaChangedError,
        backoff: raceBackoff,
      },
    );
  } catch (error) {
    if (error instanceof QuotaChangedError) {
      throw new DependencyUnavailableError('e-mail quota (too much contention)', { cause: error });
    }
    throw error;
  }
}

/** A few milliseconds, growing with the attempts, so requests racing for the same quota spread out. */
const raceBackoff = exponentialBackoff({ baseMs: 10, capMs: 50 });
