import { apiRoutes } from '#shared/config/api-routes.ts';
import { DEFAULT_EMAIL_QUOTA } from '#shared/domain/limits/email-quota.ts';
import { REPORT_REQUEST_RATE_LIMIT } from '#shared/domain/limits/report-rate-limit.ts';
import { DEFAULT_REQUEST_BUDGET } from '#shared/domain/limits/request-budget.ts';
import { CONCURRENCY_RETRY_AFTER_SECONDS, DEFAULT_CONCURRENCY } from '#shared/domain/limits/concurrency.ts';
import { WEBHOOK_TEST_RATE_LIMIT } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { ROLE_SCOPES, ROLES, SCOPES, type Scope } from '#shared/domain/identity/staff-roles.ts';
import {
  componentHeaders,
  componentParameters,
  componentResponses,
  componentSchemas,
  jsonResponse,
  noContentHeaders,
  onboardingTokenListParameters,
  sandboxEmailListParameters,
  sandboxWebhookMessagesParameters,
  reportJobListParameters,
  successHeaders,
  webhookDeliveryListParameters,
  auditEventListParameters,
} from './components.ts';

/**
 * The OpenAPI 3.1 document of the service, built from the route table (every route has exactly one
 * operation here), the handlers' valibot request schemas and the response schemas beside them.
 * `npm run openapi` writes it to openapi.json; GET /v1/openapi.json serves that file.
 */

export const OPENAPI_DOCUMENT_FILE = 'openapi.json';

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 503;

const RESPONSE_OF_STATUS: Record<ErrorStatus, keyof typeof componentResponses> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'UnprocessableEntity',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
};

interface OperationSpec {
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  /** `public`: no bearer token (this document). */
  scope: Scope | 'public';
  parameters?: unknown[];
  requestBody?: string;
  /** The route accepts a missing body (user status: `{}` or nothing). */
  requestBodyOptional?: boolean;
  success: Record<string, unknown>;
  /**
   * Every error status this route can answer (contract §26: nothing undeclared), with a
   * route-specific description where the shared response's is too vague. Each is answered with
   * the shared response of its status (`components/responses`).
   */
  errors: Partial<Record<ErrorStatus, string | null>>;
}

/**
 * Statuses every authenticated route can answer: the token (401), its scope (403), the
 * organization's request budget, which every authenticated request spends (429), and failures.
 */
const AUTHENTICATED: Partial<Record<ErrorStatus, string | null>> = {
  401: null,
  403: null,
  429: null,
  500: null,
  503: null,
};

/** Statuses of a route that reads a request body: too large (413), not JSON (415). */
const BODY_ERRORS: Partial<Record<ErrorStatus, string | null>> = {
  413: null,
  415: null,
};

const BUDGET_REFUSAL = 'or the organization’s request budget is spent';

const EMAIL_QUOTA_REFUSAL = `More than ${DEFAULT_EMAIL_QUOTA.perRecipientPerHour} onboarding e-mails to this address, or more than ${DEFAULT_EMAIL_QUOTA.perOrganizationPerHour.toLocaleString('en')} in all, in an hour for this organization (the deployment's defaults), the organization’s e-mail is paused (bounces or complaints; \`message\` says so, \`Retry-After\` is an hour), ${BUDGET_REFUSAL}: nothing was stored or sent.`;

const IDEMPOTENCY_KEY_REFUSAL = 'The Idempotency-Key is not 1 to 255 printable ASCII characters.';

