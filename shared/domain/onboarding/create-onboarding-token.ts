import type { Clock } from '../clock.ts';
import { DependencyUnavailableError } from '../errors.ts';
import { issueTokenFor, type OnboardingTokenRecord } from './onboarding-token.ts';
import type { OnboardingEmail, OnboardingMailer, OnboardingTokenStore } from './ports.ts';

export interface CreateOnboardingTokenInput {
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
}

/** The e-mail that carries `token` to the person `record` was issued to. */
export function onboardingEmail(
  record: OnboardingTokenRecord,
  token: string,
  organizationName: string,
): OnboardingEmail {
  return {
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
  clock: Clock;
  /** Told when a withdrawal after a failed e-mail itself failed, so an operator can clean up. */
  onWithdrawFailed?: (tokenId: string, error: unknown) => void;
}

/**
 * Primary course: generate a token, record its hash (refused if the e-mail already holds a live
 * token), e-mail it, return it. If the e-mail cannot be sent, the record is withdrawn and the
 * caller gets a retryable failure: no token exists that its user never received.
 */
export function createOnboardingToken(deps: CreateOnboardingTokenDeps) {
  return async (input: CreateOnboardingTokenInput): Promise<CreatedOnboardingToken> => {
    const now = deps.clock.now();
    const { token, record } = issueTokenFor(input, now);

    await deps.tokens.issue(record, now);
    try {
      await deps.mailer.sendOnboardingToken(onboardingEmail(record, token, input.organizationName));
    } catch (mailError) {
      await withdrawQuietly(deps, record);
      throw new DependencyUnavailableError('mail', { cause: mailError });
    }
    return { onboardingToken: token, tokenId: record.tokenId, expiresAt: record.expiresAt };
  };
}

async function withdrawQuietly(deps: CreateOnboardingTokenDeps, record: OnboardingTokenRecord): Promise<void> {
  try {
    await deps.tokens.withdraw(record);
  } catch (error) {
    deps.onWithdrawFailed?.(record.tokenId, error);
  }
}
