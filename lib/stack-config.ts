import type { Node } from 'constructs';
import * as v from 'valibot';
import { COGNITO_SCOPE_PREFIX } from '#shared/config/cognito-identity.ts';
import { DEFAULT_ROLE_CLAIM } from '#shared/config/auth-config.ts';
import { SCOPES, type Scope } from '#shared/domain/identity/staff-roles.ts';
import { SANDBOX_SCOPE } from '#shared/domain/identity/tenant.ts';
import { MACHINE_CLIENT_NAME } from '#shared/domain/identity/machine-clients.ts';
import { DEFAULT_REPORT_RATE_LIMIT, MAX_REPORT_RATE_LIMIT } from '#shared/config/limits/report-rate-limit.ts';
import { MAX_REQUEST_BUDGET_BURST, MAX_REQUEST_BUDGET_RATE } from '#shared/config/limits/request-budget.ts';
import { DEFAULT_REQUEST_BUDGET } from '#shared/domain/limits/request-budget.ts';
import { MAX_CONCURRENCY_PER_ORGANIZATION } from '#shared/config/limits/concurrency.ts';
import { DEFAULT_CONCURRENCY } from '#shared/domain/limits/concurrency.ts';
import { DEFAULT_EMAIL_REPUTATION_FAIL_OPEN_SECONDS } from '#shared/config/mail-config.ts';
import {
  DEFAULT_EMAIL_QUOTA,
  MAX_EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR,
  MAX_EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR,
} from '#shared/domain/limits/email-quota.ts';

/** 200 requests per second from one address, 60-second window: four organizations' budgets behind one NAT. */
export const DEFAULT_EDGE_RATE_LIMIT_PER_IP = 12_000;
/** 100 per second for one token: twice the contract's budget per organization (50/s), so the budget answers first. */
export const DEFAULT_EDGE_RATE_LIMIT_PER_AUTHORIZATION = 6_000;

/**
 * The deployment's configuration, read from CDK context (`cdk.json` "context", or `-c key=value`)
 * and validated once, before any construct is built. A missing or malformed key stops the synth
 * with a message naming it.
 */

const required = (key: string) =>
  v.pipe(v.string(`${key} is required`), v.trim(), v.minLength(1, `${key} must not be empty`));

const claimName = (key: string, defaultValue: string) =>
  v.optional(
    v.pipe(v.string(`${key} must be a string`), v.regex(/^[A-Za-z0-9_:/.-]{1,100}$/, `${key} must be a claim name`)),
    defaultValue,
  );

const email = (key: string, missing = `${key} must be an e-mail address`) =>
  v.pipe(v.string(missing), v.trim(), v.email(`${key} must be an e-mail address`));

/** Context values given with `-c` arrive as strings, values from cdk.json as numbers: accept both. */
const positiveInteger = (key: string, defaultValue: number, max: number) =>
  v.pipe(
    v.optional(v.union([v.number(), v.string()], `${key} must be a number`), defaultValue),
    v.transform(Number),
    v.number(`${key} must be a number`),
    v.integer(`${key} must be an integer`),
    v.minValue(1, `${key} must be at least 1`),
    v.maxValue(max, `${key} must be at most ${max}`),
  );

/**
 * Lambda reserved concurrency for the queue consumers (the report worker, both webhook lanes), off
 * unless given: a reservation is taken from the account's pool, which must keep 100 unreserved, so
 * in a new account (a quota of 10) any reservation fails the deploy. At least 2, the lowest maximum concurrency an SQS event source takes:
 * a reservation below its event source's maximum would throttle messages back to the queue.
 */
const reservedConcurrency = v.optional(
  v.pipe(
    v.union([v.number(), v.string()], 'reservedConcurrency must be a number'),
    v.transform(Number),
    v.number('reservedConcurrency must be a number'),
    v.integer('reservedConcurrency must be an integer'),
    v.minValue(2, 'reservedConcurrency must be at least 2 (the lowest maximum concurrency of an SQS event source)'),
    v.maxValue(1000, 'reservedConcurrency must be at most 1000'),
  ),
);

