import { MAX_BODY_BYTES } from '#shared/http/middlewares.ts';
import { MAX_LIMIT } from '#shared/domain/users/user-status-query.ts';
import { MAX_SEARCH_TERMS } from '#shared/domain/users/user-search.ts';
import { REPORT_REQUEST_RATE_LIMIT } from '#shared/domain/limits/report-rate-limit.ts';
import { CONCURRENCY_RETRY_AFTER_SECONDS, DEFAULT_CONCURRENCY } from '#shared/domain/limits/concurrency.ts';
import {
  onboardingTokenListQuerySchema,
  onboardingTokenRedeemSchema,
  onboardingTokenRequestSchema,
} from '#shared/schemas/onboarding-token-schemas.ts';
import { reportJobListQuerySchema, reportJobRequestSchema } from '#shared/schemas/report-job-schemas.ts';
import { auditEventListQuerySchema } from '#shared/schemas/audit-schemas.ts';
import { userStatusRequestSchema } from '#shared/schemas/user-status-schemas.ts';
import { sandboxUsersRequestSchema } from '#shared/schemas/sandbox-schemas.ts';
import { sandboxEmailListQuerySchema } from '#shared/schemas/sandbox-mailbox-schemas.ts';
import { sandboxWebhookMessagesQuerySchema } from '#shared/schemas/sandbox-webhook-listener-schemas.ts';
import { sandboxEventRequestSchema } from '#shared/schemas/sandbox-event-schemas.ts';
import { webhookDeliveryListQuerySchema, webhookEndpointRequestSchema } from '#shared/schemas/webhook-schemas.ts';
import { WEBHOOK_TEST_RATE_LIMIT } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { DEFAULT_EMAIL_QUOTA, EMAIL_QUOTA_WINDOW_MS } from '#shared/domain/limits/email-quota.ts';
import { responseSchemas, type ResponseSchemaName } from '#shared/schemas/response-schemas.ts';
import { componentSchemasOf, jsonSchemaOf, type SchemaObject } from './valibot-json-schema.ts';

export type { SchemaObject };

/**
 * The document's components. Request bodies and query parameters are converted from the valibot
 * schemas the handlers validate with, response and error bodies from the response schemas in
 * shared/schemas/*-responses.ts (named in shared/schemas/response-schemas.ts). What is written here is
 * what no schema says: request wording, parameters, headers and the response objects.
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
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
          search: `Free text (an extension of the seed's filters): matches a user whose \`id\` equals it exactly, whose e-mail starts with it, or whose \`name\` has, for every white-space separated word of the text, a word starting with it. Case-insensitive (Unicode case folding, NFC), so \`zoë\` finds \`Zoë\`; a word of a name is also split at inner punctuation (\`brien\` finds \`O'Brien\`). Trimmed; at most ${MAX_SEARCH_TERMS} words.`,
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

export function componentSchemas(): Record<string, SchemaObject> {
  return {
    WebhookEndpointRequest: describe(
      jsonSchemaOf(webhookEndpointRequestSchema),
      'An https URL whose host is public (no private, loopback, link-local, unique-local, CGNAT, multicast or metadata address, also after resolving the name), and the events to receive. Unknown members are ignored.',
      { url: 'The receiver’s URL (`http` and loopback only in local mode).', events: 'Event types to receive.' },
    ),
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
    ReportJobRequest: describe(jsonSchemaOf(reportJobRequestSchema), 'The user to report on.', {
      userId: 'A user of the calling organization.',
    }),
    UserStatusRequest: userStatusRequest(),
    SandboxUsersRequest: describe(
      jsonSchemaOf(sandboxUsersRequestSchema),
      'User records as the import takes them (JSON Lines records, one member each).',
      { users: 'Up to 1,000 records, each with at least `id` (1 to 16 characters) and `created_at`.' },
    ),
    SandboxEventRequest: describe(jsonSchemaOf(sandboxEventRequestSchema), 'Unknown members are ignored.', {
      type: 'The event to trigger: a webhook event type, or `webhook.test`.',
    }),
    ...componentSchemasOf(responseSchemas),
  };
}

/** Query parameters of GET /v1/sandbox/emails, from the schema that handler parses its query string with. */
export function sandboxEmailListParameters(): SchemaObject[] {
  return queryParameters(jsonSchemaOf(sandboxEmailListQuerySchema), {
    to: 'Only e-mails to this address (compared lower-cased).',
    limit: 'Page size.',
    cursor: 'The `nextCursor` of the previous page (opaque).',
  });
}

