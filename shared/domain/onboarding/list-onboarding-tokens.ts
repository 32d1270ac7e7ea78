import type { Clock } from '../clock.ts';
import { tokenStatus, type OnboardingTokenStatus } from './onboarding-token.ts';
import type { OnboardingTokenStore } from './ports.ts';

export interface OnboardingTokenSummary {
  email: string;
  firstName: string;
  lastName: string;
  status: OnboardingTokenStatus;
  tokenHint: string;
  createdAt: string;
  expiresAt: string;
}

export interface OnboardingTokenListing {
  results: OnboardingTokenSummary[];
  nextCursor: string | null;
}

/** The organization's dashboard: its tokens, newest first, one page at a time. */
export function listOnboardingTokens(deps: { tokens: OnboardingTokenStore; clock: Clock }) {
  return async (input: {
    orgId: string;
    limit: number;
    cursor: string | undefined;
  }): Promise<OnboardingTokenListing> => {
    const page = await deps.tokens.listByOrganization(input.orgId, { limit: input.limit, cursor: input.cursor });
    const now = deps.clock.now();
    return {
      results: page.records.map((record) => ({
        email: record.email,
        firstName: record.firstName,
        lastName: record.lastName,
        status: tokenStatus(record, now),
        tokenHint: record.tokenHint,
        createdAt: record.createdAt,
        expiresAt: record.expiresAt,
      })),
      nextCursor: page.nextCursor ?? null,
    };
  };
}
