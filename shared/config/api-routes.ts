/**
 * The HTTP API's routes: one Lambda entry point per route. Plain data, shared by the CDK API
 * construct and the local router so the two can never disagree. No CDK imports here.
 */
/** Every API function's Lambda timeout unless its route sets `timeoutSeconds`. */
export const DEFAULT_API_TIMEOUT_SECONDS = 10;

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface ApiRoute {
  method: HttpMethod;
  /** API Gateway route path; `{name}` marks a path parameter. */
  path: string;
  /** Entry file, relative to the repository root. */
  entry: string;
  /** Construct id and log-friendly name. */
  name: string;
  /** Needs no bearer token: the function gets no token settings and its route no authorization. */
  public?: boolean;
  /** Lambda timeout when the default 10 s is too short (at most 29: the HTTP API waits 30 s). */
  timeoutSeconds?: number;
  /** Runs statements on the users database: its requests hold the organization's database concurrency slots too (contract §25). */
  runsDatabaseStatements?: boolean;
  /** Exists for sandbox tokens alone: any other token gets 404, as for an unknown route (contract §23). */
  sandboxOnly?: boolean;
}

export const onboardingRoutes = [
  {
    method: 'POST',
    path: '/v1/onboarding-token',
    entry: 'functions/create-onboarding-token.ts',
    name: 'CreateOnboardingToken',
  },
  {
    method: 'GET',
    path: '/v1/onboarding-tokens',
    entry: 'functions/list-onboarding-tokens.ts',
    name: 'ListOnboardingTokens',
  },
  {
    method: 'POST',
    path: '/v1/onboarding-token/redeem',
    entry: 'functions/redeem-onboarding-token.ts',
    name: 'RedeemOnboardingToken',
  },
  {
    method: 'DELETE',
    path: '/v1/onboarding-tokens/{tokenId}',
    entry: 'functions/revoke-onboarding-token.ts',
    name: 'RevokeOnboardingToken',
  },
  {
    method: 'POST',
    path: '/v1/onboarding-tokens/{tokenId}/resend',
    entry: 'functions/resend-onboarding-token.ts',
    name: 'ResendOnboardingToken',
  },
] as const satisfies readonly ApiRoute[];

export const reportRoutes = [
  { method: 'POST', path: '/v1/document/api', entry: 'functions/create-report-job.ts', name: 'CreateReportJob' },
  { method: 'GET', path: '/v1/document/api', entry: 'functions/list-report-jobs.ts', name: 'ListReportJobs' },
  { method: 'GET', path: '/v1/document/api/{id}', entry: 'functions/get-report-job.ts', name: 'GetReportJob' },
  {
    method: 'GET',
    path: '/v1/document/api/{id}/url',
    entry: 'functions/get-report-download-url.ts',
    name: 'GetReportDownloadUrl',
  },
  {
    method: 'GET',
    path: '/v1/report-signing-certificates',
    entry: 'functions/list-report-signing-certificates.ts',
    name: 'ListReportSigningCertificates',
  },
] as const satisfies readonly ApiRoute[];

export const userStatusRoutes = [
  {
    method: 'POST',
    path: '/v1/user-status',
    entry: 'functions/query-user-status.ts',
    name: 'QueryUserStatus',
    runsDatabaseStatements: true,
  },
] as const satisfies readonly ApiRoute[];

/** GDPR erasure of one user and everything about them (contract §16). */
export const userRoutes = [
  {
    method: 'DELETE',
    path: '/v1/users/{id}',
    entry: 'functions/erase-user.ts',
    name: 'EraseUser',
    runsDatabaseStatements: true,
    // Its work grows with the user's report jobs and the organization's tokens; a stall still ends
    // in 503 before this, and a retry resumes where it stopped.
    timeoutSeconds: 29,
  },
] as const satisfies readonly ApiRoute[];