const operations: Record<string, OperationSpec> = {
  CreateOnboardingToken: {
    operationId: 'createOnboardingToken',
    tag: 'Onboarding tokens',
    summary: 'Create an onboarding token and e-mail it',
    description:
      'Creates a token for an end user, valid 14 days, e-mails it with the onboarding template and records it on the organization’s dashboard. If the e-mail cannot be sent, nothing is kept and the answer is 503.',
    scope: 'onboarding:write',
    parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
    requestBody: 'OnboardingTokenRequest',
    success: {
      201: jsonResponse('Token created and e-mailed.', 'OnboardingToken', {
        ...successHeaders.emailQuota,
        ...successHeaders.idempotentReplayed,
      }),
    },
    errors: {
      400: null,
      ...AUTHENTICATED,
      409: 'The organization already holds a live (Issued, unexpired) token for this e-mail, or a request with this Idempotency-Key is still running.',
      ...BODY_ERRORS,
      422: 'The Idempotency-Key was used with another body.',
      429: EMAIL_QUOTA_REFUSAL,
      503: 'The e-mail could not be sent (no token was kept) or a dependency is unavailable; retry after Retry-After seconds.',
    },
  },
  ListOnboardingTokens: {
    operationId: 'listOnboardingTokens',
    tag: 'Onboarding tokens',
    summary: 'List the organization’s onboarding tokens',
    description: 'The dashboard: the organization’s tokens, newest first, one page at a time.',
    scope: 'onboarding:read',
    parameters: onboardingTokenListParameters(),
    success: { 200: jsonResponse('A page of tokens.', 'OnboardingTokenPage') },
    errors: {
      400: '`limit` is not an integer from 1 to 100, `status` is not a token status, or `cursor` is not one this endpoint gave out.',
      ...AUTHENTICATED,
    },
  },
  RedeemOnboardingToken: {
    operationId: 'redeemOnboardingToken',
    tag: 'Onboarding tokens',
    summary: 'Redeem an onboarding token (single use)',
    description:
      'The organization’s registration backend exchanges the token the end user typed for the person it was issued to. The token becomes Used and its e-mail free; of concurrent redemptions exactly one succeeds.',
    scope: 'onboarding:redeem',
    requestBody: 'OnboardingTokenRedeemRequest',
    success: { 200: jsonResponse('Redeemed: the person the token was issued to.', 'RedeemedOnboardingToken') },
    errors: {
      400: null,
      ...AUTHENTICATED,
      404: 'No such token in the calling organization (a token of another organization is never confirmed).',
      409: 'The token is not Issued; `tokenStatus` says whether it is Used, Expired or Revoked.',
      ...BODY_ERRORS,
    },
  },
  RevokeOnboardingToken: {
    operationId: 'revokeOnboardingToken',
    tag: 'Onboarding tokens',
    summary: 'Revoke an onboarding token',
    description:
      'Issued -> Revoked; the e-mail is free for a new token at once. Revoking a Revoked token again changes nothing (204).',
    scope: 'onboarding:write',
    parameters: [{ $ref: '#/components/parameters/TokenId' }],
    success: {
      204: {
        description: 'Revoked (or already was).',
        headers: noContentHeaders,
      },
    },
    errors: {
      ...AUTHENTICATED,
      404: 'No such token in the calling organization.',
      409: 'The token is Used or Expired; `tokenStatus` says which.',
    },
  },
  ResendOnboardingToken: {
    operationId: 'resendOnboardingToken',
    tag: 'Onboarding tokens',
    summary: 'Issue a new token to the same person and e-mail it',
    description:
      'For an Issued or Expired token: a new token (new tokenId, 14 days) for the same person, the old one Revoked if it was Issued, the new one e-mailed. All or nothing: if the e-mail cannot be sent, the old token is as it was and the answer is 503.',
    scope: 'onboarding:write',
    parameters: [{ $ref: '#/components/parameters/TokenId' }, { $ref: '#/components/parameters/IdempotencyKey' }],
    success: {
      201: jsonResponse('New token created and e-mailed.', 'OnboardingToken', {
        ...successHeaders.emailQuota,
        ...successHeaders.idempotentReplayed,
      }),
    },
    errors: {
      400: IDEMPOTENCY_KEY_REFUSAL,
      ...AUTHENTICATED,
      404: 'No such token in the calling organization.',
      409: 'The token is Used or Revoked (`tokenStatus`), another live token holds the e-mail, or a request with this Idempotency-Key is still running.',
      422: 'The Idempotency-Key was used for another request.',
      429: `${EMAIL_QUOTA_REFUSAL} The old token is unchanged.`,
      503: 'The e-mail could not be sent (the old token is unchanged) or a dependency is unavailable; retry after Retry-After seconds.',
    },
  },
  CreateReportJob: {
    operationId: 'createReportJob',
    tag: 'Report jobs',
    summary: 'Request a PDF report about a user',
    description:
      'Queues a report job and answers at once. Checks, in order: token and scope, rate limit (every authenticated request counts: 10 per 10 minutes per organization), body, user exists, no open job for the user. Poll the job as described in the introduction.',
    scope: 'reports:write',
    parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
    requestBody: 'ReportJobRequest',
    success: {
      202: jsonResponse('Job queued (status PENDING); no report exists yet.', 'ReportJobCreated', {
        location: successHeaders.location,
        ...successHeaders.rateLimit,
        ...successHeaders.idempotentReplayed,
      }),
    },
    errors: {
      400: null,
      ...AUTHENTICATED,
      404: 'No user with this userId in the organization.',
      409: 'A job for this user is still PENDING or IN_PROGRESS (`jobId` names it), or a request with this Idempotency-Key is still running.',
      ...BODY_ERRORS,
      422: 'The Idempotency-Key was used with another body.',
      429: `More than ${REPORT_REQUEST_RATE_LIMIT.capacity} report requests in 10 minutes for this organization, ${BUDGET_REFUSAL}: nothing was queued.`,
    },
  },
  ListReportJobs: {
    operationId: 'listReportJobs',
    tag: 'Report jobs',
    summary: 'List the organization’s report jobs',
    description:
      'The organization’s jobs, newest first, one page at a time, optionally of one user; each as the job status. A job not COMPLETE or FAILED 5 minutes after creation is listed as FAILED with errorCode TIMED_OUT. A `userId` filter may answer a short page with a `nextCursor`: keep following it until it is null.',
    scope: 'reports:read',
    parameters: reportJobListParameters(),
    success: { 200: jsonResponse('A page of jobs.', 'ReportJobPage') },
    errors: {
      400: '`limit` is not an integer from 1 to 100, `userId` is not 1 to 16 characters, or `cursor` is not one this endpoint gave out.',
      ...AUTHENTICATED,
    },
  },
  GetReportJob: {
    operationId: 'getReportJob',
    tag: 'Report jobs',
    summary: 'Read a report job',
    description:
      'The job’s status. A job not COMPLETE or FAILED 5 minutes after creation is answered as FAILED with errorCode TIMED_OUT.',
    scope: 'reports:read',
    parameters: [{ $ref: '#/components/parameters/JobId' }],
    success: { 200: jsonResponse('The job.', 'ReportJob') },
    errors: {
      ...AUTHENTICATED,
      403: 'The token lacks the scope, or the job belongs to another organization.',
      404: 'No job with this id (or it expired after 30 days).',
    },
  },
  GetReportDownloadUrl: {
    operationId: 'getReportDownloadUrl',
    tag: 'Report jobs',
    summary: 'Get a fresh download address for a completed report',
    description:
      'A new pre-signed address on every call, valid 5 minutes; authorization and organization are checked on every call and nothing is cached. Compare the downloaded bytes with the job’s sizeBytes and sha256.',
    scope: 'reports:read',
    parameters: [{ $ref: '#/components/parameters/JobId' }],
    success: { 200: jsonResponse('The address.', 'ReportDownload') },
    errors: {
      ...AUTHENTICATED,
      403: 'The token lacks the scope, or the job belongs to another organization.',
      404: 'No job with this id (or it expired after 30 days).',
      422: 'The job is not COMPLETE: still PENDING or IN_PROGRESS (`status` names it), or FAILED (`errorCode` says why).',
    },
  },
  ListReportSigningCertificates: {
    operationId: 'listReportSigningCertificates',
    tag: 'Report signatures',
    summary: 'List the certificates reports are signed with',
    description:
      'Every report is signed (PAdES baseline B-B, RSA 2048 with SHA-256; reports signed before the switch from ECDSA P-256 keep verifying against their listed certificate) when it is generated. These are the certificates of the signing keys, the current one first; after a key rotation the earlier ones stay listed, so that a report signed before it still verifies. Check a downloaded report offline with `onboarding reports verify <file>`, `pdfsig` or a PDF reader, and compare its signer certificate with this list (docs/reports.md).',
    scope: 'reports:read',
    success: { 200: jsonResponse('The certificates, current first.', 'ReportSigningCertificateList') },
    errors: { ...AUTHENTICATED },
  },
  QueryUserStatus: {
    operationId: 'queryUserStatus',
    tag: 'User status',
    summary: 'Query user records',
    description:
      'User records of the organization matching every filter, with the requested fields, ordered by created_at then id, one page at a time.',
    scope: 'users:read',
    requestBody: 'UserStatusRequest',
    requestBodyOptional: true,
    success: { 200: jsonResponse('A page of records.', 'UserStatusPage') },
    errors: { 400: null, ...AUTHENTICATED, ...BODY_ERRORS },
  },
  EraseUser: {
    operationId: 'eraseUser',
    tag: 'Users',
    summary: 'Erase a user (GDPR)',
    description:
      'Erases the user’s record, every report job of the user and its PDF (a job still open ends FAILED with errorCode USER_ERASED; that record, ids only, stays until it expires), and every onboarding token issued to the user’s e-mail address. For a minute no report can be requested for this id. The audit event `user.erased` keeps the user id and nothing else. Idempotent and resumable: after a 503, retry; once the erasure is complete the id is unknown (404).',
    scope: 'users:erase',
    parameters: [{ $ref: '#/components/parameters/UserId' }],
    success: {
      204: {
        description: 'Erased.',
        headers: noContentHeaders,
      },
    },
    errors: {
      ...AUTHENTICATED,
      404: 'No such user in the calling organization: unknown, already erased, or another organization’s.',
      503: 'A dependency stalled or is unavailable; part of the erasure may be done, the user record is still there: retry after Retry-After seconds to finish it.',
    },
  },
  CreateWebhookEndpoint: {
    operationId: 'createWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Register a webhook endpoint',
    description:
      'Registers a URL to receive Standard Webhooks messages for the chosen events. The host is resolved and every address checked (no private, loopback, link-local, unique-local, CGNAT, multicast or cloud-metadata address); the answer carries the signing secret, the only time it is shown.',
    scope: 'webhooks:manage',
    requestBody: 'WebhookEndpointRequest',
    success: { 201: jsonResponse('Registered; keep the secret.', 'WebhookEndpointCreated') },
    errors: {
      400: 'Invalid body, or `url` is not https or reaches a non-public address (field `url`, code `isIn`).',
      ...AUTHENTICATED,
      409: 'The organization already has 10 endpoints.',
      ...BODY_ERRORS,
    },
  },
  ListWebhookEndpoints: {
    operationId: 'listWebhookEndpoints',
    tag: 'Webhooks',
    summary: 'List the organization’s webhook endpoints',
    description: 'Every endpoint of the organization, oldest first, never with its secret.',
    scope: 'webhooks:manage',
    success: { 200: jsonResponse('The endpoints.', 'WebhookEndpointList') },
    errors: { ...AUTHENTICATED },
  },
  DeleteWebhookEndpoint: {
    operationId: 'deleteWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Delete a webhook endpoint',
    description: 'The endpoint gets no more messages; retries already queued for it are dropped.',
    scope: 'webhooks:manage',
    parameters: [{ $ref: '#/components/parameters/WebhookEndpointId' }],
    success: {
      204: {
        description: 'Deleted.',
        headers: noContentHeaders,
      },
    },
    errors: { ...AUTHENTICATED, 404: 'No such endpoint in the calling organization.' },
  },
  TestWebhookEndpoint: {
    operationId: 'testWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Send a webhook.test message to an endpoint',
    description:
      'Queues a `webhook.test` event for this endpoint alone; it is delivered, retried and logged like any other message.',
    scope: 'webhooks:manage',
    parameters: [{ $ref: '#/components/parameters/WebhookEndpointId' }],
    success: { 202: jsonResponse('Queued.', 'WebhookTestQueued', successHeaders.webhookTestRateLimit) },
    errors: {
      ...AUTHENTICATED,
      404: 'No such endpoint in the calling organization.',
      429: `More than ${WEBHOOK_TEST_RATE_LIMIT.capacity} webhook tests in a minute for this organization (every authenticated request counts), ${BUDGET_REFUSAL}: nothing was queued.`,
    },
  },
  ListWebhookDeliveries: {
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'Read an endpoint’s delivery log',
    description:
      'One entry per message sent to the endpoint, newest first, with its attempts and last answer. Entries are kept 30 days.',
    scope: 'webhooks:manage',
    parameters: webhookDeliveryListParameters(),
    success: { 200: jsonResponse('A page of deliveries.', 'WebhookDeliveryPage') },
    errors: {
      400: '`limit` is not an integer from 1 to 100, or `cursor` is not one this endpoint gave out.',
      ...AUTHENTICATED,
      404: 'No such endpoint in the calling organization.',
    },
  },
  ListAuditEvents: {
    operationId: 'listAuditEvents',
    tag: 'Audit',
    summary: 'Read the organization’s audit trail',
    description:
      'Who did what to which resource: one event per state-changing request (tokens created, redeemed, revoked, resent; reports requested; download addresses issued; webhooks created, deleted, tested; users erased), newest first. Events name people by ids only and are kept 400 days. A filtered page may be short with a `nextCursor`: keep following it until it is null.',
    scope: 'audit:read',
    parameters: auditEventListParameters(),
    success: { 200: jsonResponse('A page of events.', 'AuditEventPage') },
    errors: {
      400: '`limit` is not an integer from 1 to 100, `action` is not a known action, `from`/`to` are not ISO 8601 dates or timestamps, or `cursor` is not one this endpoint gave out.',
      ...AUTHENTICATED,
    },
  },
  ListSandboxScenarios: {
    operationId: 'listSandboxScenarios',
    tag: 'Sandbox',
    summary: 'List the sandbox’s scenario users',
    description:
      'The scenario users every sandbox holds without an import (`sbx-clear`, `sbx-minor`, `sbx-pep`, `sbx-sanctions`, `sbx-scripts`, `sbx-fail`, `sbx-slow`): each with the record user-status returns for it and what its report job does (when it completes and on how many pages, or the code it fails with). They are listed, filtered and paged by user-status like imported users, and come back after the sandbox is wiped. The worker acts on the same definition this listing is made from. Only a sandbox token reaches this route: any other gets 404.',
    scope: 'users:read',
    success: { 200: jsonResponse('Every scenario user.', 'SandboxScenarioList') },
    errors: { ...AUTHENTICATED, 404: 'The token is not a sandbox token: the sandbox’s routes do not exist for it.' },
  },
  WipeSandbox: {
    operationId: 'wipeSandbox',
    tag: 'Sandbox',
    summary: 'Wipe the sandbox',
    description:
      'Deletes every onboarding token, kept e-mail, report job, report, user, webhook endpoint and delivery of the organization’s sandbox, in the background: within 60 s they are gone, and the scenario users are there as before. Live data is never touched. Answers at once with the wipe under way; a second request while it runs answers the same wipe. The sandbox’s budgets (rate limits, e-mail quotas) are not reset. Only a sandbox token reaches this route: any other gets 404.',
    scope: 'users:erase',
    success: { 202: jsonResponse('The wipe under way.', 'SandboxWipe') },
    errors: { ...AUTHENTICATED, 404: 'The token is not a sandbox token: the sandbox’s routes do not exist for it.' },
  },
  OpenSandboxWebhookListener: {
    operationId: 'openSandboxWebhookListener',
    tag: 'Sandbox',
    summary: 'Open the sandbox’s webhook listener',
    description:
      'The sandbox’s listener: a webhook endpoint subscribed to every event type whose messages are not POSTed anywhere but kept for `GET /v1/sandbox/webhook-messages`, which `onboarding listen` reads and forwards to a URL on the developer’s machine. Made on the first call (it is one of the sandbox’s at most 10 endpoints); every call answers it with its signing secret, the same until it is deleted (`DELETE /v1/webhooks/{id}`) or the sandbox wiped. Only a sandbox token reaches this route: any other gets 404.',
    scope: 'webhooks:manage',
    success: { 200: jsonResponse('The listener and its secret.', 'SandboxWebhookListener') },
    errors: {
      ...AUTHENTICATED,
      404: 'The token is not a sandbox token: the sandbox’s routes do not exist for it.',
      409: 'The sandbox already has 10 webhook endpoints.',
    },
  },
  ListSandboxWebhookMessages: {
    operationId: 'listSandboxWebhookMessages',
    tag: 'Sandbox',
    summary: 'Read the sandbox listener’s messages (long polling)',
    description:
      'The messages the sandbox’s listener received after `after`, oldest first, each with the exact body a delivery carries and its Standard Webhooks headers signed now with the listener’s secret, so a receiver verifies a forwarded message as a delivered one. With none yet, waits up to `wait` seconds for one. Without `after`, answers at once with no messages and a cursor that starts now. A message is read once it is 2 s old (so none logged late is ever behind a cursor); at least once: the same `webhook-id` may come twice. Only a sandbox token reaches this route: any other gets 404.',
    scope: 'webhooks:manage',
    parameters: sandboxWebhookMessagesParameters(),
    success: { 200: jsonResponse('Messages after the cursor, and the next cursor.', 'SandboxWebhookMessages') },
    errors: {
      400: '`wait` is not an integer from 0 to 20, or `after` is not a cursor this route gave out.',
      ...AUTHENTICATED,
      404: 'The token is not a sandbox token, or the sandbox’s listener is not open (`POST /v1/sandbox/webhook-listener`).',
    },
  },
  ListSandboxEmails: {
    operationId: 'listSandboxEmails',
    tag: 'Sandbox',
    summary: 'Read the e-mails the sandbox kept instead of sending',
    description:
      'The sandbox sends no e-mail: each onboarding e-mail it would have sent is kept 7 days, with the token it carries, and listed here newest first, optionally only those to one address. An e-mail to `bounce@simulator.amazonses.com` or `complaint@simulator.amazonses.com` counts as a bounce or a complaint in the sandbox’s own e-mail pause. Only a sandbox token reaches this route: any other gets 404.',
    scope: 'onboarding:read',
    parameters: sandboxEmailListParameters(),
    success: { 200: jsonResponse('A page of kept e-mails.', 'SandboxEmailPage') },
    errors: {
      400: '`to` is not an e-mail address, `limit` is not an integer from 1 to 100, or `cursor` is not one this endpoint gave out for the same `to`.',
      ...AUTHENTICATED,
      404: 'The token is not a sandbox token: the sandbox’s routes do not exist for it.',
    },
  },
  TriggerSandboxEvent: {
    operationId: 'triggerSandboxEvent',
    tag: 'Sandbox',
    summary: 'Trigger a webhook event in the sandbox',
    description:
      'Makes the real sandbox objects behind the event, through the live routes’ own steps, and answers with the object the message’s `data` describes: `report.completed` requests a report of `sbx-clear` (it completes), `report.failed` one of `sbx-fail` (it fails), `onboarding_token.used` and `onboarding_token.revoked` issue a token (its e-mail is kept by the sandbox’s mailbox, never sent) then redeem or revoke it, and `webhook.test` sends a test message to each of the sandbox’s endpoints. The message reaches the sandbox’s subscribed endpoints signed, logged in their deliveries and retried exactly like a live one. Besides `webhooks:manage`, the token needs the scopes of the objects’ own routes: `reports:write` for report events, `onboarding:write` for token events and `onboarding:redeem` for `onboarding_token.used`. Only a sandbox token reaches this route: any other gets 404.',
    scope: 'webhooks:manage',
    requestBody: 'SandboxEventRequest',
    success: { 202: jsonResponse('The objects are made; the message follows.', 'SandboxEvent') },
    errors: {
      400: '`type` is not one of the webhook event types or `webhook.test`.',
      ...AUTHENTICATED,
      403: 'The token lacks `webhooks:manage` or a scope the event’s objects need (`message` names it).',
      404: 'The token is not a sandbox token: the sandbox’s routes do not exist for it.',
      409: '`webhook.test` and the sandbox has no webhook endpoint, or `sbx-clear` / `sbx-fail` still has an open report job (`jobId` names it).',
      ...BODY_ERRORS,
      429: `${EMAIL_QUOTA_REFUSAL} (token events: each issues a token and keeps its e-mail)`,
    },
  },
  ExpireSandboxOnboardingToken: {
    operationId: 'expireSandboxOnboardingToken',
    tag: 'Sandbox',
    summary: 'Expire a sandbox onboarding token now',
    description:
      'Issued -> Expired at once (its `expiresAt` becomes now) and its e-mail free for a new token, so an integration can meet an expired token without waiting 14 days. No webhook event: expiry has none. Only a sandbox token reaches this route: any other gets 404.',
    scope: 'onboarding:write',
    parameters: [{ $ref: '#/components/parameters/TokenId' }],
    success: { 200: jsonResponse('The token as its list row shows it, now Expired.', 'OnboardingTokenSummary') },
    errors: {
      ...AUTHENTICATED,
      404: 'The token is not a sandbox token, or no such token in the sandbox.',
      409: 'The token is not Issued; `tokenStatus` says whether it is Used, Expired or Revoked.',
    },
  },
  ImportSandboxUsers: {
    operationId: 'importSandboxUsers',
    tag: 'Sandbox',
    summary: 'Add users to the sandbox',
    description:
      'Stores up to 1,000 user records in the sandbox, each validated as the import validates it (a stored id is replaced). A record that fails is a 400 naming it (`users[3]: created_at is required`), and nothing of the call is stored. Ids starting `sbx-` are the scenario users’ and are refused. Only a sandbox token reaches this route: any other gets 404.',
    scope: 'users:erase',
    requestBody: 'SandboxUsersRequest',
    success: { 201: jsonResponse('Every record stored.', 'SandboxUsersImported') },
    errors: {
      400: 'A record failed validation (each problem names `users[i]`), or more than 1,000 records: nothing was stored.',
      ...AUTHENTICATED,
      ...BODY_ERRORS,
      404: 'The token is not a sandbox token: the sandbox’s routes do not exist for it.',
    },
  },
  GetOpenApiDocument: {
    operationId: 'getOpenApiDocument',
    tag: 'Documentation',
    summary: 'This document',
    description: 'The OpenAPI 3.1 description of this API. Needs no token.',
    scope: 'public',
    success: {
      200: {
        description: 'The document.',
        headers: {
          'x-request-id': { $ref: '#/components/headers/XRequestId' },
          'cache-control': { $ref: '#/components/headers/CacheControl' },
        },
        content: { 'application/json': { schema: { type: 'object', description: 'An OpenAPI 3.1 document.' } } },
      },
    },
    errors: {
      403: 'With the edge on: the call bypassed it (no valid `x-origin-verify`), or one of its managed rules blocked it.',
      429: 'With the edge on: more requests from this client address than its rate rule allows.',
      500: null,
    },
  },
};

