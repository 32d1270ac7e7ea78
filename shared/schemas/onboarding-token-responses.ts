import * as v from 'valibot';
import { ONBOARDING_TOKEN_STATUSES } from '#shared/domain/onboarding/onboarding-token.ts';
import { cursorPage, instant } from './response-members.ts';

/** 201 of POST /v1/onboarding-token and of resend. */
export const onboardingTokenSchema = v.object({
  onboarding_token: v.pipe(
    v.string(),
    v.regex(/^[A-Za-z0-9_-]{32}$/),
    v.description(
      '32 characters of base64url (192 random bits). Shown here and in the e-mail only; the service stores its SHA-256.',
    ),
    v.metadata({ readOnly: true }),
  ),
  tokenId: v.pipe(v.string(), v.uuid(), v.description('The token’s id (not a secret): revoke and resend take it.')),
  expires_at: instant('14 days after creation (additive member).'),
});

const lowerCasedEmail = v.pipe(v.string(), v.description('Lower-cased.'));
const asCreateTookIt = v.pipe(v.string(), v.description('As `POST /v1/onboarding-token` took it.'));

/** One row of GET /v1/onboarding-tokens. */
export const onboardingTokenSummarySchema = v.object({
  tokenId: v.pipe(v.string(), v.uuid()),
  email: lowerCasedEmail,
  first_name: asCreateTookIt,
  last_name: asCreateTookIt,
  firstName: v.pipe(v.string(), v.description('The same as `first_name`; use that.'), v.metadata({ deprecated: true })),
  lastName: v.pipe(v.string(), v.description('The same as `last_name`; use that.'), v.metadata({ deprecated: true })),
  status: v.pipe(
    v.picklist(ONBOARDING_TOKEN_STATUSES),
    v.description('Issued until expiresAt, Expired after; Used once redeemed, Revoked once revoked (both final).'),
  ),
  tokenHint: v.pipe(v.string(), v.length(4), v.description('The token’s last 4 characters.')),
  createdAt: instant('When the token was issued.'),
  expiresAt: instant('When the token expires.'),
  usedAt: v.optional(instant('When it was redeemed (Used tokens).')),
  revokedAt: v.optional(instant('When it was revoked (Revoked tokens).')),
  revokedBy: v.optional(v.pipe(v.string(), v.description('The revoker’s `sub` claim (Revoked tokens).'))),
});

/** 200 of GET /v1/onboarding-tokens. */
export const onboardingTokenPageSchema = cursorPage(
  onboardingTokenSummarySchema,
  "Newest first. With `status`, each request reads a bounded part of the organization's tokens: a page may hold fewer than `limit`, or none, while `nextCursor` says more may follow.",
);

/** 200 of POST /v1/onboarding-token/redeem: the person the token was issued to. */
export const redeemedOnboardingTokenSchema = v.object({
  tokenId: v.pipe(v.string(), v.uuid()),
  email: lowerCasedEmail,
  first_name: v.string(),
  last_name: v.string(),
  status: v.literal('Used'),
  usedAt: instant('When it was redeemed (now).'),
  expiresAt: instant('When it would have expired.'),
});

export type OnboardingTokenBody = v.InferOutput<typeof onboardingTokenSchema>;
export type OnboardingTokenSummaryBody = v.InferOutput<typeof onboardingTokenSummarySchema>;
export type OnboardingTokenPageBody = v.InferOutput<typeof onboardingTokenPageSchema>;
export type RedeemedOnboardingTokenBody = v.InferOutput<typeof redeemedOnboardingTokenSchema>;