export const webhookRoutes = [
  {
    method: 'POST',
    path: '/v1/webhooks',
    entry: 'functions/create-webhook-endpoint.ts',
    name: 'CreateWebhookEndpoint',
  },
  { method: 'GET', path: '/v1/webhooks', entry: 'functions/list-webhook-endpoints.ts', name: 'ListWebhookEndpoints' },
  {
    method: 'DELETE',
    path: '/v1/webhooks/{id}',
    entry: 'functions/delete-webhook-endpoint.ts',
    name: 'DeleteWebhookEndpoint',
  },
  {
    method: 'POST',
    path: '/v1/webhooks/{id}/test',
    entry: 'functions/test-webhook-endpoint.ts',
    name: 'TestWebhookEndpoint',
  },
  {
    method: 'GET',
    path: '/v1/webhooks/{id}/deliveries',
    entry: 'functions/list-webhook-deliveries.ts',
    name: 'ListWebhookDeliveries',
  },
] as const satisfies readonly ApiRoute[];

/** The organization's audit trail (contract §16). */
export const auditRoutes = [
  { method: 'GET', path: '/v1/audit-events', entry: 'functions/list-audit-events.ts', name: 'ListAuditEvents' },
] as const satisfies readonly ApiRoute[];

/** The sandbox's own routes (contract §23, docs/sandbox.md): a live token gets 404 for each. */
export const sandboxRoutes = [
  {
    method: 'GET',
    path: '/v1/sandbox/scenarios',
    entry: 'functions/list-sandbox-scenarios.ts',
    name: 'ListSandboxScenarios',
    sandboxOnly: true,
  },
  {
    method: 'POST',
    path: '/v1/sandbox/users',
    entry: 'functions/import-sandbox-users.ts',
    name: 'ImportSandboxUsers',
    sandboxOnly: true,
    runsDatabaseStatements: true,
  },
  {
    method: 'GET',
    path: '/v1/sandbox/emails',
    entry: 'functions/list-sandbox-emails.ts',
    name: 'ListSandboxEmails',
    sandboxOnly: true,
  },
  {
    method: 'POST',
    path: '/v1/sandbox/events',
    entry: 'functions/trigger-sandbox-event.ts',
    name: 'TriggerSandboxEvent',
    sandboxOnly: true,
  },
  {
    method: 'POST',
    path: '/v1/sandbox/onboarding-tokens/{tokenId}/expire',
    entry: 'functions/expire-sandbox-onboarding-token.ts',
    name: 'ExpireSandboxOnboardingToken',
    sandboxOnly: true,
  },
  {
    method: 'DELETE',
    path: '/v1/sandbox',
    entry: 'functions/wipe-sandbox.ts',
    name: 'WipeSandbox',
    sandboxOnly: true,
  },
  {
    method: 'POST',
    path: '/v1/sandbox/webhook-listener',
    entry: 'functions/open-sandbox-webhook-listener.ts',
    name: 'OpenSandboxWebhookListener',
    sandboxOnly: true,
  },
  {
    method: 'GET',
    path: '/v1/sandbox/webhook-messages',
    entry: 'functions/list-sandbox-webhook-messages.ts',
    name: 'ListSandboxWebhookMessages',
    sandboxOnly: true,
    // Long-polls up to LISTENER_MAX_WAIT_SECONDS (20) for a message.
    timeoutSeconds: 29,
  },
] as const satisfies readonly ApiRoute[];

/** The OpenAPI document (generated into openapi.json by `npm run openapi`), served without a token. */
export const documentationRoutes = [
  {
    method: 'GET',
    path: '/v1/openapi.json',
    entry: 'functions/get-openapi-document.ts',
    name: 'GetOpenApiDocument',
    public: true,
  },
] as const satisfies readonly ApiRoute[];

/** Lambdas the report pipeline runs outside the API: the queue worker, the dead-letter handler and the sweep. */
export const reportPipelineFunctions = {
  worker: { entry: 'functions/process-report-jobs.ts', name: 'ProcessReportJobs' },
  deadLetters: { entry: 'functions/fail-dead-lettered-report-jobs.ts', name: 'FailDeadLetteredReportJobs' },
  sweep: { entry: 'functions/sweep-timed-out-report-jobs.ts', name: 'SweepTimedOutReportJobs' },
} as const;

