import type { Clock } from '#shared/domain/clock.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import type { QuotaDecision } from '#shared/domain/limits/rate-limit.ts';
import { spendingEmailQuota } from '#shared/domain/limits/email-quota.ts';
import { issueTokenFor, type OnboardingTokenRecord } from './onboarding-token.ts';
import type { EmailSendingStatus } from './email-reputation.ts';
import type { OnboardingEmail, OnboardingEmailQuota, OnboardingMailer, OnboardingTokenStore } from './ports.ts';

export interface CreateOnboardingTokenInput {
  /** When the caller stops waiting: a token not confirmed by then is void (see `issue`). */
  answerBy: Date;
  orgId: string;
  organizationName: string;
  email: string;
  firstName: string;
  lastName: string;
}

export interface CreatedOnboardingToken {
  onboardingToken: string;
  tokenId: string;
  expiresAt: string;
  /** The e-mail quota nearest to refusing, after this e-mail (`RateLimit-*`). */
  emailQuota: QuotaDecision;
}

/** The e-mail that carries `token` to the person `record` was issued to. */
export function onboardingEmail(
  record: OnboardingTokenRecord,
  token: string,
  organizationName: string,
): OnboardingEmail {
  return {
    orgId: record.orgId,
    tokenId: record.tokenId,
    to: record.email,
    firstName: record.firstName,
    lastName: record.lastName,
    token,
    expiresAt: new Date(record.expiresAt),
    organizationName,
  };
}

export interface CreateOnboardingTokenDeps {
  tokens: OnboardingTokenStore;
  mailer: OnboardingMailer;
  /** Spent with the token's first write: a request beyond the quota, or refused, stores, sends and spends nothing. */
  emailQuota: OnboardingEmailQuota;
  /** An organization whose e-mail is paused (bounces, complaints) is refused before anything is written. */
  emailSending: EmailSendingStatus;
  clock: Clock;
  /** Told when a withdrawal after a failed e-mail itself failed, so an operator can clean up. */
  onWithdrawFailed?: (tokenId: string, error: unknown) => void;
}

/**
 * A provisional record outlives its request's answer by this much, so that a retry sent after a
 * 503 (Retry-After is at least 2 s) finds the e-mail free even if the abandoned write landed late.
 */
export const PROVISIONAL_MARGIN_MS = 1_000;

/**
 * Primary course: generate a token, record its hash provisionally and spend the e-mail quota, in
 * one transaction (429 beyond the quota, 409 if the e-mail already holds a live token: either way
 * nothing is stored, sent or spent), e-mail it, confirm the record, return it. If the e-mail cannot be sent,
 * the record is withdrawn and the caller gets a retryable failure. If anything stalls, the
 * provisional record voids itself when the caller stops waiting: a 503 leaves no token behind,
 * even one whose write DynamoDB applied after we gave up.
 */
export function createOnboardingToken(deps: CreateOnboardingTokenDeps) {
  return async (input: CreateOnboardingTokenInput): Promise<CreatedOnboardingToken> => {
    const now = deps.clock.now();
    const provisionalUntil = new Date(input.answerBy.getTime() + PROVISIONAL_MARGIN_MS);
    const { token, record } = issueTokenFor(input, now);

    const { decision: emailQuota } = await spendingEmailQuota(
      deps.emailQuota,
      record,
      now,
      (spend) => deps.tokens.issue(record, now, provisionalUntil, spend),
      deps.emailSending,
    );
    try {
      await deps.mailer.sendOnboardingToken(onboardingEmail(record, token, input.organizationName));
    } catch (mailError) {
      await withdrawQuietly(deps, record);
      throw new DependencyUnavailableError('mail', { cause: mailError });
    }
    await deps.tokens.confirm(record, provisionalUntil);
    return {
      onboardingToken: token,
      tokenId: record.tokenId,
      expiresAt: record.expiresAt,
      emailQuota,
    };
  };
}

async function withdrawQuietly(deps: CreateOnboardingTokenDeps, record: OnboardingTokenRecord): Promise<void> {
  try {
    await deps.tokens.withdraw(record);
  } catch (error) {
    deps.onWithdrawFailed?.(record.tokenId, error);
  }
}
