import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { apiRoutes } from '#shared/config/api-routes.ts';
import { repoRoot } from '#lib/repo-root.ts';
import {
  buildOpenApiDocument,
  OPENAPI_DOCUMENT_FILE,
  operationOfRoute,
  serializeOpenApiDocument,
} from '#scripts/openapi/build-openapi-document.ts';
import { REPORT_ERROR_CODES, REPORT_JOB_STATUSES } from '#shared/domain/reports/report-job.ts';
import { USER_RECORD_FIELDS } from '#shared/domain/users/user-record.ts';
import { STATUS_NAMES } from '#shared/schemas/error-responses.ts';
import { onboardingTokenRequestSchema } from '#shared/schemas/onboarding-token-schemas.ts';
import { reportJobRequestSchema } from '#shared/schemas/report-job-schemas.ts';
import { userStatusRequestSchema } from '#shared/schemas/user-status-schemas.ts';
import { responseSchemas, type ResponseSchemaName } from '#shared/schemas/response-schemas.ts';
import { onboardingTokenSummaryBody } from '#shared/presenters/onboarding-token-bodies.ts';
import { webhookDeliveryBody, webhookEndpointBody } from '#shared/presenters/webhook-bodies.ts';
import type { ApiContext } from '#shared/http/middlewares.ts';
import { apiEvent, lambdaContext } from '#test/support/api-event.ts';
import { issuedTokenRecord } from '#test/support/fixtures/onboarding-tokens.ts';
import { completeReportJobBody, reportJobBodyIn } from '#test/support/fixtures/report-jobs.ts';
import { webhookDelivery, webhookEndpoint } from '#test/support/fixtures/webhooks.ts';
import { openApiValidator } from '#test/support/openapi-validator.ts';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
});

type Json = Record<string, any>;

const committedText = readFileSync(path.join(repoRoot, OPENAPI_DOCUMENT_FILE), 'utf8');
const committed = JSON.parse(committedText) as Json;
const built = buildOpenApiDocument() as Json;

const compileComponents = (document: Json) => openApiValidator(document).schema;