const TAGS = [
  { name: 'Onboarding tokens', description: 'Tokens e-mailed to end users, and the organization’s dashboard of them.' },
  { name: 'Report jobs', description: 'Asynchronous PDF reports about a user: request, poll, download.' },
  {
    name: 'Report signatures',
    description: 'The certificates that check the signature every report carries.',
  },
  { name: 'User status', description: 'User records with filters, field selection and pagination.' },
  { name: 'Users', description: 'Erasing a user and everything the service keeps about them.' },
  {
    name: 'Webhooks',
    description:
      'Standard Webhooks messages `{type, timestamp, livemode, data}` for report and onboarding-token events (`livemode` false from the organization’s sandbox, true from live), signed with the endpoint’s secret (`webhook-id`, `webhook-timestamp`, `webhook-signature`); at least once, retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h with the same `webhook-id`.',
  },
  { name: 'Audit', description: 'The organization’s audit trail: who did what, by ids.' },
  {
    name: 'Sandbox',
    description:
      'The organization’s sandbox (a token whose scopes hold `sandbox`): scenario users with deterministic outcomes and its own test data.',
  },
  { name: 'Documentation', description: 'This document.' },
];

const SCOPE_USE: Record<Scope, string> = {
  'onboarding:write': 'create, revoke and resend onboarding tokens',
  'onboarding:read': 'list onboarding tokens',
  'onboarding:redeem': 'redeem onboarding tokens (the organization’s registration backend)',
  'reports:write': 'request report jobs',
  'reports:read': 'read report jobs, get download addresses and the report signing certificates',
  'users:read': 'query user status',
  'users:erase': 'erase a user and every report and onboarding token about them',
  'audit:read': 'read the organization’s audit trail',
  'webhooks:manage': 'register, list, delete and test webhook endpoints and read their delivery log',
};

