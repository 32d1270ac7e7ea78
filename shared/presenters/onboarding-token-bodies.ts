import type {
  ListedOnboardingToken,
  OnboardingTokenListing,
} from '#shared/domain/onboarding/list-onboarding-tokens.ts';
import type { OnboardingTokenRecord } from '#shared/domain/onboarding/onboarding-token.ts';
import type {
  OnboardingTokenPageBody,
  OnboardingTokenSummaryBody,
  RedeemedOnboardingTokenBody,
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

/** The answer to a redemption: the person the token was for, and the token now Used. */
export function redeemedOnboardingTokenBody(used: OnboardingTokenRecord): RedeemedOnboardingTokenBody {
  return {
    tokenId: used.tokenId,
    email: used.email,
    first_name: used.firstName,
    last_name: used.lastName,
    status: 'Used',
    // markUsed answers the record it just marked Used, with usedAt.
    usedAt: used.usedAt!,
    expiresAt: used.expiresAt,
  };
}
