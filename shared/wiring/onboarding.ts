import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbOnboardingTokenStore } from '#shared/adapters/dynamodb/onboarding-token-store.ts';
import { onboardingMailerFrom } from '#shared/adapters/ses/onboarding-mailer.ts';
import { DynamoDbSandboxMailbox } from '#shared/adapters/dynamodb/sandbox-mailbox.ts';
import { MailboxOnboardingMailer } from '#shared/adapters/sandbox-mailer.ts';
import { countEmailEvent } from '#shared/domain/onboarding/email-reputation.ts';
import { mailerByTenant, type SandboxMailbox } from '#shared/domain/sandbox/mailbox.ts';
import type { OnboardingMailConfig } from '#shared/config/mail-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { emittingTokenEvents } from '#shared/domain/webhooks/webhook-events.ts';
import { tokenEventMetrics } from '#shared/observability/token-event-metrics.ts';
import { webhookEventPublishing, type WebhookPublishingConfig } from '#shared/wiring/webhook-events.ts';
import type { EmailQuotaConfig, EmailReputationConfig } from '#shared/config/mail-config.ts';
import { BoundedMap } from '#shared/support/bounded-map.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import type { EmailSendingStatus } from '#shared/domain/onboarding/email-reputation.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import { DynamoDbEmailReputationStore } from '#shared/adapters/dynamodb/email-reputation-store.ts';
import type { OnboardingEmailQuota, OnboardingMailer } from '#shared/domain/onboarding/ports.ts';
import { DynamoDbOnboardingEmailQuota } from '#shared/adapters/dynamodb/limits/email-quota.ts';

/** A pause read slower than this is treated as failed: the e-mail's decision never waits on it. */
export const PAUSE_READ_TIMEOUT_MS = 300;

/**
 * How long a container takes an organization at its word that it may send, before reading the
 * pause again. A pause is counted from SES events that arrive seconds to minutes after their
 * e-mails, so a few seconds more cost nothing; a read on every e-mail cost a DynamoDB call on the
 * token's path, one more chance to meet a hung attempt. A pause is never remembered: a resume
 * takes effect at the next e-mail.
 */
export const MAY_SEND_REUSE_MS = 5_000;

/** Organizations a container remembers as free to send; the one read longest ago is forgotten first. */
const MAX_REMEMBERED_ORGANIZATIONS = 1_000;

/**
 * The e-mail pause of a sending function, read from the OnboardingTokens table before an e-mail
 * (at most once per organization in MAY_SEND_REUSE_MS while it may send), failing open: a read
 * that fails or takes longer than PAUSE_READ_TIMEOUT_MS lets the e-mail go (logged, and counted in
 * `EmailReputationFailOpen`), for at most `failOpenSeconds` since this container last read a
 * pause; past that the e-mail is refused as a dependency failure (503) until a read answers
 * again. So a failing reputation store neither stops e-mail at once nor leaves an organization's
 * pause unenforced for long.
 */
export function emailSendingStatusFor(
  documents: DynamoDBDocumentClient,
  config: EmailReputationConfig & { ONBOARDING_TOKENS_TABLE_NAME: string },
  options: { readTimeoutMs?: number; startedAt?: number } = {},
): EmailSendingStatus {
  const store = new DynamoDbEmailReputationStore(documents, config.ONBOARDING_TOKENS_TABLE_NAME);
  const failOpenMs = config.EMAIL_REPUTATION_FAIL_OPEN_SECONDS * 1000;
  const readTimeoutMs = options.readTimeoutMs ?? PAUSE_READ_TIMEOUT_MS;
  let lastAnsweredAt = options.startedAt ?? Date.now();
  const maySendUntil = new BoundedMap<string, number>(MAX_REMEMBERED_ORGANIZATIONS);
  return {
    pausedFor: async (orgId, now) => {
      if ((maySendUntil.get(orgId) ?? 0) > now.getTime()) return undefined;
      try {
        const reason = await store.pausedFor(orgId, AbortSignal.timeout(readTimeoutMs));
        lastAnsweredAt = now.getTime();
        if (reason) {
          maySendUntil.delete(orgId);
          metrics.addMetric(BusinessMetric.RateLimitedRequests, MetricUnit.Count, 1);
        } else {
          maySendUntil.set(orgId, now.getTime() + MAY_SEND_REUSE_MS);
        }
        return reason;
      } catch (error) {
        if (now.getTime() - lastAnsweredAt > failOpenMs) {
          throw new DependencyUnavailableError('e-mail reputation', { cause: error });
        }
        metrics.addMetric(BusinessMetric.EmailReputationFailOpen, MetricUnit.Count, 1);
        logger.warn('could not read the e-mail pause; sending (fail open)', { orgId, error: error as Error });
        return undefined;
      }
    },
  };
}

