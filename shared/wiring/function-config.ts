import * as v from 'valibot';
import {
  usersDatabaseEnvironment,
  usersEraserDatabaseEnvironment,
  usersSandboxWriterDatabaseEnvironment,
} from '#shared/config/users-database-config.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { apiUrlEnvironment } from '#shared/config/api-url.ts';
import { auditEnvironment } from '#shared/config/audit-config.ts';
import { authEnvironment } from '#shared/config/auth-config.ts';
import {
  functionNeeds,
  type ApiFunctionName,
  type BackgroundFunctionName,
  type DeploymentFunctionName,
  type FunctionName,
  type Need,
} from '#shared/config/function-needs.ts';
import { reportRateLimitVariable } from '#shared/config/limits/report-rate-limit.ts';
import { loadConfig, positiveIntegerString, requiredString } from '#shared/config/load-config.ts';
import {
  emailQuotaEnvironment,
  emailReputationEnvironment,
  onboardingMailEnvironment,
} from '#shared/config/mail-config.ts';
import { newVersionCheckEnvironment } from '#shared/config/new-version-check-config.ts';
import { reportSigningEnvironment } from '#shared/config/report-signing-config.ts';
import {
  webhookEnvironment,
  webhookPublishingEnvironment,
  webhookQueueEnvironment,
  webhookSlowQueueEnvironment,
} from '#shared/config/webhook-config.ts';

const reportsBucket = { REPORTS_BUCKET_NAME: requiredString('REPORTS_BUCKET_NAME') };
const reportJobsTable = { REPORT_JOBS_TABLE_NAME: requiredString('REPORT_JOBS_TABLE_NAME') };
const onboardingTokensTable = { ONBOARDING_TOKENS_TABLE_NAME: requiredString('ONBOARDING_TOKENS_TABLE_NAME') };
const webhooksTable = { WEBHOOKS_TABLE_NAME: requiredString('WEBHOOKS_TABLE_NAME') };
const webhookSecretsEnvironment = {
  WEBHOOK_LOCAL_MODE: v.optional(v.picklist(['true', 'false']), 'false'),
  WEBHOOK_SECRETS_KEY_ID: v.optional(v.pipe(v.string(), v.minLength(1))),
  WEBHOOK_LOCAL_SECRET_KEY: v.optional(v.pipe(v.string(), v.minLength(1))),
};

