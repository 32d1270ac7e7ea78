import type {
  auditRoutes,
  emailEventsFunction,
  documentationRoutes,
  newVersionCheckFunction,
  onboardingRoutes,
  preTokenGenerationFunction,
  reportPipelineFunctions,
  reportRoutes,
  reportSigningCertificatesFunction,
  sandboxRoutes,
  sandboxWipeFunction,
  userRoutes,
  userStatusRoutes,
  usersDatabaseMigrationFunction,
  webhookDeliveryFunction,
  webhookRepublishFunction,
  webhookRoutes,
} from './api-routes.ts';

/**
 * What one function may reach, and nothing more. Each need is one grant and the environment that
 * comes with it: CDK turns a function's needs into its IAM statements and variables
 * (lib/service-stack.ts), and its entry file's configuration schema is the union of their
 * variables (shared/wiring/function-config.ts). Plain data, no CDK and no valibot here.
 */
export type Need =
  /** Appends to the audit trail (PutItem alone) and knows the retention. */
  | 'audit'
  /** Queries the audit trail and its index; never writes. */
  | 'auditEvents:read'
  | 'onboardingTokens:read'
  | 'onboardingTokens:readWrite'
  /** `Idempotency-Key` records. */
  | 'idempotency'
  /** Sends the onboarding e-mail through SES. */
  | 'onboardingMail'
  /** The e-mail quotas per recipient and organization and the reputation pause. */
  | 'emailQuotas'
  /** Publishes webhook events: the queue, and the pending events while it refuses them. */
  | 'webhookPublishing'
  /** Takes the pending webhook events (the erasure deletes those naming a user). */
  | 'pendingWebhookEvents'
  /** Seals endpoint secrets (the KMS key). */
  | 'webhookSecrets'
  /** Opens endpoint secrets (KMS Decrypt alone): the sandbox listener signs its feed's messages. */
  | 'webhookSecrets:open'
  | 'webhooks:read'
  | 'webhooks:readWrite'
  /** PutItem alone on the Webhooks table (the test limit's items). */
  | 'webhooks:append'
  | 'reportJobs:readWrite'
  /** Reads through the jobsByOrganization index: a listing never writes. */
  | 'reportJobs:listByOrganization'
  /** Reads and writes, the jobsByOrganization index too (the erasure). */
  | 'reportJobs:readWriteByOrganization'
  /** Sends report jobs to the report queue; knows how long jobs are kept and the report rate limit. */
  | 'reportRequests'
  | 'reportDownloads'
  | 'reportRemovals'
  | 'reportSigningCertificates'
  /** SELECT on users as users_reader. */
  | 'usersDatabase:read'
  /** SELECT and DELETE on users as users_eraser. */
  | 'usersDatabase:erase'
  /** Writes users and their search words as users_sandbox_writer (POST /v1/sandbox/users, under a sandbox key alone). */
  | 'usersDatabase:writeSandbox'
  /** Where this stage's clients call the API (the OpenAPI document's server). */
  | 'apiUrl'
  /** The sandboxes' wipe records (their own partitions of the ReportJobs table) and the wipe queue. */
  | 'sandboxWipes'
  /** Reads and writes, through the openJobsByAge index too (the sweep). */
  | 'reportJobs:sweep'
  /** Stores PDFs, and removes one stored for a job lost meanwhile: PutObject and DeleteObject on `reports/*`. */
  | 'reportWrites'
  /** Sends a job back to its own queue with a delay (a sandbox scenario that completes later). */
  | 'reportRedelivery'
  /** Signs reports: the live and sandbox keys (whose key policies name the signer), the timestamp authority, the certificates. */
  | 'reportSigning'
  /** Both webhook lanes' queues (retries, fan-out, lane changes) and opening endpoint secrets (KMS Decrypt). */
  | 'webhookDelivery'
  /** Sends to the webhook queue alone (the republish of pending events). */
  | 'webhookQueue'
  /** The e-mail reputation partitions of the OnboardingTokens table, read and replaced whole. */
  | 'emailReputation'
  /** Deletes a sandbox's items, PDFs and users, in the sandboxes' partitions and folders alone. */
  | 'sandboxStores'
  /** Tells which organization a machine client acts for: GetItem on the MachineClients table alone. */
  | 'machineClients:lookup'
  /** The claim the API reads the organization from (ORG_CLAIM), which the Cognito trigger writes. */
  | 'organizationClaim'
  /** Connects as DSQL's `admin` (DbConnectAdmin): runs the migrations and maps the database roles to IAM roles. */
  | 'usersDatabase:migrate'
  /** Both signing keys' certificates published: reads and writes the two bundles (and lists them alone), knows the keys. */
  | 'reportSigningCertificates:publish'
  /**
   * A pre-traffic hook's: reads the targets of the deployment groups it checks and invokes the version each deploys;
   * knows its kind of synthetic request and the answers it expects.
   */
  | 'newVersionChecks';

