import type { Clock } from '#shared/domain/clock.ts';
import { tokenStatus, type OnboardingTokenRecord, type OnboardingTokenStatus } from './onboarding-token.ts';
import type { OnboardingTokenStore } from './ports.ts';

export interface ListedOnboardingToken {
  record: OnboardingTokenRecord;
  /** Derived at the time of listing: an Issued token past its expiry is Expired. */
  status: OnboardingTokenStatus;
}

/** One page of an organization's tokens, newest first; `nextCursor` is null on the last page. */
export interface OnboardingTokenListing {
  tokens: ListedOnboardingToken[];
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
      tokens: page.records.map((record) => ({ record, status: tokenStatus(record, now) })),
      nextCursor: page.nextCursor ?? null,
    };
  };
}
