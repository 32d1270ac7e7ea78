import { ONBOARDING_TOKEN_STATUSES } from '#shared/domain/onboarding/onboarding-token.ts';
import { MAX_BODY_BYTES } from '#shared/http/middlewares.ts';
import { STATUS_NAMES } from '#shared/http/error-mapper.ts';
import { userRecordSchema } from '#shared/domain/users/user-record-schema.ts';
import { MAX_LIMIT } from '#shared/domain/users/user-status-query.ts';
import { REPORT_REQUEST_RATE_LIMIT } from '#shared/domain/reports/rate-limit.ts';
import {
  DOWNLOAD_URL_TTL_SECONDS,
  REPORT_ERROR_CODES,
  REPORT_JOB_STATUSES,
} from '#shared/domain/reports/report-job.ts';
import {
  onboardingTokenListQuerySchema,
  onboardingTokenRedeemSchema,
  onboardingTokenRequestSchema,
} from '#shared/http/schemas/onboarding-token-schemas.ts';
import { reportJobListQuerySchema, reportJobRequestSchema } from '#shared/http/schemas/report-job-schemas.ts';
import { auditEventListQuerySchema } from '#shared/http/schemas/audit-schemas.ts';
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from '#shared/domain/audit/audit-event.ts';
import { userStatusRequestSchema } from '#shared/http/schemas/user-status-schemas.ts';
import { webhookDeliveryListQuerySchema, webhookEndpointRequestSchema } from '#shared/http/schemas/webhook-schemas.ts';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_RATE_LIMIT } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { DEFAULT_EMAIL_QUOTA, EMAIL_QUOTA_WINDOW_MS } from '#shared/domain/onboarding/email-quota.ts';
import { jsonSchemaOf, type SchemaObject } from './valibot-json-schema.ts';

export type { SchemaObject };

/**
 * The document's components. Request bodies and query parameters are converted from the valibot
 * schemas the handlers validate with; response and error bodies are written here by hand, with
 * their enumerations taken from the domain's constants.
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const instant = (description: string): SchemaObject => ({ type: 'string', format: 'date-time', description });

/** A cursor-paged list: `results` newest first, and the cursor of the next page (null on the last). */
function cursorPage(item: string, resultsDescription = 'Newest first.'): SchemaObject {
  return {
    type: 'object',
    required: ['results', 'nextCursor'],
    properties: {
      results: { type: 'array', items: ref(item), description: resultsDescription },
      nextCursor: {
        type: ['string', 'null'],
        description: 'Pass as `cursor` for the next page; null on the last page.',
      },
    },
  };
}

/** A member the response always carries but whose value may be null. */
function nullable(schema: SchemaObject): SchemaObject {
  if (typeof schema.type === 'string') {
    return {
      ...schema,
      type: [schema.type, 'null'],
      ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}),
    };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

/** Seed and contract wording for the request members, added to the converted schemas. */
function describe(schema: SchemaObject, description: string, members: Record<string, string>): SchemaObject {
  const properties = schema.properties as Record<string, SchemaObject>;
  for (const name of Object.keys(members)) if (!properties[name]) throw new Error(`no member ${name} to describe`);
  return {
    description,
    ...schema,
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, member]) => [
        name,
        members[name] ? { description: members[name], ...member } : member,
      ]),
    ),
  };
}

function userStatusRequest(): SchemaObject {
  const schema = jsonSchemaOf(userStatusRequestSchema);
  const properties = schema.properties as Record<string, SchemaObject>;
  return describe(
    {
      ...schema,
      properties: {
        ...properties,
        filters: describe(properties.filters!, 'Conjunction (AND) of filters.', {
          email: 'Matched case-insensitively.',
          registration_status:
            'A category (active = Activated or Complete, pending = For Review or Referred, suspended = Rejected, inactive = Deleted) or a stored value.',
          mobile_registration_status: 'Surrounding white space is ignored.',
          dob: 'Compared as calendar dates (a timestamp counts as its UTC date).',
          guardian_dob: 'Compared as calendar dates (a timestamp counts as its UTC date).',
          created_at: 'Compared as instants.',
          updated_at: 'Compared as instants.',
          connection_status_updated_at: 'Compared as instants.',
        }),
      },
    },
    'User-status query. Every member is optional; `{}` or no body returns the first page of the default fields. Any other member is a 400 `isIn`.',
    {
      result_keys:
        'Fields to return, in this order (duplicates ignored). Default: id, name, email, registration_status, mobile_registration_status, connection_status, created_at, updated_at.',
      pagination: `\`limit\` 1 to ${MAX_LIMIT} (default 50), \`offset\` 0 or more (default 0). Records are ordered by created_at, then id.`,
    },
  );
}