describe('openapi.json', () => {
  it('is exactly what npm run openapi generates from the route table and the handlers’ schemas (run it after changing either)', () => {
    expect(committed).toEqual(built);
    expect(committedText).toBe(serializeOpenApiDocument(built));
  });

  it('describes every route of shared/config/api-routes.ts once, and nothing else', () => {
    const documented = Object.entries(committed.paths as Json).flatMap(([route, operations]) =>
      Object.keys(operations as Json).map((method) => `${method.toUpperCase()} ${route}`),
    );
    expect(documented.sort()).toEqual(apiRoutes.map((route) => `${route.method} ${route.path}`).sort());
  });

  it('requires of each operation the scope its function enforces, and no token of the public route', () => {
    for (const route of apiRoutes) {
      const operation = committed.paths[route.path][route.method.toLowerCase()] as Json;
      const source = readFileSync(path.join(repoRoot, route.entry), 'utf8');
      if (route.public) {
        expect(source, route.entry).toContain('createPublicHandler(');
        expect(operation.security).toEqual([]);
        continue;
      }
      const enforced = /requiredScope: '([^']+)'/.exec(source)?.[1];
      expect(enforced, route.entry).toBeDefined();
      expect(operation['x-required-scope'], route.name).toBe(enforced);
      expect(operation.security).toEqual([{ bearerAuth: [enforced] }]);
      expect(operationOfRoute[route.name]?.scope).toBe(enforced);
    }
  });

  it('answers 401, 403, 429, 500 and 503 on every authenticated operation; 400, 413 and 415 wherever a body is read; 404 wherever a path names a resource; 400 wherever a query or header is validated', () => {
    for (const route of apiRoutes.filter((r) => !r.public)) {
      const operation = committed.paths[route.path][route.method.toLowerCase()] as Json;
      const statuses = Object.keys(operation.responses);
      expect(statuses, route.name).toEqual(expect.arrayContaining(['401', '403', '429', '500', '503']));
      if (operation.requestBody) expect(statuses, route.name).toEqual(expect.arrayContaining(['400', '413', '415']));
      else expect(statuses, route.name).not.toContain('415');
      const parameters = (operation.parameters ?? []) as Json[];
      if (route.path.includes('{')) expect(statuses, route.name).toContain('404');
      if (parameters.some((parameter) => parameter.in === 'query' || parameter.$ref?.endsWith('/IdempotencyKey')))
        expect(statuses, route.name).toContain('400');
    }
  });

  it('takes its enumerations from the code: job states, error codes, error names, user fields', () => {
    const schemas = committed.components.schemas as Json;
    expect(schemas.ReportJobState.enum).toEqual([...REPORT_JOB_STATUSES]);
    expect(Object.keys(schemas.ReportJob.discriminator.mapping).sort()).toEqual([...REPORT_JOB_STATUSES].sort());
    expect(schemas.FailedReportJob.properties.errorCode.enum).toEqual([...REPORT_ERROR_CODES]);
    expect(schemas.StandardError.properties.error.enum).toEqual([...new Set(Object.values(STATUS_NAMES))]);
    expect(Object.keys(schemas.UserStatusRecord.properties)).toEqual([...USER_RECORD_FIELDS]);
    expect(schemas.UserStatusRequest.properties.result_keys.items.enum).toEqual([...USER_RECORD_FIELDS]);
  });

  it('lists tokens with first_name and last_name, as create takes them; the camelCase names are deprecated aliases', () => {
    const summary = (committed.components.schemas as Json).OnboardingTokenSummary as Json;
    expect(summary.required).toEqual(expect.arrayContaining(['first_name', 'last_name', 'firstName', 'lastName']));
    expect(summary.properties.first_name.deprecated).toBeUndefined();
    expect(summary.properties.last_name.deprecated).toBeUndefined();
    expect(summary.properties.firstName.deprecated).toBe(true);
    expect(summary.properties.lastName.deprecated).toBe(true);
  });

  it('documents each 429 with Retry-After and the refusing limit’s RateLimit-*, and the rate-limited routes’ own RateLimit-* on their successes', () => {
    const resolve = (node: Json): Json =>
      node.$ref
        ? resolve(
            (node.$ref as string)
              .split('/')
              .slice(1)
              .reduce((at: Json, key) => at[key], committed),
          )
        : node;
    for (const route of apiRoutes.filter((r) => !r.public)) {
      const refused = resolve(committed.paths[route.path][route.method.toLowerCase()].responses['429'] as Json);
      expect(refused.headers['Retry-After'].$ref, route.name).toBe('#/components/headers/RetryAfter');
      // Any limit may refuse (the request budget on every route): the sizes are not one route's.
      expect(refused.headers['ratelimit-limit'].$ref, route.name).toBe('#/components/headers/RefusalRateLimitLimit');
      expect(refused.content['application/json'].schema.$ref).toBe('#/components/schemas/StandardError');
    }
    for (const [method, route, success, limit] of [
      ['post', '/v1/document/api', '202', 'RateLimitLimit'],
      ['post', '/v1/onboarding-token', '201', 'EmailQuotaLimit'],
      ['post', '/v1/onboarding-tokens/{tokenId}/resend', '201', 'EmailQuotaLimit'],
      ['post', '/v1/webhooks/{id}/test', '202', 'WebhookTestLimit'],
    ] as const) {
      const responses = committed.paths[route][method].responses as Json;
      expect(resolve(responses[success]).headers['ratelimit-limit'].$ref, route).toBe(`#/components/headers/${limit}`);
    }
    // An e-mail quota refusal or pause waits at most the hour; the webhook test limit is the contract's 10.
    expect(committed.components.headers.RetryAfter.schema.maximum).toBe(3600);
    expect(committed.components.headers.WebhookTestLimit.schema.const).toBe(10);
    // A paused e-mail and the edge refuse without a window to describe.
    expect(committed.components.headers.RefusalRateLimitLimit.required).toBe(false);
  });

  it('compiles every component schema with Ajv (draft 2020-12, strict)', () => {
    const schemaOf = compileComponents(committed);
    for (const name of Object.keys(committed.components.schemas)) expect(schemaOf(name), name).toBeTypeOf('function');
  });
});