/** Query parameters of GET /v1/sandbox/webhook-messages (the sandbox listener's feed). */
export function sandboxWebhookMessagesParameters(): SchemaObject[] {
  return queryParameters(jsonSchemaOf(sandboxWebhookMessagesQuerySchema), {
    after: 'The `cursor` of the previous answer (opaque). Without it: no messages, and a cursor that starts now.',
    wait: 'Seconds to wait for a message when there is none yet (long polling), 0 to 20.',
  });
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
  Sandbox: header(
    'On every answer to a sandbox token (its scopes hold `sandbox`), errors included: the request reached the organization’s sandbox, never its live data.',
    { type: 'string', const: 'true' },
    false,
  ),
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
  RefusalRateLimitLimit: header(
    'The size of the limit that refused: the organization’s request budget (its burst), or the operation’s own limit (report requests, onboarding e-mails, webhook tests). Absent when the refusal had no window to describe (a paused e-mail, the organization’s requests in flight, the edge).',
    { type: 'integer', minimum: 1 },
    false,
  ),
  RefusalRateLimitRemaining: header('What that limit has left.', { type: 'integer', minimum: 0 }, false),
  RefusalRateLimitReset: header(
    'Seconds until that limit gives a request back.',
    { type: 'integer', minimum: 0 },
    false,
  ),
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
  sandbox: { $ref: '#/components/headers/Sandbox' },
};

/** The headers of an answer without a body (204). */
export const noContentHeaders = {
  'x-request-id': { $ref: '#/components/headers/XRequestId' },
  sandbox: { $ref: '#/components/headers/Sandbox' },
};

export function jsonResponse(
  description: string,
  schemaName: ResponseSchemaName,
  headers: Record<string, unknown> = {},
) {
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
/** The `RateLimit-*` of a 429: whichever limit refused, so their sizes are not one route's. */
const refusalRateLimitHeaders = {
  'ratelimit-limit': { $ref: '#/components/headers/RefusalRateLimitLimit' },
  'ratelimit-remaining': { $ref: '#/components/headers/RefusalRateLimitRemaining' },
  'ratelimit-reset': { $ref: '#/components/headers/RefusalRateLimitReset' },
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
  Forbidden: jsonResponse(
    'The token lacks the operation’s scope; with the edge on, also a call that bypassed the edge or that one of its managed rules blocked.',
    'StandardError',
  ),
  NotFound: jsonResponse('Not found.', 'StandardError'),
  Conflict: jsonResponse('Conflict with the current state.', 'StandardError'),
  PayloadTooLarge: jsonResponse(`The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`, 'StandardError'),
  UnsupportedMediaType: jsonResponse(
    'The request body’s `Content-Type` is not JSON (`application/json` or a `+json` type); a body sent without a `Content-Type` is read as JSON.',
    'StandardError',
  ),
  UnprocessableEntity: jsonResponse('The request cannot be processed as it is.', 'StandardError'),
  TooManyRequests: jsonResponse(
    `A limit refused the request: the organization’s request budget, which every authenticated request spends (a request whose database statements run long, more), its requests in flight (${DEFAULT_CONCURRENCY.perOrganization} at once, ${DEFAULT_CONCURRENCY.databasePerOrganization} of them on user-status and erasure, by default; \`Retry-After: ${CONCURRENCY_RETRY_AFTER_SECONDS}\`), the operation’s own limit where it has one, or, with the edge on, its rate rules. Nothing was done; wait \`Retry-After\` seconds.`,
    'StandardError',
    { 'Retry-After': { $ref: '#/components/headers/RetryAfter' }, ...refusalRateLimitHeaders },
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
