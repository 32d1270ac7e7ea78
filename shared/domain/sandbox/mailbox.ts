import type { OnboardingMailer } from '#shared/domain/onboarding/ports.ts';
import { isSandbox, tenantOfKey } from '#shared/domain/identity/tenant.ts';

/**
 * The sandbox's mailbox (contract §23): the sandbox never sends e-mail; each e-mail it would have
 * sent is kept here for a week, readable newest first, so an integration can read the onboarding
 * token it triggered. docs/sandbox.md#the-mailbox.
 */

/** How long a kept e-mail stays readable. */
export const KEPT_EMAIL_DAYS = 7;

/** One e-mail as it would have been sent: the rendered template, and the token it carries. */
export interface KeptEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
  tokenId: string;
  /** ISO time it was kept. */
  createdAt: string;
}

export interface KeptEmailPage {
  emails: KeptEmail[];
  /** Opaque; present when more e-mails may follow. */
  nextCursor: string | undefined;
}

/** Where a sandbox's e-mails are kept, by tenant key (a sandbox's key: `tenantKey`). */
export interface SandboxMailbox {
  /** Keeps one e-mail (`messageId` unique to it); throws when it could not be kept. */
  keep(tenantKey: string, messageId: string, email: KeptEmail): Promise<void>;
  /**
   * The tenant's kept e-mails, newest first, only those to `to` when given (trimmed and
   * lower-cased). Throws `InvalidInputError` for a cursor this listing did not issue.
   */
  list(
    tenantKey: string,
    page: { to?: string | undefined; limit: number; cursor?: string | undefined },
  ): Promise<KeptEmailPage>;
}

/**
 * SES's mailbox simulator addresses: an e-mail to one of them counts as a bounce or a complaint
 * for the sandbox's own e-mail pause (§19), so an integrator can test that path too.
 */
const SIMULATED_OUTCOMES: Readonly<Record<string, 'bounce' | 'complaint'>> = {
  'bounce@simulator.amazonses.com': 'bounce',
  'complaint@simulator.amazonses.com': 'complaint',
};

export function simulatedOutcome(to: string): 'bounce' | 'complaint' | undefined {
  return SIMULATED_OUTCOMES[to.trim().toLowerCase()];
}

/**
 * The one mailer every sending function gets: the tenant the e-mail's key belongs to picks SES
 * (live) or the mailbox (sandbox), so no route can send a sandbox e-mail by forgetting to check.
 */
export function mailerByTenant(mailers: { live: OnboardingMailer; sandbox: OnboardingMailer }): OnboardingMailer {
  return {
    sendOnboardingToken: (email) =>
      (isSandbox(tenantOfKey(email.orgId)) ? mailers.sandbox : mailers.live).sendOnboardingToken(email),
  };
}