const INTRODUCTION = `Organization-scoped HTTP API: onboarding tokens e-mailed to end users, asynchronous PDF reports
about a user, and user-status queries. Every body is JSON (\`application/json; charset=utf-8\`); every
response carries \`x-request-id\` and \`Cache-Control: no-store\`. Additive members and headers may
appear in responses at any time; clients ignore what they do not know.

## Authentication

\`Authorization: Bearer <JWT>\` on every operation except this document. The token names one
organization (claim \`org_id\`), and every read and write is confined to it. The token's \`scope\`
(space-separated) or \`scp\` (array) must hold the operation's scope, given in each operation's
\`security\` requirement and its \`x-required-scope\`; a valid token without it is 403.

A token whose scopes also hold \`sandbox\` (an organization's sandbox client's) reaches the
organization's sandbox alone, on every operation: its own data, budgets and limits, and no e-mail
sent. Every answer to it, errors included, carries \`Sandbox: true\`; the bodies are the same.

| scope | allows |
|---|---|
${SCOPES.map((scope) => `| \`${scope}\` | ${SCOPE_USE[scope]} |`).join('\n')}

A staff member's token names their role (claim \`role\` unless the deployment names another; in
Cognito, the user's groups in \`cognito:groups\`) and holds only that role's scopes; a token whose
role claim names no role holds no scope (403 everywhere).