describe('request schemas agree with the handlers’ valibot schemas', () => {
  const schemaOf = compileComponents(committed);
  const cases: Array<[string, v.GenericSchema, unknown[]]> = [
    [
      'OnboardingTokenRequest',
      onboardingTokenRequestSchema,
      [
        { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
        { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', extra: 1 },
        { email: 'ada@example.com', first_name: 'Ada' },
        { email: 'not-an-address', first_name: 'Ada', last_name: 'Lovelace' },
        { email: 'ada@example.com', first_name: '', last_name: 'Lovelace' },
        { email: 'ada@example.com', first_name: 'A'.repeat(101), last_name: 'Lovelace' },
        { email: 7, first_name: 'Ada', last_name: 'Lovelace' },
      ],
    ],
    [
      'ReportJobRequest',
      reportJobRequestSchema,
      [{ userId: 'u-1' }, { userId: '' }, { userId: 'x'.repeat(17) }, {}, { userId: 12 }],
    ],
    [
      'UserStatusRequest',
      userStatusRequestSchema,
      [
        {},
        { filters: { email: 'a@example.com', is_deleted: false, age: { gte: 18, lt: 65 } } },
        { filters: { dob: { gte: '2000-01-01' }, created_at: { lte: '2024-05-01T10:00:00Z' } } },
        { filters: { registration_status: 'active' } },
        { filters: { registration_status: 'For Review', mobile_registration_status: 'VERIFICATION_FAILED' } },
        { filters: { registration_status: 'Unknown' } },
        { filters: { age: {} } },
        { filters: { age: { between: 3 } } },
        { filters: { dob: { gte: 'yesterday' } } },
        { filters: { unknown_field: 'x' } },
        { filter: {} },
        { result_keys: ['id', 'dob', 'idcheck_pep_sanction_result'] },
        { result_keys: [] },
        { result_keys: ['id', 'shoe_size'] },
        { pagination: { limit: 1000, offset: 0 } },
        { pagination: { limit: 1001 } },
        { pagination: { limit: 2.5 } },
        { pagination: { offset: -1 } },
      ],
    ],
  ];

  it.each(cases)('%s accepts exactly the bodies the handler accepts', (name, valibotSchema, bodies) => {
    const validate = schemaOf(name);
    for (const body of bodies) {
      expect(validate(body), JSON.stringify(body)).toBe(v.safeParse(valibotSchema, body).success);
    }
  });

  it('documents the limit query parameter as the integer the handler parses, with its default', () => {
    const parameters = committed.paths['/v1/onboarding-tokens'].get.parameters as Json[];
    expect(parameters.find((p) => p.name === 'limit')).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    });
  });
});