type RouteName<TRoutes extends readonly { name: string }[]> = TRoutes[number]['name'];
type ApiRouteName =
  | RouteName<typeof onboardingRoutes>
  | RouteName<typeof reportRoutes>
  | RouteName<typeof userStatusRoutes>
  | RouteName<typeof userRoutes>
  | RouteName<typeof webhookRoutes>
  | RouteName<typeof auditRoutes>
  | RouteName<typeof sandboxRoutes>
  | RouteName<typeof documentationRoutes>;

/**
 * Each API route's function's needs, in the order its statements are granted. A route in
 * `apiRoutes` without an entry here fails to compile. Every authenticated route also gets the
 * token settings, the request budget and the concurrency limiter (lib/service-stack.ts).
 */
export const apiFunctionNeeds = {
  // Token, guard and pointers, and the e-mail quota items (`RATE_LIMIT#email…`) in the same table.
  CreateOnboardingToken: ['audit', 'onboardingTokens:readWrite', 'idempotency', 'onboardingMail', 'emailQuotas'],
  ListOnboardingTokens: ['onboardingTokens:read'],
  // Looks the token up through its pointer items, then Used/Revoked and the e-mail guard freed in one transaction.
  RedeemOnboardingToken: ['audit', 'onboardingTokens:readWrite', 'webhookPublishing'],
  RevokeOnboardingToken: ['audit', 'onboardingTokens:readWrite', 'webhookPublishing'],
  ResendOnboardingToken: [
    'audit',
    'onboardingTokens:readWrite',
    'webhookPublishing',
    'idempotency',
    'onboardingMail',
    'emailQuotas',
  ],
  // Job + open-job guard in one transaction and the organization's rate-limit item; checks the user exists first.
  CreateReportJob: ['audit', 'reportJobs:readWrite', 'usersDatabase:read', 'idempotency', 'reportRequests'],
  // A listing never writes (a late job is shown TIMED_OUT).
  ListReportJobs: ['reportJobs:listByOrganization'],
  // Read-write: a read past the deadline fails the job (TIMED_OUT), which is a `report.failed` event.
  GetReportJob: ['reportJobs:readWrite', 'webhookPublishing'],
  GetReportDownloadUrl: ['audit', 'reportJobs:readWrite', 'webhookPublishing', 'reportDownloads'],
  // Reads the published certificates object alone (GetObject on report-signing/certificates.pem).
  ListReportSigningCertificates: ['reportSigningCertificates'],
  // SELECTs the organization's users (as users_reader, which may do nothing else); never writes.
  QueryUserStatus: ['usersDatabase:read'],
  // Erasure: the user's row, their open-job slot and jobs (open ones fail: a report.failed event), their PDFs
  // (DeleteObject alone), the tokens sent to their e-mail and the pending webhook events naming it.
  EraseUser: [
    'audit',
    'usersDatabase:erase',
    'reportJobs:readWriteByOrganization',
    'onboardingTokens:readWrite',
    'reportRemovals',
    'webhookPublishing',
    'pendingWebhookEvents',
  ],
  CreateWebhookEndpoint: ['audit', 'webhooks:readWrite', 'webhookSecrets'],
  ListWebhookEndpoints: ['webhooks:read'],
  DeleteWebhookEndpoint: ['audit', 'webhooks:readWrite'],
  // Reads the endpoint; spends the organization's test limit (`RATE_LIMIT#webhook-test`: GetItem, then PutItem alone).
  TestWebhookEndpoint: ['audit', 'webhooks:read', 'webhooks:append', 'webhookPublishing'],
  ListWebhookDeliveries: ['webhooks:read'],
  // Queries the trail (and its byTarget index); never writes.
  ListAuditEvents: ['auditEvents:read'],
  // The scenario definition is bundled into it: no table, no bucket.
  ListSandboxScenarios: [],
  // Writes the sandbox's users (one INSERT under the token's sandbox key) and their search words.
  ImportSandboxUsers: ['usersDatabase:writeSandbox'],
  // The mailbox's items are in the OnboardingTokens table (docs/sandbox.md#the-mailbox); a listing never writes.
  ListSandboxEmails: ['onboardingTokens:read'],
  // Makes the objects behind an event through the live use cases: a report job (as CreateReportJob), a token issued
  // (its e-mail kept by the mailbox) then redeemed or revoked (their events published), or webhook.test messages.
  TriggerSandboxEvent: [
    'audit',
    'reportJobs:readWrite',
    'usersDatabase:read',
    'reportRequests',
    'onboardingTokens:readWrite',
    'onboardingMail',
    'emailQuotas',
    'webhookPublishing',
    'webhooks:read',
  ],
  // Issued -> Expired and the e-mail guard released, in one transaction; no event.
  ExpireSandboxOnboardingToken: ['audit', 'onboardingTokens:readWrite'],
  // Records the wipe (GetItem, conditional PutItem and UpdateItem on its own item) and queues it; deletes nothing itself.
  WipeSandbox: ['audit', 'sandboxWipes'],
  // The listener is a webhook endpoint (created once, its secret sealed), answered with its secret opened.
  OpenSandboxWebhookListener: ['audit', 'webhooks:readWrite', 'webhookSecrets', 'webhookSecrets:open'],
  // Reads the listener's log entries (a Query of its partition) and signs them with its secret; never writes.
  ListSandboxWebhookMessages: ['webhooks:read', 'webhookSecrets:open'],
  // Serves the OpenAPI document bundled into it: no table, no bucket, no token settings.
  GetOpenApiDocument: ['apiUrl'],
} as const satisfies Record<ApiRouteName, readonly Need[]>;

