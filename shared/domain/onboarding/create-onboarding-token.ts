import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { DependencyUnavailableError } from '../errors.ts';
import {
  generateOnboardingToken,
  hashOnboardingToken,
  tokenExpiry,
  type OnboardingTokenRecord,
} from './onboarding-token.ts';
import type { OnboardingMailer, OnboardingTokenStore } from './ports.ts';

export interface CreateOnboardingTokenInput {
  orgId: string;
  organizationName: string;
  email: string;
  firstName: string;
  lastName: string;
}

export interface CreatedOnboardingToken {
  onboardingToken: string;
  expiresAt: string;
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
    const token = generateOnboardingToken();
    const expiresAt = tokenExpiry(now);
    const record: OnboardingTokenRecord = {
      orgId: input.orgId,
      tokenId: randomUUID(),
      tokenHash: hashOnboardingToken(token),
      tokenHint: token.slice(-4),
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      createdAt: now.toISOString(),
      expiresAt: expiresAt.toISOString(),
    };

    await deps.tokens.issue(record, now);
    try {
      await deps.mailer.sendOnboardingToken({
        to: input.email,
        firstName: input.firstName,
        lastName: input.lastName,
        token,
        expiresAt,
        organizationName: input.organizationName,
      });
    } catch (mailError) {
      await withdrawQuietly(deps, record);
      throw new DependencyUnavailableError('mail', { cause: mailError });
    }
    return { onboardingToken: token, expiresAt: record.expiresAt };
  };
}

async function withdrawQuietly(deps: CreateOnboardingTokenDeps, record: OnboardingTokenRecord): Promise<void> {
  try {
    await deps.tokens.withdraw(record);
  } catch (error) {
    deps.onWithdrawFailed?.(record.tokenId, error);
  }
}