/** A user status record: exactly the requested fields; a field the record lacks is null. */
function userStatusRecord(): SchemaObject {
  const stored = jsonSchemaOf(userRecordSchema);
  const properties = stored.properties as Record<string, SchemaObject>;
  return {
    type: 'object',
    description:
      'A user record holding exactly the fields named in `result_keys` (or the default fields), in that order; a field the user lacks is `null`. Field types are those of the stored record (the import schema).',
    properties: Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, nullable(schema)])),
    additionalProperties: false,
  };
}

const standardError: SchemaObject = {
  type: 'object',
  description:
    'The standard error body of every error but 400. A 5XX body never names internals; the log line with the same `x-request-id` has the error.',
  required: ['code', 'timestamp', 'path', 'method', 'error', 'message'],
  properties: {
    code: { type: 'integer', description: 'The HTTP status.', examples: [404] },
    timestamp: instant('When the error occurred.'),
    path: {
      type: 'string',
      description: 'The requested path.',
      examples: ['/v1/document/api/6f1c2c52-2f7e-4a55-9a57-7bb0f0ce43c1'],
    },
    method: { type: 'string', description: 'The HTTP method of the request.', examples: ['GET'] },
    error: { type: 'string', enum: [...new Set(Object.values(STATUS_NAMES))], description: 'The status as a name.' },
    message: { type: 'string', description: 'A short text.' },
    jobId: {
      type: 'string',
      format: 'uuid',
      description: '409 on POST /v1/document/api: the job already open for this user (additive member).',
    },
    status: {
      type: 'string',
      enum: [...REPORT_JOB_STATUSES],
      description: '422 on a download address for a job not yet COMPLETE: its status (additive member).',
    },
    tokenStatus: {
      type: 'string',
      enum: [...ONBOARDING_TOKEN_STATUSES],
      description: '409 on redeem, revoke or resend: the onboarding token’s status (additive member).',
    },
    errorCode: {
      type: 'string',
      enum: [...REPORT_ERROR_CODES],
      description: '422 on a download address for a FAILED job: why it failed (additive member).',
    },
  },
};

const validationError: SchemaObject = {
  type: 'object',
  description: 'The validation body: every problem with the request at once.',
  required: ['code', 'errors'],
  properties: {
    code: { type: 'integer', const: 400 },
    errors: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['field', 'code', 'hint'],
        properties: {
          field: {
            type: 'string',
            description:
              'camelCase path of the offending input (`firstName`, `filters.age.gte`, `resultKeys[2]`, `pagination.limit`); `body` for the body as a whole.',
            examples: ['firstName'],
          },
          code: {
            type: 'string',
            description:
              'The rule: isNotEmpty, isObject, isArray, isNumber, isString, isBoolean, isInt, isEmail, isIn (a value not allowed, or an unknown member), isDateString, min, max, maxLength, isJson (the body is not a JSON object).',
            examples: ['isNotEmpty'],
          },
          hint: {
            type: 'string',
            description: 'A short text naming the member as it was sent.',
            examples: ['first_name must not be empty'],
          },
        },
      },
    },
  },
};

const reportJobFields = {
  jobId: { type: 'string', format: 'uuid', description: 'The job id, `{id}` in the report paths.' },
  status: ref('ReportJobState'),
  userId: { type: 'string', minLength: 1, maxLength: 16, description: 'The user the report is about.' },
  createdAt: instant('When the job was created.'),
  updatedAt: instant('When the job last changed.'),
};

/** The status response of a job in the given states: the common members plus the state's own, all required. */
function reportJob(description: string, states: readonly string[], own: Record<string, SchemaObject>): SchemaObject {
  const common = {
    ...reportJobFields,
    status: { type: 'string', enum: [...states], description: 'See ReportJobState.' },
    templateVersion: { type: 'string', description: 'Version label of the report template.' },
  };
  return {
    type: 'object',
    description,
    required: [...Object.keys(reportJobFields), 'templateVersion', ...Object.keys(own)],
    properties: { ...common, ...own },
  };
}

