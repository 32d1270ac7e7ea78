import * as v from 'valibot';
import { ONBOARDING_TOKEN_STATUSES } from '#shared/domain/onboarding/onboarding-token.ts';
import { REPORT_ERROR_CODES, REPORT_JOB_STATUSES } from '#shared/domain/reports/report-job.ts';
import { instant } from './response-members.ts';

/** The name each status code's error body carries in `error`. */
export const STATUS_NAMES: Readonly<Record<number, string>> = {
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_ENTITY',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/** The body of every error but 400 (shared/http/error-mapper.ts writes it). */
export const standardErrorSchema = v.pipe(
  v.object({
    code: v.pipe(v.number(), v.integer(), v.description('The HTTP status.'), v.examples([404])),
    timestamp: instant('When the error occurred.'),
    path: v.pipe(
      v.string(),
      v.description('The requested path.'),
      v.examples(['/v1/document/api/6f1c2c52-2f7e-4a55-9a57-7bb0f0ce43c1']),
    ),
    method: v.pipe(v.string(), v.description('The HTTP method of the request.'), v.examples(['GET'])),
    error: v.pipe(v.picklist([...new Set(Object.values(STATUS_NAMES))]), v.description('The status as a name.')),
    message: v.pipe(v.string(), v.description('A short text.')),
    jobId: v.optional(
      v.pipe(
        v.string(),
        v.uuid(),
        v.description('409 on POST /v1/document/api: the job already open for this user (additive member).'),
      ),
    ),
    status: v.optional(
      v.pipe(
        v.picklist(REPORT_JOB_STATUSES),
        v.description('422 on a download address for a job not yet COMPLETE: its status (additive member).'),
      ),
    ),
    tokenStatus: v.optional(
      v.pipe(
        v.picklist(ONBOARDING_TOKEN_STATUSES),
        v.description('409 on redeem, revoke or resend: the onboarding token’s status (additive member).'),
      ),
    ),
    errorCode: v.optional(
      v.pipe(
        v.picklist(REPORT_ERROR_CODES),
        v.description('422 on a download address for a FAILED job: why it failed (additive member).'),
      ),
    ),
  }),
  v.description(
    'The standard error body of every error but 400. A 5XX body never names internals; the log line with the same `x-request-id` has the error.',
  ),
);

/** One problem with a request. */
export const fieldErrorSchema = v.object({
  field: v.pipe(
    v.string(),
    v.description(
      'camelCase path of the offending input (`firstName`, `filters.age.gte`, `resultKeys[2]`, `pagination.limit`); `body` for the body as a whole.',
    ),
    v.examples(['firstName']),
  ),
  code: v.pipe(
    v.string(),
    v.description(
      'The rule: isNotEmpty, isObject, isArray, isNumber, isString, isBoolean, isInt, isEmail, isIn (a value not allowed, or an unknown member), isDateString, min, max, maxLength, isJson (the body is not a JSON object).',
    ),
    v.examples(['isNotEmpty']),
  ),
  hint: v.pipe(
    v.string(),
    v.description('A short text naming the member as it was sent.'),
    v.examples(['first_name must not be empty']),
  ),
});

/** The 400 body: every problem with the request at once. */
export const validationErrorSchema = v.pipe(
  v.object({
    code: v.literal(400),
    errors: v.pipe(v.array(fieldErrorSchema), v.minLength(1)),
  }),
  v.description('The validation body: every problem with the request at once.'),
);

export type StandardErrorBody = v.InferOutput<typeof standardErrorSchema>;
export type FieldErrorBody = v.InferOutput<typeof fieldErrorSchema>;
export type ValidationErrorBody = v.InferOutput<typeof validationErrorSchema>;