export type ApiFunctionName = keyof typeof apiFunctionNeeds;

export type BackgroundFunctionName =
  | (typeof reportPipelineFunctions)[keyof typeof reportPipelineFunctions]['name']
  | (typeof webhookDeliveryFunction)['name']
  | (typeof webhookRepublishFunction)['name']
  | (typeof emailEventsFunction)['name']
  | (typeof sandboxWipeFunction)['name']
  | (typeof preTokenGenerationFunction)['name'];

/**
 * The needs of the functions a queue, a schedule or an event invokes, in the same vocabulary and
 * read the same three times. What a need cannot say stays in the function's construct: the queue
 * it reads (an event source mapping), and a KMS key policy that names its role.
 */
export const backgroundFunctionNeeds = {
  // The job (its PDF stored, signed and the job finished), the user's record, the event; a sandbox job put off goes
  // back to its own queue.
  ProcessReportJobs: [
    'reportJobs:readWrite',
    'reportWrites',
    'reportRedelivery',
    'usersDatabase:read',
    'reportSigning',
    'webhookPublishing',
  ],
  // Fails the job of a dead-lettered message (a report.failed event).
  FailDeadLetteredReportJobs: ['reportJobs:readWrite', 'webhookPublishing'],
  // Finds open jobs past their deadline through openJobsByAge and fails them (report.failed events).
  SweepTimedOutReportJobs: ['reportJobs:sweep', 'webhookPublishing'],
  // Both lanes: endpoints and their delivery log, the two queues, the endpoints' secrets opened.
  DeliverWebhooks: ['webhooks:readWrite', 'webhookDelivery'],
  // Takes the pending events and hands them to the webhook queue.
  RepublishWebhookEvents: ['pendingWebhookEvents', 'webhookQueue'],
  // Counts an SES event in its organization's reputation (the alarm topic it alerts is the alarms' own, set there).
  CountEmailEvents: ['emailReputation'],
  // Finishes the wipe record, continues itself through its own queue, and deletes the sandbox's data as the erasure.
  ProcessSandboxWipes: ['sandboxWipes', 'sandboxStores', 'usersDatabase:erase'],
  // Cognito's, at every token it issues (with identity=cognito alone): the organization of a machine client, put
  // into the access token under the API's claim.
  PreTokenGeneration: ['machineClients:lookup', 'organizationClaim'],
} as const satisfies Record<BackgroundFunctionName, readonly Need[]>;

export type DeploymentFunctionName =
  | (typeof usersDatabaseMigrationFunction)['name']
  | (typeof reportSigningCertificatesFunction)['name']
  | (typeof newVersionCheckFunction)['name'];

/**
 * The needs of the functions a deploy runs, never traffic: CloudFormation's custom resources and CodeDeploy's
 * pre-traffic hooks. They have no `live` alias, and the local stack runs none of them (it migrates its own
 * PostgreSQL, signs with key files and rolls nothing out). The signing keys' policies naming the publisher's role
 * stay in its construct, as the worker's do.
 */
export const deploymentFunctionNeeds = {
  // The one holder of DbConnectAdmin: migrates the schema and maps the reader, eraser and sandbox writer roles.
  MigrateUsersDatabase: ['usersDatabase:migrate'],
  // Signs each key's self-issued certificate (the keys' policies allow it) and publishes both bundles.
  PublishReportSigningCertificates: ['reportSigningCertificates:publish'],
  // Every hook, one per kind of synthetic request, in the parent stack and in the sandbox's.
  CheckNewVersion: ['newVersionChecks'],
} as const satisfies Record<DeploymentFunctionName, readonly Need[]>;

/** Every function's needs: API, background and deploy time alike. */
export const functionNeeds = { ...apiFunctionNeeds, ...backgroundFunctionNeeds, ...deploymentFunctionNeeds } as const;

export type FunctionName = keyof typeof functionNeeds;