export function componentSchemas(): Record<string, SchemaObject> {
  return {
    ...webhookSchemas(),
    OnboardingTokenRequest: describe(jsonSchemaOf(onboardingTokenRequestSchema), 'Unknown members are ignored.', {
      email: 'E-mail address of the end user; trimmed and compared in lower case.',
      first_name: 'First name of the end user; trimmed.',
      last_name: 'Last name of the end user; trimmed.',
    }),
    OnboardingTokenRedeemRequest: describe(
      jsonSchemaOf(onboardingTokenRedeemSchema),
      'The token the end user typed. Unknown members are ignored.',
      { onboarding_token: 'The 32-character token; surrounding white space is ignored.' },
    ),
    RedeemedOnboardingToken: {
      type: 'object',
      required: ['tokenId', 'email', 'first_name', 'last_name', 'status', 'usedAt', 'expiresAt'],
      properties: {
        tokenId: { type: 'string', format: 'uuid' },
        email: { type: 'string', description: 'Lower-cased.' },
        first_name: { type: 'string' },
        last_name: { type: 'string' },
        status: { type: 'string', const: 'Used' },
        usedAt: instant('When it was redeemed (now).'),
        expiresAt: instant('When it would have expired.'),
      },
    },
    OnboardingToken: {
      type: 'object',
      required: ['onboarding_token', 'tokenId', 'expires_at'],
      properties: {
        tokenId: {
          type: 'string',
          format: 'uuid',
          description: 'The token’s id (not a secret): revoke and resend take it.',
        },
        onboarding_token: {
          type: 'string',
          readOnly: true,
          pattern: '^[A-Za-z0-9_-]{32}$',
          description:
            '32 characters of base64url (192 random bits). Shown here and in the e-mail only; the service stores its SHA-256.',
        },
        expires_at: instant('14 days after creation (additive member).'),
      },
    },
    OnboardingTokenSummary: {
      type: 'object',
      required: [
        'tokenId',
        'email',
        'first_name',
        'last_name',
        'firstName',
        'lastName',
        'status',
        'tokenHint',
        'createdAt',
        'expiresAt',
      ],
      properties: {
        tokenId: { type: 'string', format: 'uuid' },
        email: { type: 'string', description: 'Lower-cased.' },
        first_name: { type: 'string', description: 'As `POST /v1/onboarding-token` took it.' },
        last_name: { type: 'string', description: 'As `POST /v1/onboarding-token` took it.' },
        firstName: { type: 'string', deprecated: true, description: 'The same as `first_name`; use that.' },
        lastName: { type: 'string', deprecated: true, description: 'The same as `last_name`; use that.' },
        status: {
          type: 'string',
          enum: [...ONBOARDING_TOKEN_STATUSES],
          description: 'Issued until expiresAt, Expired after; Used once redeemed, Revoked once revoked (both final).',
        },
        tokenHint: { type: 'string', minLength: 4, maxLength: 4, description: 'The token’s last 4 characters.' },
        createdAt: instant('When the token was issued.'),
        expiresAt: instant('When the token expires.'),
        usedAt: instant('When it was redeemed (Used tokens).'),
        revokedAt: instant('When it was revoked (Revoked tokens).'),
        revokedBy: { type: 'string', description: 'The revoker’s `sub` claim (Revoked tokens).' },
      },
    },
    ReportJobPage: cursorPage('ReportJob', 'Newest first, each as `GET /v1/document/api/{id}` answers it.'),
    OnboardingTokenPage: cursorPage('OnboardingTokenSummary'),
    ReportJobRequest: describe(jsonSchemaOf(reportJobRequestSchema), 'The user to report on.', {
      userId: 'A user of the calling organization.',
    }),
    ReportJobState: {
      type: 'string',
      enum: [...REPORT_JOB_STATUSES],
      description:
        'PENDING = queued, IN_PROGRESS = being rendered, COMPLETE = a download address is available, FAILED = generation failed. COMPLETE and FAILED are final.',
    },
    ReportJobCreated: {
      type: 'object',
      description: 'The job as created (status PENDING).',
      required: ['jobId', 'status', 'userId', 'createdAt', 'updatedAt'],
      properties: reportJobFields,
    },
    ReportJob: {
      description:
        'A report job: PENDING or IN_PROGRESS, COMPLETE (with the PDF’s size, digest and timings) or FAILED (with the reason).',
      oneOf: [ref('OpenReportJob'), ref('CompleteReportJob'), ref('FailedReportJob')],
      discriminator: {
        propertyName: 'status',
        mapping: {
          PENDING: '#/components/schemas/OpenReportJob',
          IN_PROGRESS: '#/components/schemas/OpenReportJob',
          COMPLETE: '#/components/schemas/CompleteReportJob',
          FAILED: '#/components/schemas/FailedReportJob',
        },
      },
    },
    OpenReportJob: reportJob('A job that is queued or being rendered.', ['PENDING', 'IN_PROGRESS'], {}),
    CompleteReportJob: reportJob('A job whose PDF is stored; ask for a download address.', ['COMPLETE'], {
      sizeBytes: { type: 'integer', minimum: 1, description: 'Size of the PDF in bytes.' },
      sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Hex SHA-256 digest of the PDF.' },
      durationMs: { type: 'integer', minimum: 0, description: 'Processing time in milliseconds.' },
      completedAt: instant('When the report was stored.'),
    }),
    FailedReportJob: reportJob('A job that failed; request a new one.', ['FAILED'], {
      errorCode: {
        type: 'string',
        enum: [...REPORT_ERROR_CODES],
        description:
          'Why the job failed; TIMED_OUT when it was not complete 5 minutes after creation, USER_ERASED when the user was erased while it was open.',
      },
      durationMs: { type: 'integer', minimum: 0, description: 'Processing time in milliseconds.' },
    }),
    ReportDownload: {
      type: 'object',
      required: ['url', 'expiresInSeconds', 'expiresAt', 'filename'],
      properties: {
        url: {
          type: 'string',
          format: 'uri',
          description:
            'Pre-signed GET address of the PDF, valid 5 minutes; after that object storage answers 403 and a new call gives a fresh address.',
        },
        expiresInSeconds: { type: 'integer', const: DOWNLOAD_URL_TTL_SECONDS },
        expiresAt: instant('When the address stops working (additive member).'),
        filename: {
          type: 'string',
          pattern: '^report-[A-Za-z0-9_-]+-\\d{8}\\.pdf$',
          description: 'Suggested file name.',
        },
      },
    },
    UserStatusRequest: userStatusRequest(),
    UserStatusRecord: userStatusRecord(),
    UserStatusPage: {
      type: 'object',
      required: ['results', 'pagination'],
      properties: {
        results: { type: 'array', items: ref('UserStatusRecord') },
        pagination: {
          type: 'object',
          required: ['limit', 'offset', 'total'],
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT },
            offset: { type: 'integer', minimum: 0 },
            total: { type: 'integer', minimum: 0, description: 'Matches in all pages.' },
          },
        },
      },
    },
    StandardError: standardError,
    ValidationError: validationError,
  };
}