describe('response components agree with the response schemas they are generated from', () => {
  const schemaOf = compileComponents(committed);
  const at = '2026-01-01T00:00:00.000Z';
  const uuid = '6f1c2c52-2f7e-4a55-9a57-7bb0f0ce43c1';
  const summary = onboardingTokenSummaryBody({ record: issuedTokenRecord(), status: 'Issued' });
  const job = { jobId: uuid, userId: 'u-1', templateVersion: 't', createdAt: at, updatedAt: at };
  const complete = completeReportJobBody();
  const failed = reportJobBodyIn('FAILED', { errorCode: 'TIMED_OUT' });
  const endpoint = webhookEndpointBody(webhookEndpoint());
  const delivery = webhookDeliveryBody(
    webhookDelivery({ type: 'webhook.test', status: 'failed', attempts: 8, lastResponseStatus: 500 }),
  );
  const auditEvent = {
    eventId: 'e-1',
    occurredAt: at,
    action: 'user.erased',
    actor: { sub: null, clientId: 'cli' },
    target: { type: 'user', id: 'u-1' },
    requestId: 'r-1',
    outcome: 'success',
  };
  const standard = { code: 404, timestamp: at, path: '/v1/x', method: 'GET', error: 'NOT_FOUND', message: 'no' };
  const page = { limit: 50, offset: 0, total: 1 };
  // For each response component: bodies the schema accepts and bodies it refuses.
  const cases: Array<[ResponseSchemaName, unknown[]]> = [
    [
      'OnboardingToken',
      [
        { onboarding_token: 'A'.repeat(32), tokenId: uuid, expires_at: at },
        { onboarding_token: 'A'.repeat(31), tokenId: uuid, expires_at: at },
        { onboarding_token: 'A'.repeat(32), tokenId: 'not-a-uuid', expires_at: at },
        { onboarding_token: 'A'.repeat(32), tokenId: uuid },
      ],
    ],
    [
      'OnboardingTokenPage',
      [
        { results: [summary, { ...summary, status: 'Revoked', revokedAt: at, revokedBy: 'sub' }], nextCursor: 'c' },
        { results: [], nextCursor: null },
        { results: [{ ...summary, status: 'Gone' }], nextCursor: null },
        { results: [{ ...summary, tokenHint: 'abc' }], nextCursor: null },
        { results: [summary] },
      ],
    ],
    [
      'RedeemedOnboardingToken',
      [
        {
          tokenId: uuid,
          email: 'a@example.com',
          first_name: 'A',
          last_name: 'B',
          status: 'Used',
          usedAt: at,
          expiresAt: at,
        },
        {
          tokenId: uuid,
          email: 'a@example.com',
          first_name: 'A',
          last_name: 'B',
          status: 'Issued',
          usedAt: at,
          expiresAt: at,
        },
      ],
    ],
    [
      'ReportJobCreated',
      [
        { ...job, status: 'PENDING' },
        { ...job, status: 'PENDING', userId: '' },
        { ...job, status: 'DONE' },
      ],
    ],
    [
      'ReportJob',
      [
        { ...job, status: 'IN_PROGRESS' },
        complete,
        failed,
        { ...complete, sha256: undefined },
        { ...complete, sizeBytes: 0 },
        { ...failed, errorCode: 'OOPS' },
        { ...job, status: 'DONE' },
      ],
    ],
    [
      'ReportJobPage',
      [
        { results: [complete, failed], nextCursor: null },
        { results: [{ ...failed, durationMs: -1 }], nextCursor: null },
      ],
    ],
    [
      'ReportDownload',
      [
        {
          url: 'https://s3.example.com/r.pdf?X-Amz-Signature=1',
          expiresInSeconds: 300,
          expiresAt: at,
          filename: 'report-u-1-20260101.pdf',
        },
        {
          url: 'https://s3.example.com/r.pdf',
          expiresInSeconds: 301,
          expiresAt: at,
          filename: 'report-u-1-20260101.pdf',
        },
        { url: 'https://s3.example.com/r.pdf', expiresInSeconds: 300, expiresAt: at, filename: 'report.pdf' },
      ],
    ],
    [
      'UserStatusPage',
      [
        { results: [{ id: 'u-1', age: null, registration_status: 'Activated', is_deleted: false }], pagination: page },
        { results: [{ id: 'u-1', shoe_size: 44 }], pagination: page },
        { results: [{ registration_status: 'Unknown' }], pagination: page },
        { results: [], pagination: { ...page, limit: 0 } },
      ],
    ],
    [
      'WebhookEndpointCreated',
      [
        { ...endpoint, disabled: false, secret: `whsec_${'A'.repeat(43)}=` },
        { ...endpoint, disabled: true, secret: `whsec_${'A'.repeat(43)}=` },
        { ...endpoint, disabled: false, secret: 'plain' },
      ],
    ],
    [
      'WebhookEndpointList',
      [{ results: [{ ...endpoint, disabled: true }] }, { results: [{ ...endpoint, events: [], disabled: true }] }],
    ],
    ['WebhookTestQueued', [{ eventId: 'evt_1' }, {}]],
    [
      'WebhookDeliveryPage',
      [
        {
          results: [delivery, { ...delivery, lastResponseStatus: null, status: 'pending', nextAttemptAt: at }],
          nextCursor: 'c',
        },
        { results: [{ ...delivery, lastResponseStatus: 600 }], nextCursor: null },
        { results: [{ ...delivery, type: 'report.started' }], nextCursor: null },
      ],
    ],
    [
      'AuditEventPage',
      [
        { results: [auditEvent], nextCursor: null },
        { results: [{ ...auditEvent, outcome: 'failure' }], nextCursor: null },
        { results: [{ ...auditEvent, actor: { sub: 1, clientId: null } }], nextCursor: null },
      ],
    ],
    [
      'StandardError',
      [
        standard,
        { ...standard, code: 409, error: 'CONFLICT', tokenStatus: 'Used' },
        { ...standard, error: 'TEAPOT' },
        { ...standard, status: 'DONE' },
        { ...standard, message: undefined },
      ],
    ],
    [
      'ValidationError',
      [
        { code: 400, errors: [{ field: 'firstName', code: 'isNotEmpty', hint: 'first_name must not be empty' }] },
        { code: 400, errors: [] },
        { code: 401, errors: [{ field: 'body', code: 'isJson', hint: 'h' }] },
      ],
    ],
  ];

  it.each(cases)('%s accepts exactly the bodies its schema accepts', (name, bodies) => {
    const validate = schemaOf(name);
    const verdicts = bodies.map((body) => v.safeParse(responseSchemas[name], body).success);
    for (const [index, body] of bodies.entries()) expect(validate(body), JSON.stringify(body)).toBe(verdicts[index]);
    expect(verdicts, 'a body the schema refuses').toContain(false);
  });

  it('has accepted bodies among those samples, so the comparisons above are not all refusals', () => {
    // Not per component: a new required member turns that component's first sample into a refusal
    // (still compared), without making this test one more file a new member has to touch.
    const accepted = cases.filter(([name, bodies]) =>
      bodies.some((body) => v.safeParse(responseSchemas[name], body).success),
    );
    expect(accepted.length).toBeGreaterThanOrEqual(cases.length - 2);
  });

  it('answers every JSON success and error with one of those components', () => {
    const named = new Set<string>(Object.keys(responseSchemas));
    const responses = [
      ...Object.values(committed.paths as Json).flatMap((operations) =>
        Object.values(operations as Json).flatMap((operation) => Object.values((operation as Json).responses as Json)),
      ),
      ...Object.values(committed.components.responses as Json),
    ] as Json[];
    const referenced = responses
      .map((response) => response.content?.['application/json']?.schema?.$ref as string | undefined)
      .filter((ref): ref is string => ref !== undefined)
      .map((ref) => ref.replace('#/components/schemas/', ''));
    expect(referenced.length).toBeGreaterThan(10);
    for (const name of referenced) expect(named, name).toContain(name);
  });
});