/** A domain (`example.com`) or an address (`no-reply@example.com`). */
const senderIdentity = v.pipe(
  v.string('senderIdentity must be a string'),
  v.trim(),
  v.regex(/^([^@\s]+@)?([a-z0-9-]+\.)+[a-z]{2,}$/i, 'senderIdentity must be a domain or an e-mail address'),
);

/** Context values given with `-c` arrive as strings: `true`/`false` are booleans too. */
const flag = (key: string) =>
  v.pipe(
    v.optional(v.union([v.boolean(), v.picklist(['true', 'false'])], `${key} must be true or false`), false),
    v.transform((value) => value === true || value === 'true'),
  );

/** A flag whose default depends on other keys: undefined when not given. */
const optionalFlag = (key: string) =>
  v.optional(
    v.pipe(
      v.union([v.boolean(), v.picklist(['true', 'false'])], `${key} must be true or false`),
      v.transform((value) => value === true || value === 'true'),
    ),
  );

export const stackConfigSchema = v.pipe(
  v.object({
    /**
     * Deployment stage (`dev`, `prod`, ...): part of the stack name and every name that must be
     * unique in an account and region, so two stages deploy side by side.
     */
    stage: v.optional(
      v.pipe(
        v.string('stage must be a string'),
        v.regex(/^[a-z][a-z0-9-]{0,19}$/, 'stage must be lower-case letters, digits and dashes (at most 20)'),
      ),
      'dev',
    ),
    /**
     * Who signs staff and machine clients in: `oidc` (default) trusts the OpenID Connect issuer the
     * `jwt…`/`jwksUrl`/`dashboardClientId` values name; `cognito` makes the stack create a Cognito user
     * pool (lib/cognito-identity-construct.ts) and derives all of them from it. docs/identity-providers.md.
     */
    identity: v.optional(v.picklist(['oidc', 'cognito'], 'identity must be oidc or cognito'), 'oidc'),
    /** `iss` every token must carry (identity=oidc). */
    jwtIssuer: v.optional(required('jwtIssuer')),
    /** Audience every token's `aud` must contain (identity=oidc; or `jwtClientIds`). */
    jwtAudience: v.optional(required('jwtAudience')),
    /**
     * App client ids whose Cognito access tokens (`token_use` access, `client_id`, no `aud`) the API
     * accepts, comma-separated (identity=oidc with a user pool made elsewhere); JWT_CLIENT_IDS.
     */
    jwtClientIds: v.optional(
      v.pipe(
        v.union([v.string(), v.array(v.string())], 'jwtClientIds must be client ids separated by commas'),
        v.transform((value) =>
          (typeof value === 'string' ? value.split(',') : value).map((id) => id.trim()).filter(Boolean),
        ),
        v.array(v.pipe(v.string(), v.regex(/^[\w+=,.@-]{1,128}$/, 'jwtClientIds must be client ids'))),
        v.minLength(1, 'jwtClientIds must name at least one client id'),
      ),
    ),
    /**
     * The provider's machine clients (client credentials) by client id, comma-separated, `<prefix>*` for
     * every id with the prefix (identity=oidc): their tokens keep their scopes; any other token is a
     * staff member's and holds its role's scopes alone. MACHINE_CLIENT_IDS.
     */
    machineClientIds: v.optional(
      v.pipe(
        v.union([v.string(), v.array(v.string())], 'machineClientIds must be client ids separated by commas'),
        v.transform((value) =>
          (typeof value === 'string' ? value.split(',') : value).map((id) => id.trim()).filter(Boolean),
        ),
        v.array(
          v.pipe(
            v.string(),
            v.regex(MACHINE_CLIENT_NAME, 'machineClientIds must be client ids, each whole or a prefix followed by *'),
          ),
        ),
        v.minLength(1, 'machineClientIds must name at least one client id'),
      ),
    ),
    /** Prefix the issuer puts before every API scope (a Cognito resource server's `onboarding-api/`); SCOPE_PREFIX. */
    scopePrefix: v.optional(
      v.pipe(v.string('scopePrefix must be a string'), v.regex(/^\S{1,200}$/, 'scopePrefix must be one word')),
    ),
    /** Remote key set the functions verify tokens against (identity=oidc). */
    jwksUrl: v.optional(
      v.pipe(required('jwksUrl'), v.url('jwksUrl must be a URL'), v.startsWith('https://', 'jwksUrl must use https')),
    ),
    /**
     * The issuer's token endpoint, when it is not on the issuer's own origin: the dashboard's CSP lets
     * the page reach its origin (identity=oidc; with cognito the pool's domain is used).
     */
    tokenEndpoint: v.optional(
      v.pipe(
        v.string('tokenEndpoint must be a URL'),
        v.url('tokenEndpoint must be a URL'),
        v.startsWith('https://', 'tokenEndpoint must use https'),
      ),
    ),
    /** Managed login domain prefix (identity=cognito): `https://{prefix}.auth.{region}.amazoncognito.com`; default from stage and account. */
    cognitoDomainPrefix: v.optional(
      v.pipe(
        v.string('cognitoDomainPrefix must be a string'),
        v.regex(
          /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
          'cognitoDomainPrefix must be lower-case letters, digits and dashes',
        ),
        v.check(
          (prefix) => !/aws|amazon|cognito/.test(prefix),
          'cognitoDomainPrefix must not contain aws, amazon or cognito',
        ),
      ),
    ),
    /** Cognito threat protection (identity=cognito): needs the Plus feature plan, so off unless asked for. */
    cognitoAdvancedSecurity: flag('cognitoAdvancedSecurity'),
    /** Claim holding the organization id. */
    orgClaim: claimName('orgClaim', 'org_id'),
    /** Claim holding the organization's display name (used in the onboarding e-mail). */
    orgNameClaim: claimName('orgNameClaim', 'org_name'),
    /** Claim naming the staff member's role(s) (identity=oidc; Cognito's is `cognito:groups`). */
    roleClaim: claimName('roleClaim', DEFAULT_ROLE_CLAIM),
    /** From address of the onboarding e-mail. */
    senderEmail: email('senderEmail', 'senderEmail is required'),
    /** SES identity to create and scope sending to; default: the domain of `senderEmail`. */
    senderIdentity: v.optional(senderIdentity),
    /** The SES identity already exists in the account (another stack or the console made it): reuse it. */
    senderIdentityExists: flag('senderIdentityExists'),
    /** Days report jobs and PDFs are kept. */
    retentionDays: positiveInteger('retentionDays', 30, 3650),
    /**
     * A certificate for the stage's report signing key issued under the operator's CA, PEM, the
     * key's certificate first and its CA chain after (docs/reports.md, "The signing key"). Without
     * it the certificate is self-issued at deploy.
     */
    reportSigningCertificates: v.optional(
      v.pipe(
        v.string('reportSigningCertificates must be PEM text'),
        v.transform((value) => value.replaceAll('\\n', '\n')),
        v.regex(
          /^\s*(-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----\s*)+$/,
          'reportSigningCertificates must be PEM certificates',
        ),
      ),
    ),
    /**
     * An RFC 3161 timestamp authority (https URL): reports are then signed PAdES B-T, each signature
     * timestamped by it (docs/reports.md, "Signature levels").
     */
    reportTimestampUrl: v.optional(
      v.pipe(
        v.string('reportTimestampUrl must be a URL'),
        v.url('reportTimestampUrl must be a URL'),
        v.startsWith('https://', 'reportTimestampUrl must use https'),
      ),
    ),
    /** Days audit events are kept (DynamoDB TTL). */
    auditRetentionDays: positiveInteger('auditRetentionDays', 400, 3650),
    /**
     * When AWS Backup backs up the users database (the DSQL cluster): an AWS Backup schedule
     * expression, `cron(...)` in UTC; default daily at 03:00.
     */
    usersBackupSchedule: v.optional(
      v.pipe(
        v.string('usersBackupSchedule must be a string'),
        v.trim(),
        v.regex(
          /^cron\((\S+ ){5}\S+\)$/,
          'usersBackupSchedule must be an AWS cron expression with six fields, e.g. cron(0 3 * * ? *)',
        ),
      ),
      'cron(0 3 * * ? *)',
    ),
    /** Days each backup of the users database is kept (AWS Backup); default 35. */
    usersBackupRetentionDays: positiveInteger('usersBackupRetentionDays', 35, 36_500),
    /** Report requests per organization in any 10 minutes (the contract's 10); CreateReportJob's REPORT_RATE_LIMIT. */
    reportRateLimit: positiveInteger('reportRateLimit', DEFAULT_REPORT_RATE_LIMIT, MAX_REPORT_RATE_LIMIT),
    /** Requests per second each organization may send to the authenticated routes (the contract's 50); REQUEST_BUDGET_RATE. */
    requestBudgetRate: positiveInteger(
      'requestBudgetRate',
      DEFAULT_REQUEST_BUDGET.ratePerSecond,
      MAX_REQUEST_BUDGET_RATE,
    ),
    /** Requests an idle organization may send at once (the contract's 100); REQUEST_BUDGET_BURST. */
    requestBudgetBurst: positiveInteger('requestBudgetBurst', DEFAULT_REQUEST_BUDGET.burst, MAX_REQUEST_BUDGET_BURST),
    /** Requests each organization may have in flight on all authenticated routes (the contract's 20); CONCURRENCY_PER_ORGANIZATION. */
    concurrencyPerOrganization: positiveInteger(
      'concurrencyPerOrganization',
      DEFAULT_CONCURRENCY.perOrganization,
      MAX_CONCURRENCY_PER_ORGANIZATION,
    ),
    /** Of those, on the routes that run database statements (the contract's 4); DATABASE_CONCURRENCY_PER_ORGANIZATION. */
    databaseConcurrencyPerOrganization: positiveInteger(
      'databaseConcurrencyPerOrganization',
      DEFAULT_CONCURRENCY.databasePerOrganization,
      MAX_CONCURRENCY_PER_ORGANIZATION,
    ),
    /**
     * Requests per second the whole stage takes (API Gateway's throttle, bursts of twice as many): a ceiling on cost
     * and on the account's Lambda concurrency, set well above one organization's budget so that a few busy
     * organizations cannot use it up for the others.
     */
    apiThrottleRate: positiveInteger('apiThrottleRate', 1_000, 10_000),
    /** Onboarding e-mails to one address per organization and hour (the contract's 5); EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR. */
    emailQuotaPerRecipientPerHour: positiveInteger(
      'emailQuotaPerRecipientPerHour',
      DEFAULT_EMAIL_QUOTA.perRecipientPerHour,
      MAX_EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR,
    ),
    /** Onboarding e-mails per organization and clock hour (the contract's 1,000); EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR. */
    emailQuotaPerOrganizationPerHour: positiveInteger(
      'emailQuotaPerOrganizationPerHour',
      DEFAULT_EMAIL_QUOTA.perOrganizationPerHour,
      MAX_EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR,
    ),
    /**
     * How long a sending function keeps sending while it cannot read an organization's e-mail pause
     * (then 503 until it can again); EMAIL_REPUTATION_FAIL_OPEN_SECONDS.
     */
    emailReputationFailOpenSeconds: positiveInteger(
      'emailReputationFailOpenSeconds',
      DEFAULT_EMAIL_REPUTATION_FAIL_OPEN_SECONDS,
      86_400,
    ),
    /**
     * While the account is in the SES sandbox: the verified recipient addresses the service may
     * mail (comma-separated), because SES then checks the sender's permission on each recipient.
     */
    sesSandboxRecipients: v.optional(
      v.pipe(
        v.union([v.string(), v.array(v.string())], 'sesSandboxRecipients must be addresses separated by commas'),
        v.transform((value) =>
          (typeof value === 'string' ? value.split(',') : value).map((address) => address.trim()).filter(Boolean),
        ),
        v.array(v.pipe(v.string(), v.email('sesSandboxRecipients must be e-mail addresses'))),
      ),
      [],
    ),
    /** The dashboard's OpenID Connect client id at the issuer (a public client: authorization code + PKCE, no secret; identity=oidc). */
    dashboardClientId: v.optional(required('dashboardClientId')),
    /** Scopes the dashboard asks the issuer for; default `openid` and every API scope the pages use (with `scopePrefix`). */
    dashboardScope: v.optional(v.pipe(v.string('dashboardScope must be a string'), v.trim(), v.minLength(1))),
    /**
     * The scope the dashboard's sandbox switch adds to its request (docs/dashboard.md#the-sandbox-switch); default
     * `sandbox` with the issuer's prefix (`onboarding-api/sandbox` with identity=cognito).
     */
    dashboardSandboxScope: v.optional(
      v.pipe(
        v.string('dashboardSandboxScope must be a string'),
        v.regex(/^\S{1,200}$/, 'dashboardSandboxScope must be one word'),
      ),
    ),
    /** Sent as `audience` on the authorization request, for issuers that need it to mint an access token for the API. */
    dashboardAudience: v.optional(v.pipe(v.string('dashboardAudience must be a string'), v.trim(), v.minLength(1))),
    /** Where alarms are e-mailed; no topic is created without it. */
    alarmEmail: v.optional(email('alarmEmail')),
    /**
     * Reserved concurrency of the report worker and of each webhook lane's delivery function (each); none
     * by default. Their event sources' maximum concurrency bounds them either way.
     */
    reservedConcurrency,
    /**
     * CloudFront with an AWS WAF web ACL in front of the API, and the functions refusing calls that bypass it
     * (lib/edge-construct.ts, docs/deploy.md "The edge"); default on for `stage=prod`, off otherwise.
     */
    edgeProtection: optionalFlag('edgeProtection'),
    /**
     * The CloudWatch operations dashboard ($3 a month, docs/cost.md); default on for `stage=prod`, off
     * otherwise. The alarms do not depend on it.
     */
    operationsDashboard: optionalFlag('operationsDashboard'),
    /**
     * How `cdk deploy` moves each function's `live` alias to its new version (docs/deploy.md "Rollout"): false
     * shifts the API functions' traffic by a canary (`canaryPercent` for `canaryMinutes`, then all) and the other
     * functions' by 10% a minute, each rolled back when an alarm of its new version fires; true shifts all at once
     * after the pre-traffic check alone. Default: true except for `stage=prod`.
     */
    deployAllAtOnce: optionalFlag('deployAllAtOnce'),
    /** Share of an API function's traffic its new version takes first, in percent (rollout by canary). */
    canaryPercent: positiveInteger('canaryPercent', 10, 99),
    /** Minutes the canary runs before the rest of the traffic moves (rollout by canary). */
    canaryMinutes: positiveInteger('canaryMinutes', 5, 2880),
    /**
     * Requests one client IP may send to `/v1/*` in any 60 seconds before the web ACL answers 429; above the
     * per-token limit, since several clients of an organization may share an address (NAT).
     */
    edgeRateLimitPerIp: positiveInteger('edgeRateLimitPerIp', DEFAULT_EDGE_RATE_LIMIT_PER_IP, 2_000_000_000),
    /**
     * Requests one `Authorization` header value may send in any 60 seconds: above one organization's budget
     * (requestBudgetRate x 60 + requestBudgetBurst; the contract's 3,100), so the edge refuses only a flood.
     */
    edgeRateLimitPerAuthorization: positiveInteger(
      'edgeRateLimitPerAuthorization',
      DEFAULT_EDGE_RATE_LIMIT_PER_AUTHORIZATION,
      2_000_000_000,
    ),
    /** Secrets Manager version id of the origin-verify secret to deploy (after a rotation); default the current. */
    originVerifySecretVersion: v.optional(
      v.pipe(
        v.string('originVerifySecretVersion must be a string'),
        v.regex(/^[A-Za-z0-9-]{32,64}$/, 'originVerifySecretVersion must be a Secrets Manager version id'),
      ),
    ),
    /** A custom domain for the HTTP API (with `apiCertificateArn`); the execute-api endpoint is then disabled. */
    apiDomainName: v.optional(
      v.pipe(
        v.string('apiDomainName must be a domain name'),
        v.trim(),
        v.toLowerCase(),
        v.regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,}$/, 'apiDomainName must be a domain name'),
      ),
    ),
    /** ACM certificate for `apiDomainName`, in the stack's own region (a regional API Gateway domain). */
    apiCertificateArn: v.optional(
      v.pipe(
        v.string('apiCertificateArn must be an ACM certificate ARN'),
        v.regex(
          /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[\w-]+$/,
          'apiCertificateArn must be an ACM certificate ARN',
        ),
      ),
    ),
  }),
  v.forward(
    v.partialCheck(
      [['identity'], ['jwtIssuer']],
      (input) => input.identity === 'cognito' || input.jwtIssuer !== undefined,
      'jwtIssuer is required (or identity=cognito)',
    ),
    ['jwtIssuer'],
  ),
  v.forward(
    v.partialCheck(
      [['identity'], ['jwksUrl']],
      (input) => input.identity === 'cognito' || input.jwksUrl !== undefined,
      'jwksUrl is required (or identity=cognito)',
    ),
    ['jwksUrl'],
  ),
  v.forward(
    v.partialCheck(
      [['identity'], ['dashboardClientId']],
      (input) => input.identity === 'cognito' || input.dashboardClientId !== undefined,
      'dashboardClientId is required (or identity=cognito)',
    ),
    ['dashboardClientId'],
  ),
  v.forward(
    v.partialCheck(
      [['identity'], ['jwtAudience'], ['jwtClientIds']],
      ({ identity, jwtAudience, jwtClientIds }) =>
        identity === 'cognito' || jwtAudience !== undefined || jwtClientIds !== undefined,
      'jwtAudience is required (or jwtClientIds, for Cognito access tokens)',
    ),
    ['jwtAudience'],
  ),
  v.forward(
    v.partialCheck(
      [['senderEmail'], ['senderIdentity']],
      ({ senderEmail, senderIdentity }) =>
        senderIdentity === undefined ||
        senderIdentity.toLowerCase() === senderEmail.toLowerCase() ||
        senderIdentity.toLowerCase() === domainOf(senderEmail),
      'senderIdentity must be senderEmail itself or its domain',
    ),
    ['senderIdentity'],
  ),
  v.forward(
    v.partialCheck(
      [['apiDomainName'], ['apiCertificateArn']],
      ({ apiDomainName, apiCertificateArn }) => (apiDomainName === undefined) === (apiCertificateArn === undefined),
      'apiDomainName and apiCertificateArn go together',
    ),
    ['apiCertificateArn'],
  ),
  v.forward(
    v.partialCheck(
      [['stage'], ['edgeProtection'], ['edgeRateLimitPerAuthorization'], ['requestBudgetRate'], ['requestBudgetBurst']],
      (input) =>
        !edgeOn(input) || input.edgeRateLimitPerAuthorization > input.requestBudgetRate * 60 + input.requestBudgetBurst,
      'edgeRateLimitPerAuthorization must be above one organization’s budget per minute (requestBudgetRate x 60 + requestBudgetBurst)',
    ),
    ['edgeRateLimitPerAuthorization'],
  ),
  v.forward(
    v.partialCheck(
      [['stage'], ['edgeProtection'], ['edgeRateLimitPerIp'], ['edgeRateLimitPerAuthorization'], ['apiThrottleRate']],
      (input) =>
        !edgeOn(input) ||
        Math.max(input.edgeRateLimitPerIp, input.edgeRateLimitPerAuthorization) < input.apiThrottleRate * 60,
      'apiThrottleRate x 60 must be above edgeRateLimitPerIp and edgeRateLimitPerAuthorization (no single client may fill the stage)',
    ),
    ['apiThrottleRate'],
  ),
  v.transform((config) => ({
    ...config,
    edgeProtection: edgeOn(config),
    operationsDashboard: config.operationsDashboard ?? config.stage === 'prod',
    deployAllAtOnce: config.deployAllAtOnce ?? config.stage !== 'prod',
    senderIdentity: config.senderIdentity?.toLowerCase() ?? domainOf(config.senderEmail),
    // Cognito prefixes resource server scopes with the server's identifier; so must the dashboard's request.
    dashboardScope: config.dashboardScope ?? dashboardScopeWith(issuerScopePrefix(config)),
    dashboardSandboxScope: config.dashboardSandboxScope ?? `${issuerScopePrefix(config)}${SANDBOX_SCOPE}`,
  })),
);