/** Query parameters of GET /v1/onboarding-tokens, from the schema that handler parses its query string with. */
export function onboardingTokenListParameters(): SchemaObject[] {
  return queryParameters(jsonSchemaOf(onboardingTokenListQuerySchema), {
    limit: 'Page size.',
    cursor: 'The `nextCursor` of the previous page (opaque).',
    status: 'Only tokens in this status.',
  });
}

export function reportJobListParameters(): SchemaObject[] {
  return queryParameters(jsonSchemaOf(reportJobListQuerySchema), {
    limit: 'Page size.',
    cursor: 'The `nextCursor` of the previous page (opaque).',
    userId: 'Only this user’s jobs.',
  });
}

export function auditEventListParameters(): SchemaObject[] {
  return queryParameters(jsonSchemaOf(auditEventListQuerySchema), {
    limit: 'Page size.',
    cursor: 'The `nextCursor` of the previous page (opaque).',
    action: 'Only events of this action.',
    targetId: 'Only events about this resource (token, job, webhook endpoint or user id).',
    from: 'Only events at or after this instant (a date is its UTC midnight).',
    to: 'Only events at or before this instant (a date is its UTC midnight).',
  });
}

function queryParameters(schema: SchemaObject, descriptions: Record<string, string>): SchemaObject[] {
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(schema.properties as Record<string, SchemaObject>).map(([name, member]) => ({
    name,
    in: 'query',
    required: required.has(name),
    description: descriptions[name] ?? '',
    schema: member,
  }));
}