/** The webhook delivery function: fans events out to endpoints and makes each delivery attempt. */
export const webhookDeliveryFunction = {
  entry: 'functions/deliver-webhooks.ts',
  name: 'DeliverWebhooks',
} as const;

/** Every minute: queues the webhook events SQS refused when they happened (shared/domain/webhooks/republish-pending-events.ts). */
export const webhookRepublishFunction = {
  entry: 'functions/republish-webhook-events.ts',
  name: 'RepublishWebhookEvents',
} as const;

/** DELETE /v1/sandbox's queue consumer: deletes a sandbox's data store by store (shared/domain/sandbox/wipe-sandbox.ts). */
export const sandboxWipeFunction = {
  entry: 'functions/process-sandbox-wipes.ts',
  name: 'ProcessSandboxWipes',
} as const;

/**
 * Runs at deploy time only, behind a CloudFormation custom resource (lib/users-database-construct.ts):
 * migrates the users database and maps its reader role to the reading functions' IAM roles.
 */
export const usersDatabaseMigrationFunction = {
  entry: 'functions/migrate-users-database.ts',
  name: 'MigrateUsersDatabase',
  /** Lambda's maximum: a call waits for an index build this long, less its reserve, then leaves it to the next poll. */
  timeoutSeconds: 900,
  /** What a call keeps at its end for the roles, the grants and its answer: it starts no statement within it. */
  callReserveMs: 120_000,
} as const;

/**
 * Runs at deploy time only, behind a CloudFormation custom resource (lib/report-signing-construct.ts):
 * publishes the certificates of the stage's report signing key.
 */
export const reportSigningCertificatesFunction = {
  entry: 'functions/publish-report-signing-certificates.ts',
  name: 'PublishReportSigningCertificates',
} as const;

/**
 * CodeDeploy's pre-traffic hooks (lib/safe-deployments-construct.ts): one function of this entry per kind of
 * synthetic request (`CheckNewVersionApi`, `CheckNewVersionQueue`…), each checking the new versions of its groups.
 */
export const newVersionCheckFunction = {
  entry: 'functions/check-new-version.ts',
  name: 'CheckNewVersion',
} as const;

/** Cognito's pre-token-generation trigger of `-c identity=cognito` (lib/cognito-identity-construct.ts). */
export const preTokenGenerationFunction = {
  entry: 'functions/cognito-pre-token-generation.ts',
  name: 'PreTokenGeneration',
} as const;

/** Answers every path or method no route matches, with the contract's 404/405 body. */
export const fallbackRoute = {
  entry: 'functions/route-not-found.ts',
  name: 'RouteNotFound',
} as const;

export const apiRoutes: readonly ApiRoute[] = [
  ...onboardingRoutes,
  ...reportRoutes,
  ...userStatusRoutes,
  ...userRoutes,
  ...webhookRoutes,
  ...auditRoutes,
  ...sandboxRoutes,
  ...documentationRoutes,
];

/** The route keys (`POST /v1/user-status`, as API Gateway names them in the event) of the routes that run database statements. */
export const databaseRouteKeys: ReadonlySet<string> = new Set(
  apiRoutes.filter((route) => route.runsDatabaseStatements).map((route) => `${route.method} ${route.path}`),
);

/**
 * Counts the SES configuration set's send, bounce and complaint events per organization, and
 * pauses an organization's e-mail past the limits (contract §19; shared/domain/onboarding/email-reputation.ts).
 */
export const emailEventsFunction = {
  entry: 'functions/count-email-events.ts',
  name: 'CountEmailEvents',
} as const;

/** The SES events counted per organization (contract §19), as EventBridge names their detail types: the rule's pattern. */
export const COUNTED_SES_EVENT_TYPES = ['Email Sent', 'Email Bounced', 'Email Complaint Received'] as const;
