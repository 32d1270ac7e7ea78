import type {
  ListedOnboardingToken,
  OnboardingTokenListing,
} from '#shared/domain/onboarding/list-onboarding-tokens.ts';
import type {
  OnboardingTokenPageBody,
  OnboardingTokenSummaryBody,
} from '#shared/schemas/onboarding-token-responses.ts';

/** A row of the dashboard; `firstName` and `lastName` are the first answers' names, kept for their clients. */
export function onboardingTokenSummaryBody({ record, status }: ListedOnboardingToken): OnboardingTokenSummaryBody {
  return {
    tokenId: record.tokenId,
    email: record.email,
    first_name: record.firstName,
    last_name: record.lastName,
    firstName: record.firstName,
    lastName: record.lastName,
    status,
    tokenHint: record.tokenHint,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    ...(record.usedAt ? { usedAt: record.usedAt } : {}),
    ...(record.revokedAt ? { revokedAt: record.revokedAt } : {}),
    ...(record.revokedBy ? { revokedBy: record.revokedBy } : {}),
  };
}

/** 200 of `GET /v1/onboarding-tokens`. */
export function onboardingTokenPageBody(listing: OnboardingTokenListing): OnboardingTokenPageBody {
  return { results: listing.tokens.map(onboardingTokenSummaryBody), nextCursor: listing.nextCursor };
}
