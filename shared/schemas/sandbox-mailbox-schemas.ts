import * as v from 'valibot';

/** GET /v1/sandbox/emails query string. */
export const sandboxEmailListQuerySchema = v.object({
  to: v.optional(v.pipe(v.string(), v.trim(), v.toLowerCase(), v.minLength(1), v.maxLength(254), v.email())),
  limit: v.optional(
    v.pipe(v.string(), v.transform(Number), v.number(), v.integer(), v.minValue(1), v.maxValue(100)),
    '25',
  ),
  cursor: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(2048))),
});