const header = (description: string, schema: SchemaObject, required = true) => ({ description, required, schema });

export const componentHeaders = {
  XRequestId: header('The request id; log lines carry it too. Quote it when reporting a problem.', { type: 'string' }),
  CacheControl: header('Responses are never cached.', { type: 'string', const: 'no-store' }),
  Location: header('Path of the created job.', {
    type: 'string',
    format: 'uri-reference',
    examples: ['/v1/document/api/6f1c2c52-2f7e-4a55-9a57-7bb0f0ce43c1'],
  }),
  RetryAfter: header('Seconds to wait before retrying.', {
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: EMAIL_QUOTA_WINDOW_MS / 1000,
  }),
  RateLimitLimit: header('Report requests allowed per 10-minute window and organization.', {
    type: 'integer',
    const: REPORT_REQUEST_RATE_LIMIT.capacity,
  }),
  RateLimitRemaining: header('Report requests left in the window.', { type: 'integer', minimum: 0 }),
  RateLimitReset: header('Seconds until the next spent request returns to the window (0 when none is spent).', {
    type: 'integer',
    minimum: 0,
  }),
  EmailQuotaLimit: header(
    `Onboarding e-mails per hour allowed by the quota nearest to refusing: to this address within the organization (default ${DEFAULT_EMAIL_QUOTA.perRecipientPerHour}), or by the organization in the clock hour (default ${DEFAULT_EMAIL_QUOTA.perOrganizationPerHour.toLocaleString('en')}); both are deployment settings.`,
    { type: 'integer', minimum: 1 },
  ),
  EmailQuotaRemaining: header('E-mails left in that quota.', { type: 'integer', minimum: 0 }),
  EmailQuotaReset: header(
    'Seconds until that quota gives e-mails back: until the oldest e-mail to the address is an hour old, or until the clock hour ends (0 when none is spent).',
    { type: 'integer', minimum: 0, maximum: EMAIL_QUOTA_WINDOW_MS / 1000 },
  ),
  WebhookTestLimit: header('Webhook tests allowed per minute and organization.', {
    type: 'integer',
    const: WEBHOOK_TEST_RATE_LIMIT.capacity,
  }),
  WebhookTestRemaining: header('Webhook tests left in the window.', { type: 'integer', minimum: 0 }),
  WebhookTestReset: header('Seconds until the next spent test returns to the window (0 when none is spent).', {
    type: 'integer',
    minimum: 0,
    maximum: WEBHOOK_TEST_RATE_LIMIT.windowMs / 1000,
  }),
  IdempotentReplayed: header(
    'Present on a replayed response: the first response to this Idempotency-Key.',
    { type: 'string', const: 'true' },
    false,
  ),
  WwwAuthenticate: header('The authentication scheme.', { type: 'string', const: 'Bearer' }),
};

const commonHeaders = {
  'x-request-id': { $ref: '#/components/headers/XRequestId' },
  'cache-control': { $ref: '#/components/headers/CacheControl' },
};

export function jsonResponse(description: string, schemaName: string, headers: Record<string, unknown> = {}) {
  return {
    description,
    headers: { ...commonHeaders, ...headers },
    content: { 'application/json': { schema: ref(schemaName) } },
  };
}

const rateLimitHeaders = {
  'ratelimit-limit': { $ref: '#/components/headers/RateLimitLimit' },
  'ratelimit-remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'ratelimit-reset': { $ref: '#/components/headers/RateLimitReset' },
};
const emailQuotaHeaders = {
  'ratelimit-limit': { $ref: '#/components/headers/EmailQuotaLimit' },
  'ratelimit-remaining': { $ref: '#/components/headers/EmailQuotaRemaining' },
  'ratelimit-reset': { $ref: '#/components/headers/EmailQuotaReset' },
};
const webhookTestRateLimitHeaders = {
  'ratelimit-limit': { $ref: '#/components/headers/WebhookTestLimit' },
  'ratelimit-remaining': { $ref: '#/components/headers/WebhookTestRemaining' },
  'ratelimit-reset': { $ref: '#/components/headers/WebhookTestReset' },
};
export const successHeaders = {
  location: { $ref: '#/components/headers/Location' },
  idempotentReplayed: { 'idempotent-replayed': { $ref: '#/components/headers/IdempotentReplayed' } },
  rateLimit: rateLimitHeaders,
  emailQuota: emailQuotaHeaders,
  webhookTestRateLimit: webhookTestRateLimitHeaders,
};