| role | scopes |
|---|---|
${ROLES.map((role) => `| \`${role}\` | ${ROLE_SCOPES[role].map((scope) => `\`${scope}\``).join(' ')} |`).join('\n')}

## Errors

400 has the validation body (\`ValidationError\`: every problem at once); every other error the
standard body (\`StandardError\`). A path without a route is 404; a known path with another method
is 405 with \`Allow\`. 5XX bodies never name internals: quote the \`x-request-id\`.

Each operation lists every status it can answer. Every authenticated operation can answer 401
(token), 403 (scope), 429 (the organization's request budget, its requests in flight, and the
operation's own limit where it has one: wait \`Retry-After\` seconds), 500 and 503 (retry after \`Retry-After\` seconds); one
that reads a body also 400, 413 (over 64 KiB) and 415 (a \`Content-Type\` other than JSON; a body
without one is read as JSON); one that names a resource 404. API Gateway's own answers (its stage
throttle's 429, a 5XX when a function could not run) carry its body \`{"message": ...}\` instead.

## Report jobs: polling

After \`POST /v1/document/api\` (202), poll \`GET /v1/document/api/{id}\`:

1. every 3 to 5 seconds (jittered) for the first 30 seconds;
2. then every 10 to 15 seconds;
3. a job that is not COMPLETE within 5 minutes has failed (the service itself marks it FAILED with
   errorCode TIMED_OUT).

Wait at least \`Retry-After\` seconds after a 429 or 503. Then \`GET /v1/document/api/{id}/url\` gives
a download address valid 5 minutes; if it has expired (object storage answers 403), ask for a new one.

## Limits

Every authenticated request spends the organization's request budget (${DEFAULT_REQUEST_BUDGET.ratePerSecond} a second, bursts of
${DEFAULT_REQUEST_BUDGET.burst}, by default; a request whose database statements run long costs more): beyond it, 429 with
\`Retry-After\` and \`RateLimit-*\`. It may have ${DEFAULT_CONCURRENCY.perOrganization} requests in flight at once, ${DEFAULT_CONCURRENCY.databasePerOrganization} of them on
\`POST /v1/user-status\` and \`DELETE /v1/users/{id}\`, by default: one more is 429 with \`Retry-After: ${CONCURRENCY_RETRY_AFTER_SECONDS}\`.
\`POST /v1/document/api\`: 10 requests per 10 minutes per
organization (429 with \`Retry-After\`; \`RateLimit-*\` headers on 202 and 429); one open job per
user (409). Onboarding e-mails (\`POST /v1/onboarding-token\` and resend): 5 per hour to one address
and 1,000 per clock hour per organization by default (429 with \`Retry-After\`, nothing stored or
sent; \`RateLimit-*\` on 201 and 429 describe the quota nearest to refusing).
\`POST /v1/webhooks/{id}/test\`: 10 per minute per organization (429); 10 webhook endpoints per
organization (409). Request bodies: 64 KiB (413), JSON (415).`;

