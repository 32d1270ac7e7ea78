import type { Clock } from '#shared/domain/clock.ts';
import { tokenStatus, type OnboardingTokenStatus } from './onboarding-token.ts';
import type { OnboardingTokenStore } from './ports.ts';

export interface OnboardingTokenSummary {
  tokenId: string;
  email: string;
  /** As `POST /v1/onboarding-token` takes it. */
  first_name: string;
  last_name: string;
  /** @deprecated The first answers' name for `first_name`, kept for their clients. */
  firstName: string;
  /** @deprecated The first answers' name for `last_name`, kept for their clients. */
  lastName: string;
  status: OnboardingTokenStatus;
  tokenHint: string;
  createdAt: string;
  expiresAt: string;
  usedAt?: string;
  revokedAt?: string;
  revokedBy?: string;
}

export interface OnboardingTokenListing {
  results: OnboardingTokenSummary[];
  nextCursor: string | null;
}

/** The organization's dashboard: its tokens, newest first, one page at a time, optionally in one status. */
export function listOnboardingTokens(deps: { tokens: OnboardingTokenStore; clock: Clock }) {
  return async (input: {
    orgId: string;
    limit: number;
    cursor: string | undefined;
    status?: OnboardingTokenStatus;
  }): Promise<OnboardingTokenListing> => {
    const now = deps.clock.now();
    const page = await deps.tokens.listByOrganization(input.orgId, {
      limit: input.limit,
      cursor: input.cursor,
      ...(input.status ? { status: input.status } : {}),
      now,
    });
    return {
      results: page.records.map((record) => ({
        tokenId: record.tokenId,
        email: record.email,
        first_name: record.firstName,
        last_name: record.lastName,
        firstName: record.firstName,
        lastName: record.lastName,
        status: tokenStatus(record, now),
        tokenHint: record.tokenHint,
        createdAt: record.createdAt,
        expiresAt: record.expiresAt,
        ...(record.usedAt ? { usedAt: record.usedAt } : {}),
        ...(record.revokedAt ? { revokedAt: record.revokedAt } : {}),
        ...(record.revokedBy ? { revokedBy: record.revokedBy } : {}),
      })),
      nextCursor: page.nextCursor ?? null,
    };
  };
}