/** The variables each need brings (CDK sets them with its grant, the local stack sets them all). */
const needEnvironment = {
  audit: auditEnvironment,
  'auditEvents:read': { AUDIT_EVENTS_TABLE_NAME: requiredString('AUDIT_EVENTS_TABLE_NAME') },
  'onboardingTokens:read': onboardingTokensTable,
  'onboardingTokens:readWrite': onboardingTokensTable,
  idempotency: { IDEMPOTENCY_TABLE_NAME: requiredString('IDEMPOTENCY_TABLE_NAME') },
  onboardingMail: onboardingMailEnvironment,
  emailQuotas: { ...emailQuotaEnvironment, ...emailReputationEnvironment },
  webhookPublishing: webhookPublishingEnvironment,
  pendingWebhookEvents: webhooksTable,
  webhookSecrets: webhookSecretsEnvironment,
  'webhookSecrets:open': webhookSecretsEnvironment,
  'webhooks:read': webhooksTable,
  'webhooks:readWrite': webhooksTable,
  'webhooks:append': webhooksTable,
  'reportJobs:readWrite': reportJobsTable,
  'reportJobs:listByOrganization': reportJobsTable,
  'reportJobs:readWriteByOrganization': reportJobsTable,
  reportRequests: {
    REPORT_QUEUE_URL: requiredString('REPORT_QUEUE_URL'),
    // Jobs expire with their PDFs (the bucket's lifecycle rule uses the same number of days).
    REPORT_RETENTION_DAYS: positiveIntegerString('REPORT_RETENTION_DAYS', 30),
    // Requests per organization in any 10 minutes: 10 unless the deployment (or the local stack) says otherwise.
    REPORT_RATE_LIMIT: reportRateLimitVariable,
  },
  reportDownloads: reportsBucket,
  reportRemovals: reportsBucket,
  reportSigningCertificates: reportsBucket,
  'usersDatabase:read': usersDatabaseEnvironment,
  'usersDatabase:erase': usersEraserDatabaseEnvironment,
  'usersDatabase:writeSandbox': usersSandboxWriterDatabaseEnvironment,
  apiUrl: apiUrlEnvironment,
  sandboxWipes: { ...reportJobsTable, SANDBOX_WIPE_QUEUE_URL: requiredString('SANDBOX_WIPE_QUEUE_URL') },
  'reportJobs:sweep': reportJobsTable,
  reportWrites: reportsBucket,
  reportRedelivery: { REPORT_QUEUE_URL: requiredString('REPORT_QUEUE_URL') },
  reportSigning: { ...reportsBucket, ...reportSigningEnvironment },
  webhookDelivery: { ...webhookEnvironment, ...webhookQueueEnvironment, ...webhookSlowQueueEnvironment },
  webhookQueue: webhookQueueEnvironment,
  emailReputation: {
    ...onboardingTokensTable,
    /** The operator's alarm topic (lib/mail-construct.ts), where the stage has one. */
    EMAIL_PAUSE_TOPIC_ARN: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1))),
  },
  sandboxStores: { ...onboardingTokensTable, ...reportJobsTable, ...webhooksTable, ...reportsBucket },
  'machineClients:lookup': { MACHINE_CLIENTS_TABLE_NAME: requiredString('MACHINE_CLIENTS_TABLE_NAME') },
  organizationClaim: { ORG_CLAIM: authEnvironment.ORG_CLAIM },
  // As DSQL's `admin`: the same connection settings as the reader's, another user.
  'usersDatabase:migrate': usersDatabaseEnvironment,
  'reportSigningCertificates:publish': {
    ...reportsBucket,
    REPORT_SIGNING_KEY_ID: requiredString('REPORT_SIGNING_KEY_ID'),
    REPORT_SANDBOX_SIGNING_KEY_ID: requiredString('REPORT_SANDBOX_SIGNING_KEY_ID'),
  },
  newVersionChecks: newVersionCheckEnvironment,
} as const satisfies Record<Need, v.ObjectEntries>;

type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (intersection: infer I) => void
  ? I
  : never;

/** The schema entries of a function's needs, merged. */
type EnvironmentOf<TName extends FunctionName> = UnionToIntersection<
  (typeof needEnvironment)[(typeof functionNeeds)[TName][number]]
>;

/** The variables a function reads, from its needs alone. */
export function functionEnvironment<TName extends FunctionName>(name: TName): EnvironmentOf<TName> {
  const needs: readonly Need[] = functionNeeds[name];
  return Object.assign({}, ...needs.map((need) => needEnvironment[need])) as EnvironmentOf<TName>;
}

type ConfigOf<TEntries> = TEntries extends v.ObjectEntries ? v.InferOutput<v.ObjectSchema<TEntries, undefined>> : never;

/** The token settings every authenticated function reads (shared/config/auth-config.ts). */
type TokenConfig = ReturnType<typeof loadApiConfig<Record<never, never>>>;

/** An authenticated API function's configuration: the token settings and its needs' variables, checked at cold start. */
export function loadFunctionConfig<TName extends ApiFunctionName>(
  name: TName,
): TokenConfig & ConfigOf<EnvironmentOf<TName>> {
  return loadApiConfig(functionEnvironment(name) as v.ObjectEntries) as TokenConfig & ConfigOf<EnvironmentOf<TName>>;
}

/** A function's configuration from its needs' variables alone (no token settings), checked at cold start. */
function loadNeedsConfig<TName extends FunctionName>(name: TName): ConfigOf<EnvironmentOf<TName>> {
  return loadConfig(v.object(functionEnvironment(name) as v.ObjectEntries)) as ConfigOf<EnvironmentOf<TName>>;
}

/** A background function's configuration: its needs' variables alone (no token settings), checked at cold start. */
export function loadBackgroundFunctionConfig<TName extends BackgroundFunctionName>(
  name: TName,
): ConfigOf<EnvironmentOf<TName>> {
  return loadNeedsConfig(name);
}

/** A deploy-time function's configuration (a custom resource's, a pre-traffic hook's): its needs' variables alone. */
export function loadDeploymentFunctionConfig<TName extends DeploymentFunctionName>(
  name: TName,
): ConfigOf<EnvironmentOf<TName>> {
  return loadNeedsConfig(name);
}
