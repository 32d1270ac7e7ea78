import type { Clock } from '#shared/domain/clock.ts';
import { tokenStatus, type OnboardingTokenStatus } from './onboarding-token.ts';
import type {
  OnboardingTokenPageBody,
  OnboardingTokenSummaryBody,
} from '#shared/schemas/onboarding-token-responses.ts';
import type { OnboardingTokenStore } from './ports.ts';

/** A row of the dashboard; `firstName` and `lastName` are the first answers' names, kept for their clients. */
export type OnboardingTokenSummary = OnboardingTokenSummaryBody;
export type OnboardingTokenListing = OnboardingTokenPageBody;

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
