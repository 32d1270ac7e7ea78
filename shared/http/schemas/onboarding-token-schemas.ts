import * as v from 'valibot';

const personName = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100));

/** POST /v1/onboarding-token body. Unknown members are ignored. */
export const onboardingTokenRequestSchema = v.object({
  email: v.pipe(v.string(), v.trim(), v.toLowerCase(), v.minLength(1), v.maxLength(254), v.email()),
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
});
