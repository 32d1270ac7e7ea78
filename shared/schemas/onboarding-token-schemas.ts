import * as v from 'valibot';
import { isPlainText, PLAIN_TEXT_HINT } from '#shared/domain/plain-text.ts';
import { ONBOARDING_TOKEN_STATUSES } from '#shared/domain/onboarding/onboarding-token.ts';

const plainText = v.check(isPlainText, `isString: ${PLAIN_TEXT_HINT}`);
const personName = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100), plainText);

/** POST /v1/onboarding-token body. Unknown members are ignored. */
export const onboardingTokenRequestSchema = v.object({
  email: v.pipe(v.string(), v.trim(), v.toLowerCase(), v.minLength(1), v.maxLength(254), plainText, v.email()),
  first_name: personName,
  last_name: personName,
});

/** GET /v1/onboarding-tokens query string. */
export const onboardingTokenListQuerySchema = v.object({
  limit: v.optional(
    v.pipe(v.string(), v.transform(Number), v.number(), v.integer(), v.minValue(1), v.maxValue(100)),
    '25',
  ),
  cursor: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(2048))),
  status: v.optional(v.picklist(ONBOARDING_TOKEN_STATUSES)),
});

/** POST /v1/onboarding-token/redeem body: the token as the end user typed it (surrounding spaces ignored). */
export const onboardingTokenRedeemSchema = v.object({
  onboarding_token: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64)),
});