/** `edgeProtection` as given, else on for `stage=prod` alone. */
function edgeOn(config: { stage: string; edgeProtection?: boolean | undefined }): boolean {
  return config.edgeProtection ?? config.stage === 'prod';
}

/** What the issuer puts before every API scope: Cognito's resource server identifier, or `scopePrefix`. */
function issuerScopePrefix(config: { identity: string; scopePrefix?: string | undefined }): string {
  return config.identity === 'cognito' ? COGNITO_SCOPE_PREFIX : (config.scopePrefix ?? '');
}

/** What the pages use: every scope but `onboarding:redeem` (the onboarded user's, not staff's). */
const DASHBOARD_SCOPES: readonly Scope[] = SCOPES.filter((scope) => scope !== 'onboarding:redeem');

/** `openid` and every API scope the dashboard's pages use, each with the issuer's prefix. */
function dashboardScopeWith(prefix: string): string {
  return ['openid', ...DASHBOARD_SCOPES.map((scope) => `${prefix}${scope}`)].join(' ');
}

export type StackConfig = v.InferOutput<typeof stackConfigSchema>;

export const stackConfigKeys = Object.keys(stackConfigSchema.pipe[0].entries) as ReadonlyArray<keyof StackConfig>;

export class StackConfigError extends Error {
  override name = 'StackConfigError';
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/** Validates raw context values; throws a `StackConfigError` naming every offending key. */
export function parseStackConfig(context: Record<string, unknown>): StackConfig {
  // Every key present (possibly undefined), so a missing key reads "x is required", not valibot's generic message.
  const input = Object.fromEntries(stackConfigKeys.map((key) => [key, context[key]]));
  const result = v.safeParse(stackConfigSchema, input, { abortEarly: false });
  if (result.success) return result.output;
  const problems = result.issues.map((issue) => `${v.getDotPath(issue) ?? '(context)'}: ${issue.message}`);
  throw new StackConfigError(
    `Invalid CDK context (set it in cdk.json "context" or with -c key=value):\n  ${problems.join('\n  ')}`,
  );
}

/** Reads every configuration key from the construct tree's context (normally the App's). */
export function readStackConfig(node: Node): StackConfig {
  return parseStackConfig(Object.fromEntries(stackConfigKeys.map((key) => [key, node.tryGetContext(key) as unknown])));
}
