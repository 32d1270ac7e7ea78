import { randomUUID } from 'node:crypto';
import type { Clock } from '#shared/domain/clock.ts';
import type { EmailEvent } from '#shared/domain/onboarding/email-reputation.ts';
import type { OnboardingEmail, OnboardingMailer } from '#shared/domain/onboarding/ports.ts';
import { simulatedOutcome, type SandboxMailbox } from '#shared/domain/sandbox/mailbox.ts';
import { logger } from '#shared/observability/logger.ts';
import { renderOnboardingEmail } from './ses/render-onboarding-email.ts';

export interface MailboxMailerDeps {
  mailbox: SandboxMailbox;
  /** Counts one event in the tenant's e-mail reputation, as the SES events of a live e-mail are. */
  countEmailEvent: (event: EmailEvent) => Promise<unknown>;
  clock: Clock;
  newMessageId?: () => string;
}

/**
 * The sandbox's mailer: renders the e-mail SES would have sent and keeps it in the mailbox; SES is
 * never called. A kept e-mail is counted in the sandbox's own reputation as sent, and as bounced
 * or complained about when it went to a mailbox-simulator address, as SES's events count a live
 * one. An e-mail that cannot be kept throws (the token is withdrawn, 503); one that could not be
 * counted is logged: a live e-mail's events are counted apart from its request too.
 */
export class MailboxOnboardingMailer implements OnboardingMailer {
  constructor(private readonly deps: MailboxMailerDeps) {}

  async sendOnboardingToken(email: OnboardingEmail): Promise<void> {
    const messageId = (this.deps.newMessageId ?? randomUUID)();
    await this.deps.mailbox.keep(email.orgId, messageId, {
      to: email.to,
      ...renderOnboardingEmail(email),
      tokenId: email.tokenId,
      createdAt: this.deps.clock.now().toISOString(),
    });
    const outcome = simulatedOutcome(email.to);
    try {
      await this.deps.countEmailEvent({ kind: 'send', messageId, orgId: email.orgId });
      if (outcome) await this.deps.countEmailEvent({ kind: outcome, messageId, orgId: email.orgId });
    } catch (error) {
      logger.warn('could not count a sandbox e-mail in its reputation', {
        tenantKey: email.orgId,
        error: error as Error,
      });
    }
  }
}