describe('GET /v1/openapi.json function', () => {
  it('answers 200 with the committed document, a request id and no-store, without a token', async () => {
    const { handler } = await import('#functions/get-openapi-document.ts');
    const response = await handler(
      apiEvent({ method: 'GET', path: '/v1/openapi.json' }),
      lambdaContext() as ApiContext,
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    });
    expect(response.headers['x-request-id']).toEqual(expect.any(String));
    expect(JSON.parse(response.body as string)).toEqual(committed);
  });
});

describe('the response checker the integration tests use', () => {
  const route = { method: 'GET', path: '/v1/document/api/{id}' };
  const complete = completeReportJobBody();
  const headers = new Headers({ 'x-request-id': 'r', 'cache-control': 'no-store' });

  it('accepts a documented response and refuses a COMPLETE job without its digest', () => {
    const validator = openApiValidator(committed, { strict: true });
    expect(validator.checkResponse(route, { status: 200, headers, body: complete })).toEqual([]);
    const { sha256: _sha256, ...withoutDigest } = complete;
    expect(validator.checkResponse(route, { status: 200, headers, body: withoutDigest })).not.toEqual([]);
  });

  it('in strict mode refuses a member the document does not name, which the document itself allows', () => {
    const body = { ...complete, surprise: true };
    expect(openApiValidator(committed).checkResponse(route, { status: 200, headers, body })).toEqual([]);
    expect(
      openApiValidator(committed, { strict: true }).checkResponse(route, { status: 200, headers, body }),
    ).not.toEqual([]);
  });

  it('refuses an undocumented status and a missing x-request-id', () => {
    const validator = openApiValidator(committed, { strict: true });
    expect(validator.checkResponse(route, { status: 418, headers, body: {} })).toEqual([
      `GET /v1/document/api/{id} does not list status 418`,
    ]);
    expect(
      validator.checkResponse(route, {
        status: 200,
        headers: new Headers({ 'cache-control': 'no-store' }),
        body: complete,
      }),
    ).toEqual(['header x-request-id is missing']);
  });
});