export const componentResponses = {
  BadRequest: jsonResponse('Validation failed; `errors` lists every problem.', 'ValidationError'),
  Unauthorized: jsonResponse(
    'The bearer token is missing, malformed, expired or not for this service.',
    'StandardError',
    {
      'www-authenticate': { $ref: '#/components/headers/WwwAuthenticate' },
    },
  ),
  Forbidden: jsonResponse('The token lacks the operation’s scope.', 'StandardError'),
  NotFound: jsonResponse('Not found.', 'StandardError'),
  Conflict: jsonResponse('Conflict with the current state.', 'StandardError'),
  PayloadTooLarge: jsonResponse(`The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`, 'StandardError'),
  UnprocessableEntity: jsonResponse('The request cannot be processed as it is.', 'StandardError'),
  TooManyRequests: jsonResponse('Rate limit exceeded.', 'StandardError', {
    'Retry-After': { $ref: '#/components/headers/RetryAfter' },
    ...rateLimitHeaders,
  }),
  EmailQuotaExceeded: jsonResponse(
    'An onboarding e-mail quota is used up (the `RateLimit-*` headers describe the refusing one); nothing was stored or sent.',
    'StandardError',
    { 'Retry-After': { $ref: '#/components/headers/RetryAfter' }, ...emailQuotaHeaders },
  ),
  WebhookTestsExceeded: jsonResponse(
    'The organization’s webhook tests for this minute are used up; nothing was queued.',
    'StandardError',
    { 'Retry-After': { $ref: '#/components/headers/RetryAfter' }, ...webhookTestRateLimitHeaders },
  ),
  InternalServerError: jsonResponse(
    'Unexpected failure; the log line with the same x-request-id has the details.',
    'StandardError',
  ),
  ServiceUnavailable: jsonResponse(
    'A dependency is throttling or unavailable; retry after Retry-After seconds.',
    'StandardError',
    {
      'retry-after': { $ref: '#/components/headers/RetryAfter' },
    },
  ),
};

export const componentParameters = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the same key, organization and body within 24 hours replays the first successful response (status, body, headers, plus `Idempotent-Replayed: true`) without doing the work again. The same key with another body is 422; a retry while the first request still runs is 409. Errors are not stored.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  },
  JobId: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'The jobId. Anything that is not a job id is 404.',
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
  },
  WebhookEndpointId: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'The webhook endpoint’s id. Anything that is not an endpoint of the organization is 404.',
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
  },
  UserId: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'The user’s id (1 to 16 characters, as in user status and report requests). Anything else is 404.',
    schema: { type: 'string', minLength: 1, maxLength: 16 },
  },
  TokenId: {
    name: 'tokenId',
    in: 'path',
    required: true,
    description: 'The onboarding token’s id. Anything that is not a token id of the organization is 404.',
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
  },
};

/** Query parameters of GET /v1/webhooks/{id}/deliveries, from the schema the handler parses with. */
export function webhookDeliveryListParameters(): SchemaObject[] {
  const schema = jsonSchemaOf(webhookDeliveryListQuerySchema);
  const descriptions: Record<string, string> = {
    limit: 'Page size.',
    cursor: 'The `nextCursor` of the previous page (opaque).',
  };
  return [
    { $ref: '#/components/parameters/WebhookEndpointId' },
    ...Object.entries(schema.properties as Record<string, SchemaObject>).map(([name, member]) => ({
      name,
      in: 'query',
      required: false,
      description: descriptions[name] ?? '',
      schema: member,
    })),
  ];
}

