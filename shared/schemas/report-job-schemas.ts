import * as v from 'valibot';

/** POST /v1/document/api body. */
export const reportJobRequestSchema = v.object({
  userId: v.pipe(v.string(), v.minLength(1), v.maxLength(16)),
});

/** `{id}` in /v1/document/api/{id}: anything that is not a job id is simply not found. */
export const JOB_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** GET /v1/document/api query string: the organization's jobs, newest first. */
export const reportJobListQuerySchema = v.object({
  limit: v.optional(
    v.pipe(v.string(), v.transform(Number), v.number(), v.integer(), v.minValue(1), v.maxValue(100)),
    '25',
  ),
  cursor: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(2048))),
  userId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(16))),
});