/**
 * The e-mail quotas of a function that sends onboarding e-mails (configured with
 * `emailQuotaEnvironment`), kept in its OnboardingTokens table; a refusal is counted as a
 * rate-limited request.
 */
export function onboardingEmailQuotaFor(
  documents: DynamoDBDocumentClient,
  config: EmailQuotaConfig & { ONBOARDING_TOKENS_TABLE_NAME: string },
): OnboardingEmailQuota {
  const quota = new DynamoDbOnboardingEmailQuota(documents, config.ONBOARDING_TOKENS_TABLE_NAME, {
    perRecipientPerHour: config.EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR,
    perOrganizationPerHour: config.EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR,
  });
  return {
    reserve: async (orgId, email, now) => {
      const reservation = await quota.reserve(orgId, email, now);
      if (!reservation.allowed) metrics.addMetric(BusinessMetric.RateLimitedRequests, MetricUnit.Count, 1);
      return reservation;
    },
  };
}

type OnboardingTokensTable = { ONBOARDING_TOKENS_TABLE_NAME: string };

export function onboardingTokensFor(config: OnboardingTokensTable): DynamoDbOnboardingTokenStore {
  return new DynamoDbOnboardingTokenStore(containerDynamoDbClients().documents, config.ONBOARDING_TOKENS_TABLE_NAME);
}

/** A token's lifecycle events: counted as metrics and published as webhook events. */
export function tokenEventsFor(config: WebhookPublishingConfig) {
  return emittingTokenEvents(tokenEventMetrics, webhookEventPublishing(config));
}

/**
 * The mailer of a sending function: SES for live keys; for sandbox keys the mailbox, which sends
 * nothing and counts each kept e-mail in the sandbox's own reputation (its pause alarms nobody:
 * an integrator testing bounces is no incident). docs/sandbox.md#the-mailbox.
 */
export function onboardingMailerFor(
  documents: DynamoDBDocumentClient,
  config: OnboardingMailConfig & OnboardingTokensTable,
): OnboardingMailer {
  const table = config.ONBOARDING_TOKENS_TABLE_NAME;
  return mailerByTenant({
    live: onboardingMailerFrom(config),
    sandbox: new MailboxOnboardingMailer({
      mailbox: new DynamoDbSandboxMailbox(documents, table),
      countEmailEvent: countEmailEvent({
        store: new DynamoDbEmailReputationStore(documents, table),
        clock: systemClock,
        alerts: { emailPaused: () => Promise.resolve() },
      }),
      clock: systemClock,
    }),
  });
}

/** The sandbox's kept e-mails, for their listing (GET /v1/sandbox/emails). */
export function sandboxMailboxFor(config: OnboardingTokensTable): SandboxMailbox {
  return new DynamoDbSandboxMailbox(containerDynamoDbClients().documents, config.ONBOARDING_TOKENS_TABLE_NAME);
}

/** What sending an onboarding e-mail needs: SES, the quotas per recipient and organization, the reputation pause. */
export function onboardingMailFor(
  config: OnboardingMailConfig & EmailQuotaConfig & EmailReputationConfig & OnboardingTokensTable,
) {
  const { documents } = containerDynamoDbClients();
  return {
    mailer: onboardingMailerFor(documents, config),
    emailQuota: onboardingEmailQuotaFor(documents, config),
    emailSending: emailSendingStatusFor(documents, config),
  };
}

/**
 * What issuing a token needs: the store, the e-mail and its limits, the clock, and a log line when
 * a token whose e-mail failed cannot be withdrawn.
 */
export function tokenIssuingPortsFor(
  config: OnboardingMailConfig & EmailQuotaConfig & EmailReputationConfig & OnboardingTokensTable,
) {
  return {
    tokens: onboardingTokensFor(config),
    ...onboardingMailFor(config),
    clock: systemClock,
    onWithdrawFailed: (tokenId: string, error: unknown) =>
      logger.warn('could not withdraw a token after a failed e-mail; it voids itself as provisional', {
        tokenId,
        error: error as Error,
      }),
  };
}

/** What revoking or redeeming a token needs: the store, its events, the clock. */
export function tokenLifecyclePortsFor(config: OnboardingTokensTable & WebhookPublishingConfig) {
  return { tokens: onboardingTokensFor(config), events: tokenEventsFor(config), clock: systemClock };
}