function webhookSchemas(): Record<string, SchemaObject> {
  const eventTypes: SchemaObject = { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] };
  const endpointProperties = {
    id: { type: 'string', format: 'uuid' },
    url: { type: 'string', description: 'Where messages are POSTed.' },
    events: { type: 'array', items: eventTypes, minItems: 1 },
    createdAt: instant('When the endpoint was registered.'),
  };
  return {
    WebhookEndpointRequest: describe(
      jsonSchemaOf(webhookEndpointRequestSchema),
      'An https URL whose host is public (no private, loopback, link-local, unique-local, CGNAT, multicast or metadata address, also after resolving the name), and the events to receive. Unknown members are ignored.',
      { url: 'The receiver’s URL (`http` and loopback only in local mode).', events: 'Event types to receive.' },
    ),
    WebhookEndpointCreated: {
      type: 'object',
      required: ['id', 'url', 'events', 'secret', 'createdAt', 'disabled'],
      properties: {
        ...endpointProperties,
        disabled: { type: 'boolean', const: false },
        secret: {
          type: 'string',
          readOnly: true,
          pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
          description:
            'The Standard Webhooks signing secret (`whsec_` + base64 of 32 random bytes). Shown here only; the service stores it encrypted.',
        },
      },
    },
    WebhookEndpoint: {
      type: 'object',
      required: ['id', 'url', 'events', 'createdAt', 'disabled'],
      properties: {
        ...endpointProperties,
        disabled: {
          type: 'boolean',
          description: 'True once every message failed for 5 days; a disabled endpoint gets no messages.',
        },
      },
    },
    WebhookEndpointList: {
      type: 'object',
      required: ['results'],
      properties: { results: { type: 'array', items: ref('WebhookEndpoint'), maxItems: 10 } },
    },
    WebhookTestQueued: {
      type: 'object',
      required: ['eventId'],
      properties: { eventId: { type: 'string', description: 'The queued `webhook.test` event.' } },
    },
    WebhookDelivery: {
      type: 'object',
      required: [
        'messageId',
        'type',
        'status',
        'attempts',
        'lastResponseStatus',
        'createdAt',
        'lastAttemptAt',
        'nextAttemptAt',
      ],
      properties: {
        messageId: { type: 'string', description: 'The `webhook-id` header of every attempt of this message.' },
        type: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES, 'webhook.test'] },
        status: {
          type: 'string',
          enum: ['pending', 'delivered', 'failed'],
          description: 'pending until a 2XX (delivered) or the last retry failed (failed).',
        },
        attempts: { type: 'integer', minimum: 0 },
        lastResponseStatus: {
          type: ['integer', 'null'],
          format: 'int32',
          minimum: 100,
          maximum: 599,
          description: 'The receiver’s last HTTP status; null when it gave none (timeout, refused).',
        },
        createdAt: instant('When the event happened.'),
        lastAttemptAt: { type: ['string', 'null'], format: 'date-time' },
        nextAttemptAt: {
          type: ['string', 'null'],
          format: 'date-time',
          description: 'When a pending message is retried.',
        },
      },
    },
    AuditEvent: {
      type: 'object',
      required: ['eventId', 'occurredAt', 'action', 'actor', 'target', 'requestId', 'outcome'],
      properties: {
        eventId: { type: 'string' },
        occurredAt: instant('When the change committed.'),
        action: { type: 'string', enum: [...AUDIT_ACTIONS] },
        actor: {
          type: 'object',
          required: ['sub', 'clientId'],
          description: 'Who made the request, from the bearer token.',
          properties: {
            sub: { type: ['string', 'null'], description: 'The token’s subject (a person or a machine client).' },
            clientId: { type: ['string', 'null'], description: 'The OAuth client (`client_id` or `azp`).' },
          },
        },
        target: {
          type: 'object',
          required: ['type', 'id'],
          properties: {
            type: { type: 'string', enum: [...AUDIT_TARGET_TYPES] },
            id: { type: 'string', description: 'tokenId, jobId, webhook endpoint id or user id.' },
          },
        },
        requestId: { type: 'string', description: 'The request’s `x-request-id`.' },
        outcome: { type: 'string', const: 'success', description: 'Refused requests record nothing.' },
      },
    },
    AuditEventPage: cursorPage('AuditEvent'),
    WebhookDeliveryPage: cursorPage('WebhookDelivery'),
  };
}