function operationObject(spec: OperationSpec): Record<string, unknown> {
  const responses: Record<string, unknown> = { ...spec.success };
  for (const [status, description] of Object.entries(spec.errors).sort(([a], [b]) => Number(a) - Number(b))) {
    const reference = { $ref: `#/components/responses/${RESPONSE_OF_STATUS[Number(status) as ErrorStatus]}` };
    responses[status] = description ? { ...reference, description } : reference;
  }
  const scopeNote = spec.scope === 'public' ? 'No token needed.' : `Scope: \`${spec.scope}\`.`;
  return {
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    description: `${spec.description}\n\n${scopeNote}`,
    ...(spec.scope === 'public'
      ? { security: [] }
      : { security: [{ bearerAuth: [spec.scope] }], 'x-required-scope': spec.scope }),
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.requestBody
      ? {
          requestBody: {
            required: !spec.requestBodyOptional,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${spec.requestBody}` } } },
          },
        }
      : {}),
    responses,
  };
}

/** The operation the document gives each route (by route name), for tests and the client. */
export const operationOfRoute: Readonly<Record<string, Pick<OperationSpec, 'operationId' | 'scope'>>> = operations;

export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of apiRoutes) {
    const spec = operations[route.name];
    if (!spec)
      throw new Error(
        `route ${route.name} (${route.method} ${route.path}) has no operation in scripts/openapi/build-openapi-document.ts`,
      );
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationObject(spec);
  }
  const unrouted = Object.keys(operations).filter((name) => !apiRoutes.some((route) => route.name === name));
  if (unrouted.length > 0)
    throw new Error(`operations without a route in shared/config/api-routes.ts: ${unrouted.join(', ')}`);

  return withIntegerFormats({
    openapi: '3.1.0',
    info: {
      title: 'Onboarding, report and user-status API',
      version: '1.0.0',
      summary: 'Onboarding tokens, asynchronous PDF reports and user-status queries, per organization.',
      description: INTRODUCTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      {
        // With the edge on (production's default) clients call CloudFront; the API's own address refuses them.
        url: 'https://{host}',
        description:
          'A deployed stage, production or staging: the host of its ApiUrl output (CloudFront’s where the edge is on); the document a stage serves names its own',
        'x-internal': false,
        variables: {
          host: { default: 'd111111abcdef8.cloudfront.net', description: 'Host of the stage’s ApiUrl output' },
        },
      },
      { url: 'http://127.0.0.1:3000', description: 'The local stack (`npm start`)', 'x-internal': true },
    ],
    security: [{ bearerAuth: [] }],
    tags: TAGS,
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'A JWT (RS256 or ES256) from the organization’s token issuer, with the configured issuer and audience, an expiry, the organization claim and the operation’s scope. Verified as RFC8725 (JWT Best Current Practices) recommends: algorithms allow-listed (no `none`, no HMAC), issuer and audience checked, expiry required.',
        },
      },
      schemas: componentSchemas(),
      parameters: componentParameters,
      headers: componentHeaders,
      responses: componentResponses,
    },
  });
}

/**
 * Every integer this API reads or writes (statuses, sizes, milliseconds, counts, seconds, page
 * bounds) fits 32 bits; saying so lets generated clients pick the right type.
 */
function withIntegerFormats<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withIntegerFormats) as T;
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node).map(([key, value]) => [key, withIntegerFormats(value)] as const);
  const object = Object.fromEntries(entries) as Record<string, unknown>;
  const integer = object.type === 'integer' || (Array.isArray(object.type) && object.type.includes('integer'));
  if (integer && object.format === undefined) object.format = 'int32';
  return object as T;
}

/** The file's exact text: two-space indentation and a final newline. */
export function serializeOpenApiDocument(document: Record<string, unknown>): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
