import { CfnOutput, Duration, Lazy, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Tracing } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { AlarmsConstruct } from './alarms-construct.ts';
import { ApiConstruct } from './api-construct.ts';
import { bindTable } from './bind-table.ts';
import { CognitoIdentityConstruct } from './cognito-identity-construct.ts';
import { DashboardConstruct } from './dashboard-construct.ts';
import { identityProviderConnectSources } from './dashboard-security-headers.ts';
import { DataConstruct } from './data-construct.ts';
import { EdgeConstruct } from './edge-construct.ts';
import { MailConstruct } from './mail-construct.ts';
import { ReportPipelineConstruct, workerTimeout } from './report-pipeline-construct.ts';
import { ReportSigningConstruct } from './report-signing-construct.ts';
import { SandboxStack } from './sandbox-stack.ts';
import type { SandboxWipeConstruct } from './sandbox-wipe-construct.ts';
import { apiRoutes, fallbackRoute, type ApiRoute } from '#shared/config/api-routes.ts';
import {
  apiFunctionNeeds,
  backgroundFunctionNeeds,
  deploymentFunctionNeeds,
  type BackgroundFunctionName,
  type DeploymentFunctionName,
  type Need,
} from '#shared/config/function-needs.ts';
import { BusinessMetric, METRICS_NAMESPACE } from '#shared/observability/metrics.ts';
import { OperationsDashboardConstruct } from './operations-dashboard-construct.ts';
import { SafeDeploymentsConstruct, type RolloutOptions } from './safe-deployments-construct.ts';
import { ServiceFunction, serviceName } from './service-function.ts';
import type { SyntheticRequestKind } from '#shared/domain/deployments/new-version-check.ts';
import type { StackConfig } from './stack-config.ts';
import { UsersDatabaseConstruct } from './users-database-construct.ts';
import { WebhooksConstruct } from './webhooks-construct.ts';

export interface ServiceStackProps extends StackProps {
  readonly config: StackConfig;
}

/** What a function may be granted access to through its declared needs. */
interface RouteResources {
  readonly data: DataConstruct;
  readonly mail: MailConstruct;
  readonly reports: ReportPipelineConstruct;
  readonly reportSigning: ReportSigningConstruct;
  readonly webhooks: WebhooksConstruct;
  readonly usersDatabase: UsersDatabaseConstruct;
  readonly sandboxWipes: SandboxWipeConstruct;
  /** Report requests per organization in any 10 minutes (context `reportRateLimit`). */
  readonly reportRateLimit: number;
  /** Tells a function that sends onboarding e-mails their quotas (context `emailQuotaPer…PerHour`). */
  readonly applyEmailQuotas: (fn: ServiceFunction) => void;
  /** Lets a route's function append to the audit trail (PutItem alone) and tells it the retention. */
  readonly recordAudit: (fn: ServiceFunction) => void;
  /** Where clients call the API (the stack's `apiUrl`), known once the dashboard's distribution is built. */
  readonly apiUrl: string;
  /** The Cognito user pool of `-c identity=cognito`, whose trigger alone needs it; none with another issuer. */
  readonly identity: CognitoIdentityConstruct | undefined;
  /** The claim the API reads the organization from (context `orgClaim`). */
  readonly orgClaim: string;
  /** The deployments (the parent's or the sandbox's) a pre-traffic hook belongs to. */
  readonly deploymentsOf: (hook: ServiceFunction) => SafeDeploymentsConstruct;
}

type NeedGrant = (fn: ServiceFunction, resources: RouteResources) => void;

/**
 * Each need of shared/config/function-needs.ts as IAM statements and variables, and nothing more: a
 * route's function gets the grants of the needs its declaration names, in their order.
 */
const needGrants: Readonly<Record<Need, NeedGrant>> = {
  audit: (fn, { recordAudit }) => recordAudit(fn),
  'auditEvents:read': (fn, { data }) => bindTable(fn, data.tables.AuditEvents, 'read'),
  'onboardingTokens:read': (fn, { data }) => bindTable(fn, data.tables.OnboardingTokens, 'read'),
  'onboardingTokens:readWrite': (fn, { data }) => bindTable(fn, data.tables.OnboardingTokens, 'readWrite'),
  idempotency: (fn, { data }) => bindTable(fn, data.tables.Idempotency, 'readWrite'),
  onboardingMail: (fn, { mail }) => mail.grantSendOnboardingEmail(fn),
  emailQuotas: (fn, { applyEmailQuotas }) => applyEmailQuotas(fn),
  webhookPublishing: (fn, { webhooks }) => webhooks.grantPublish(fn),
  pendingWebhookEvents: (fn, { webhooks }) => webhooks.grantTakePending(fn),
  webhookSecrets: (fn, { webhooks }) => webhooks.grantSealSecrets(fn),
  'webhookSecrets:open': (fn, { webhooks }) => webhooks.grantOpenSecrets(fn),
  'webhooks:read': (fn, { data }) => bindTable(fn, data.tables.Webhooks, 'read'),
  'webhooks:readWrite': (fn, { data }) => bindTable(fn, data.tables.Webhooks, 'readWrite'),
  'webhooks:append': (fn, { data }) => bindTable(fn, data.tables.Webhooks, 'append'),
  'reportJobs:readWrite': (fn, { data }) => bindTable(fn, data.tables.ReportJobs, 'readWrite'),
  'reportJobs:listByOrganization': (fn, { data }) =>
    bindTable(fn, data.tables.ReportJobs, 'read', { indexes: ['jobsByOrganization'] }),
  'reportJobs:readWriteByOrganization': (fn, { data }) =>
    bindTable(fn, data.tables.ReportJobs, 'readWrite', { indexes: ['jobsByOrganization'] }),
  reportRequests: (fn, { reports, reportRateLimit }) => {
    reports.grantEnqueue(fn);
    // Jobs expire with their PDFs (the bucket's lifecycle rule uses the same number of days).
    fn.addEnvironment('REPORT_RETENTION_DAYS', String(reports.retentionDays));
    fn.addEnvironment('REPORT_RATE_LIMIT', String(reportRateLimit));
  },
  reportDownloads: (fn, { reports }) => reports.grantReportDownloads(fn),
  reportRemovals: (fn, { reports }) => reports.grantReportRemovals(fn),
  reportSigningCertificates: (fn, { reportSigning }) => reportSigning.grantReadCertificates(fn),
  'usersDatabase:read': (fn, { usersDatabase }) => usersDatabase.grantReadUsers(fn),
  'usersDatabase:erase': (fn, { usersDatabase }) => usersDatabase.grantEraseUsers(fn),
  'usersDatabase:writeSandbox': (fn, { usersDatabase }) => usersDatabase.grantWriteSandboxUsers(fn),
  // Its server is where this stage's clients call.
  apiUrl: (fn, { apiUrl }) => fn.addEnvironment('API_URL', apiUrl),
  sandboxWipes: (fn, { sandboxWipes }) => {
    sandboxWipes.grantWipeRecords(fn);
    sandboxWipes.grantSendWipes(fn);
  },
  'reportJobs:sweep': (fn, { data }) =>
    bindTable(fn, data.tables.ReportJobs, 'readWrite', { indexes: ['openJobsByAge'] }),
  reportWrites: (fn, { reports }) => reports.grantReportWrites(fn),
  reportRedelivery: (fn, { reports }) => reports.grantEnqueue(fn),
  reportSigning: (fn, { reportSigning }) => reportSigning.grantSigning(fn),
  webhookDelivery: (fn, { webhooks }) => webhooks.grantDeliver(fn),
  webhookQueue: (fn, { webhooks }) => webhooks.grantSendToQueue(fn),
  emailReputation: (fn, { mail }) => mail.grantCountEmailEvents(fn),
  // Granted by its construct for now (lib/sandbox-wipe-construct.ts): the sandboxes' partitions and folders alone.
  sandboxStores: () => undefined,
  'machineClients:lookup': (fn, { identity }) => {
    if (!identity) throw new Error(`${fn.node.path} looks machine clients up, which only identity=cognito has`);
    identity.grantClientLookup(fn);
  },
  organizationClaim: (fn, { orgClaim }) => fn.addEnvironment('ORG_CLAIM', orgClaim),
  'usersDatabase:migrate': (fn, { usersDatabase }) => usersDatabase.grantMigrate(fn),
  'reportSigningCertificates:publish': (fn, { reportSigning }) => reportSigning.grantPublishCertificates(fn),
  newVersionChecks: (fn, { deploymentsOf }) => deploymentsOf(fn).grantNewVersionChecks(fn),
};

/** A route's needs; a route in `apiRoutes` without a declaration stops the synth. */
function needsOf(route: ApiRoute): readonly Need[] {
  const needs = (apiFunctionNeeds as Readonly<Record<string, readonly Need[]>>)[route.name];
  if (!needs)
    throw new Error(
      `Route ${route.name} (${route.method} ${route.path}) has no needs in shared/config/function-needs.ts`,
    );
  return needs;
}

/**
 * Who signs callers in, as the API and the dashboard need it: the token settings every
 * authenticated function reads (shared/config/auth-config.ts), the dashboard's OpenID Connect
 * client, and the provider's origins the dashboard's CSP allows.
 */
interface IdentitySettings {
  readonly apiEnvironment: Record<string, string>;
  readonly dashboard: { issuer: string; clientId: string; endSessionEndpoint?: string };
  readonly connectOrigins: readonly string[];
}

function identitySettings(config: StackConfig, cognito: CognitoIdentityConstruct | undefined): IdentitySettings {
  const claims = { ORG_CLAIM: config.orgClaim, ORG_NAME_CLAIM: config.orgNameClaim, ROLE_CLAIM: config.roleClaim };
  if (cognito) {
    return {
      apiEnvironment: { ...claims, ...cognito.apiAuthEnvironment },
      dashboard: {
        issuer: cognito.issuer,
        clientId: cognito.dashboardClient.userPoolClientId,
        endSessionEndpoint: cognito.logoutEndpoint,
      },
      // Discovery on the issuer's host (a token here: no URL to parse), code exchange on the managed login domain.
      connectOrigins: [`https://cognito-idp.${Stack.of(cognito).region}.amazonaws.com`, cognito.loginOrigin],
    };
  }
  const { jwtIssuer, jwksUrl, dashboardClientId } = config;
  // The schema requires these with identity=oidc; this states it for the compiler.
  if (!jwtIssuer || !jwksUrl || !dashboardClientId)
    throw new Error('identity=oidc needs jwtIssuer, jwksUrl and dashboardClientId');
  return {
    apiEnvironment: {
      JWT_ISSUER: jwtIssuer,
      JWKS_URL: jwksUrl,
      ...(config.jwtAudience ? { JWT_AUDIENCE: config.jwtAudience } : {}),
      ...(config.jwtClientIds ? { JWT_CLIENT_IDS: config.jwtClientIds.join(',') } : {}),
      ...(config.machineClientIds ? { MACHINE_CLIENT_IDS: config.machineClientIds.join(',') } : {}),
      ...(config.scopePrefix ? { SCOPE_PREFIX: config.scopePrefix } : {}),
      ...claims,
    },
    dashboard: { issuer: jwtIssuer, clientId: dashboardClientId },
    connectOrigins: identityProviderConnectSources(jwtIssuer, config.tokenEndpoint),
  };
}

/** The whole service: tables, the users database, mail, the report pipeline, the HTTP API with one function per route, alarms. */
export class ServiceStack extends Stack {
  readonly data: DataConstruct;
  readonly usersDatabase: UsersDatabaseConstruct;
  readonly mail: MailConstruct;
  readonly reports: ReportPipelineConstruct;
  /** The report signing key (KMS) and its published certificates. */
  readonly reportSigning: ReportSigningConstruct;
  readonly webhooks: WebhooksConstruct;
  /** The sandbox's routes and wipe, in a nested stack (lib/sandbox-stack.ts). */
  readonly sandbox: SandboxStack;
  /** DELETE /v1/sandbox's queue and consumer (in `sandbox`). */
  readonly sandboxWipes: SandboxWipeConstruct;
  readonly api: ApiConstruct;
  readonly alarms: AlarmsConstruct;
  /** CodeDeploy's deployment group of each function callers reach through its `live` alias (contract §24). */
  readonly deployments: SafeDeploymentsConstruct;

  readonly dashboard: DashboardConstruct;
  /** The Cognito user pool of `-c identity=cognito`; none with an external OpenID Connect issuer. */
  readonly identity: CognitoIdentityConstruct | undefined;
  /** CloudFront's web ACL and origin secret of `-c edgeProtection=true` (default for `stage=prod`). */
  readonly edge: EdgeConstruct | undefined;
  /** Answers unmatched paths and methods (`$default` route). */
  readonly routeNotFound: ServiceFunction;
  /** One function per route of `apiRoutes`, by route name. */
  readonly routeFunctions: ReadonlyMap<string, ServiceFunction>;
  /**
   * Where clients call the API (the `ApiUrl` output without its final `/`): the edge's when it is on, since the
   * API's own address then refuses every call that did not come through it.
   */
  readonly apiUrl: string;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    // The edge's web ACL lives in us-east-1: its ARN reaches this stack through a cross-region reference.
    super(scope, id, { ...props, crossRegionReferences: props.crossRegionReferences ?? props.config.edgeProtection });
    const { config } = props;
    this.edge = config.edgeProtection
      ? new EdgeConstruct(this, 'Edge', {
          rateLimitPerIp: config.edgeRateLimitPerIp,
          rateLimitPerAuthorization: config.edgeRateLimitPerAuthorization,
          ...(config.originVerifySecretVersion ? { originVerifySecretVersion: config.originVerifySecretVersion } : {}),
        })
      : undefined;

    this.data = new DataConstruct(this, 'Data');
    this.usersDatabase = new UsersDatabaseConstruct(this, 'UsersDatabase', {
      stage: config.stage,
      backupSchedule: config.usersBackupSchedule,
      backupRetentionDays: config.usersBackupRetentionDays,
    });
    this.mail = new MailConstruct(this, 'Mail', {
      senderEmail: config.senderEmail,
      senderIdentity: config.senderIdentity,
      senderIdentityExists: config.senderIdentityExists,
      stage: config.stage,
      sandboxRecipients: config.sesSandboxRecipients,
      reputationTable: this.data.tables.OnboardingTokens,
    });
    // Its functions run outside the API: they get no token settings.
    this.reports = new ReportPipelineConstruct(this, 'Reports', {
      reportJobs: this.data.tables.ReportJobs,
      retentionDays: config.retentionDays,
      reservedConcurrency: config.reservedConcurrency,
    });
    this.reportSigning = new ReportSigningConstruct(this, 'ReportSigning', {
      stage: config.stage,
      worker: this.reports.worker,
      bucket: this.reports.bucket,
      operatorCertificates: config.reportSigningCertificates,
      timestampUrl: config.reportTimestampUrl,
    });
    this.webhooks = new WebhooksConstruct(this, 'Webhooks', {
      webhooks: this.data.tables.Webhooks,
      reservedConcurrency: config.reservedConcurrency,
    });
    // Does no authentication and touches no data: it only answers 404/405.
    this.routeNotFound = new ServiceFunction(this, fallbackRoute.name, {
      entry: fallbackRoute.entry,
      description: 'Answers unmatched paths and methods with 404/405',
    });
    this.edge?.guard(this.routeNotFound);
    this.api = new ApiConstruct(this, 'Api', {
      fallback: this.routeNotFound.invokedAlias,
      throttle: { rateLimit: config.apiThrottleRate, burstLimit: 2 * config.apiThrottleRate },
      ...(config.apiDomainName && config.apiCertificateArn
        ? { customDomain: { domainName: config.apiDomainName, certificateArn: config.apiCertificateArn } }
        : {}),
    });
    this.identity =
      config.identity === 'cognito'
        ? new CognitoIdentityConstruct(this, 'Identity', {
            stage: config.stage,
            domainPrefix: config.cognitoDomainPrefix,
            advancedSecurity: config.cognitoAdvancedSecurity,
            // The distribution is built below; its CSP names the pool's domain, so the pool cannot wait for it.
            dashboardUrl: Lazy.string({ produce: () => this.dashboard.dashboardUrl }),
          })
        : undefined;
    const identity = identitySettings(config, this.identity);

    this.alarms = new AlarmsConstruct(this, 'Alarms', {
      alarmEmail: config.alarmEmail,
      // The functions outside the API. A route function's failure is a 5XX answer, which the API's alarm pages
      // for: one alarm metric instead of one per route (docs/cost.md); the dashboard shows errors per route.
      functions: [
        this.reports.worker,
        this.reports.deadLetterHandler,
        this.reports.sweep,
        this.webhooks.delivery,
        this.webhooks.slowDelivery,
        this.webhooks.republish,
        // A failed migration fails the deploy too; the alarm tells whoever did not start it.
        this.usersDatabase.migrationFunction,
        // A failing trigger fails every sign-in and every machine token.
        ...(this.identity ? [this.identity.preTokenGeneration] : []),
      ],
    });
    const rollout = {
      allAtOnce: config.deployAllAtOnce,
      canaryPercent: config.canaryPercent,
      canaryMinutes: config.canaryMinutes,
      // Behind the edge every API function refuses a call that bypassed CloudFront first (403, the standard body).
      expectedApiStatus: this.edge ? 403 : 401,
    };
    this.deployments = new SafeDeploymentsConstruct(this, 'Deployments', rollout);
    this.sandbox = new SandboxStack(this, 'Sandbox', {
      api: this.api,
      data: this.data,
      reportsBucket: this.reports.bucket,
      usersDatabase: this.usersDatabase,
      alarmTopic: this.alarms.topic,
      rollout: { ...rollout, application: this.deployments.application },
    });
    this.sandboxWipes = this.sandbox.wipes;

    const resources: RouteResources = {
      data: this.data,
      mail: this.mail,
      reports: this.reports,
      reportSigning: this.reportSigning,
      webhooks: this.webhooks,
      usersDatabase: this.usersDatabase,
      sandboxWipes: this.sandboxWipes,
      reportRateLimit: config.reportRateLimit,
      applyEmailQuotas: (fn) => {
        fn.addEnvironment('EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR', String(config.emailQuotaPerRecipientPerHour));
        fn.addEnvironment('EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR', String(config.emailQuotaPerOrganizationPerHour));
        fn.addEnvironment('EMAIL_REPUTATION_FAIL_OPEN_SECONDS', String(config.emailReputationFailOpenSeconds));
      },
      recordAudit: (fn) => {
        bindTable(fn, this.data.tables.AuditEvents, 'append');
        fn.addEnvironment('AUDIT_RETENTION_DAYS', String(config.auditRetentionDays));
      },
      apiUrl: Lazy.string({ produce: () => this.apiUrl }),
      identity: this.identity,
      orgClaim: config.orgClaim,
      deploymentsOf: (hook) => (Stack.of(hook) === this.sandbox ? this.sandbox.deployments : this.deployments),
    };
    // The functions a queue, a schedule or an event invokes get the grants of their declared needs, in their order.
    const backgroundFunctions: Record<BackgroundFunctionName, readonly ServiceFunction[]> = {
      ProcessReportJobs: [this.reports.worker],
      FailDeadLetteredReportJobs: [this.reports.deadLetterHandler],
      SweepTimedOutReportJobs: [this.reports.sweep],
      DeliverWebhooks: [this.webhooks.delivery, this.webhooks.slowDelivery],
      RepublishWebhookEvents: [this.webhooks.republish],
      CountEmailEvents: [this.mail.eventCounter],
      // Granted in lib/sandbox-wipe-construct.ts for now: its statements are narrower than any need's (the sandboxes'
      // partitions and folders alone), so granting its needs here as well would widen it.
      ProcessSandboxWipes: [],
      PreTokenGeneration: this.identity ? [this.identity.preTokenGeneration] : [],
    };
    for (const [name, fns] of Object.entries(backgroundFunctions) as Array<[BackgroundFunctionName, ServiceFunction[]]>)
      for (const fn of fns) for (const need of backgroundFunctionNeeds[name]) needGrants[need](fn, resources);
    const routeFunctions = new Map<string, ServiceFunction>();
    for (const route of apiRoutes) {
      const needs = needsOf(route);
      // The sandbox's routes are in its nested stack: this one would hold more than 500 resources with them.
      const fn = new ServiceFunction(route.sandboxOnly ? this.sandbox : this, route.name, {
        entry: route.entry,
        description: `${route.method} ${route.path}`,
        ...(route.timeoutSeconds ? { timeout: Duration.seconds(route.timeoutSeconds) } : {}),
        // A public route verifies no token, so it gets no token settings.
        environment: route.public ? {} : identity.apiEnvironment,
        // Reads are what clients poll (a report's status above all); the HTTP API passes no trace header, so
        // these record no trace, where active tracing would record one per poll (docs/cost.md).
        ...(route.method === 'GET' ? { tracing: Tracing.PASS_THROUGH } : {}),
      });
      // Machine clients added by org:add are recognised at run time (CognitoIdentityConstruct).
      if (!route.public) this.identity?.grantClientLookup(fn);
      for (const need of needs) needGrants[need](fn, resources);
      this.edge?.guard(fn);
      if (!route.public) this.grantRequestBudget(fn, config);
      if (route.sandboxOnly) this.sandbox.addRoute(route, fn);
      else this.api.addRoute(route, fn.invokedAlias);
      routeFunctions.set(route.name, fn);
    }
    this.routeFunctions = routeFunctions;

    this.dashboard = new DashboardConstruct(this, 'Dashboard', {
      httpApi: this.api.httpApi,
      accessLogsBucket: this.reports.accessLogsBucket,
      oidc: {
        ...identity.dashboard,
        scope: config.dashboardScope,
        sandboxScope: config.dashboardSandboxScope,
        audience: config.dashboardAudience,
      },
      identityProviderOrigins: identity.connectOrigins,
      ...(config.apiDomainName ? { apiOriginDomainName: config.apiDomainName } : {}),
      ...(this.edge ? { apiOriginHeaders: this.edge.apiOriginHeaders, webAclArn: this.edge.webAclArn } : {}),
    });
    this.reports.allowBrowserDownloadsFrom(this.dashboard.origin);
    this.apiUrl = this.edge ? this.dashboard.origin : this.api.origin;
    DashboardConstruct.suppressNagFindings(this.dashboard);

    this.alarms.addHttpApiServerErrorsAlarm(this.api.httpApi);
    this.addOperatorOutputs();
    // Cost reports and access policies can tell the service and its stages apart.
    for (const stack of [this, ...(this.edge ? [this.edge.webAclStack] : [])]) {
      Tags.of(stack).add('service', SERVICE_TAG);
      Tags.of(stack).add('stage', config.stage);
    }
    // Its handler drains it within seconds: the receive count pages for every dead letter, and a message the
    // handler cannot finish pages through the handler's Errors alarm or DeadLetterMessagesAbandoned.
    this.alarms.addDeadLetterReceivesAlarm(this.reports.deadLetterQueue);
    // Nothing consumes the webhook DLQ: its depth is the failing-deliveries alarm.
    this.alarms.addDeadLetterQueueAlarm(this.webhooks.deadLetterQueue);
    // The SES event counter's alarm: an event lands here only once EventBridge's and Lambda's retries are spent, so
    // it pages for a lasting failure and not for a retried blip (the counter's Errors would page for both).
    this.alarms.addDeadLetterQueueAlarm(
      this.mail.eventDeadLetterQueue,
      "Send, bounce or complaint events of the onboarding e-mails were never counted: an organization's pause may come " +
        "late. Read CountEmailEvents' ERROR lines (and each message's ERROR_CODE or ErrorMessage attribute) for the " +
        'cause; once fixed, replay the messages as the operations guide says (an event counted twice counts once).',
    );

    // A job must finish within 5 minutes of its request: a message 2 minutes old is at risk.
    this.alarms.addQueueAgeAlarm(this.reports.queue, REPORT_QUEUE_MAX_AGE);
    this.alarms.addFunctionThrottlesAlarm(this.reports.worker);
    this.alarms.addFunctionDurationAlarm(this.reports.worker, workerTimeout);
    // The tables the queue consumers and schedules write: their throttling answers no request. The other tables
    // serve the API alone, where a throttled request is a 503 and pages through the 5XX alarm (the dashboard
    // shows every table's throttles).
    for (const name of ['ReportJobs', 'Webhooks'] as const)
      this.alarms.addTableThrottlesAlarm(name, this.data.tables[name]);
    this.alarms.addUsersDatabaseAlarms(this.usersDatabase.clusterIdentifier);
    this.alarms.addBackupJobFailuresRule('UsersDatabase', this.usersDatabase.backupVault.backupVaultName);
    this.alarms.addSesReputationAlarms(this.mail.configurationSet.configurationSetName);
    const dimensions = { service: serviceName, stage: config.stage };
    this.alarms.addBusinessMetricAlarm(
      BusinessMetric.SweepItemsSkipped,
      dimensions,
      'The sweep skipped an open-job item it could not fail (corrupt or oversized). ' +
        'Find the item in the sweep log ("skipped"), fix or delete it by hand; the other jobs were still timed out.',
    );
    this.alarms.addBusinessMetricAlarm(
      BusinessMetric.DeadLetterMessagesAbandoned,
      dimensions,
      'The dead-letter handler gave up on a message after its bounded attempts. ' +
        'Read its ERROR line for the job id and fail or delete that job by hand.',
    );
    this.alarms.addBusinessMetricAlarm(
      BusinessMetric.AuditEventsLost,
      dimensions,
      'An audit event could not be written (DynamoDB failed after the SDK retries): the trail misses a change that ' +
        'succeeded. The function log has the event id, action, target and organization; add the event by hand.',
    );
    this.alarms.addBusinessMetricAlarm(
      BusinessMetric.WebhookEventsLost,
      dimensions,
      'A webhook event could be neither queued nor kept as pending (SQS and then DynamoDB failed after the SDK ' +
        'retries), so no endpoint will receive it. Check SQS and DynamoDB health; the publishing function log has the ' +
        'event id, type and organization, and the state change itself succeeded.',
    );
    this.alarms.addBusinessMetricAlarm(
      BusinessMetric.WebhookEventsKept,
      dimensions,
      'SQS refused webhook events: they were kept as pending, and the republish schedule (every minute) queues ' +
        'them once SQS takes messages again. Check SQS health; nothing is lost while this lasts under 4 days.',
    );
    this.mail.alarmOnPauses(this.alarms, dimensions);

    if (config.operationsDashboard) {
      const operations = new OperationsDashboardConstruct(this, 'Operations', {
        serviceName,
        stage: config.stage,
        httpApi: this.api.httpApi,
        routeFunctions,
        worker: this.reports.worker,
        reportQueue: this.reports.queue,
        reportDeadLetterQueue: this.reports.deadLetterQueue,
        sesConfigurationSetName: this.mail.configurationSet.configurationSetName,
        webhookQueue: this.webhooks.queue,
        webhookDelivery: this.webhooks.delivery,
        webhookSlowQueue: this.webhooks.slowQueue,
        webhookSlowDelivery: this.webhooks.slowDelivery,
        webhookDeadLetterQueue: this.webhooks.deadLetterQueue,
        tables: this.data.tables,
      });
      // CloudFormation's schema for dashboards (as cfn-lint ships it) has no Tags property.
      Tags.of(operations.dashboard).remove('service');
      Tags.of(operations.dashboard).remove('stage');
      new CfnOutput(this, 'OperationsDashboardUrl', {
        value: `https://console.aws.amazon.com/cloudwatch/home?region=${this.region}#dashboards:name=${operations.dashboard.dashboardName}`,
        description: 'CloudWatch dashboard of this stage',
      });
    }
    this.rollOutThroughCodeDeploy();
    // The functions a deploy runs get the grants of their declared needs too; the hooks once every function is added.
    const deploymentFunctions: Record<DeploymentFunctionName, readonly ServiceFunction[]> = {
      MigrateUsersDatabase: [this.usersDatabase.migrationFunction],
      PublishReportSigningCertificates: [this.reportSigning.publisherFunction],
      CheckNewVersion: [...this.deployments.hooks.values(), ...this.sandbox.deployments.hooks.values()],
    };
    for (const [name, fns] of Object.entries(deploymentFunctions) as Array<[DeploymentFunctionName, ServiceFunction[]]>)
      for (const fn of fns) for (const need of deploymentFunctionNeeds[name]) needGrants[need](fn, resources);
    // Every function's metrics carry this stage's dimension (shared/observability/metrics.ts).
    for (const fn of this.node.findAll().filter((node) => node instanceof ServiceFunction)) {
      fn.addEnvironment('STAGE', config.stage);
      fn.addEnvironment('POWERTOOLS_METRICS_NAMESPACE', METRICS_NAMESPACE);
    }
  }

  /**
   * Contract §24: every function a route, an event source, a schedule or the user pool invokes gets a deployment
   * group, a pre-traffic check of its kind, and its new version's alarms: §7's where they exist (made per version),
   * and, when the rollout takes a while (canary, linear), errors and p99 duration for the rest. All at once, an alarm
   * could roll nothing back: the check alone guards, and the idle stage pays for no alarm it could not use.
   */
  private rollOutThroughCodeDeploy(): void {
    const answersWithoutToken = (status: number) => (this.edge ? {} : { expectedApiStatus: status });
    const rolledOut: Array<[ServiceFunction, SyntheticRequestKind, RolloutOptions]> = [
      ...apiRoutes.map((route): [ServiceFunction, SyntheticRequestKind, RolloutOptions] => [
        this.routeFunctions.get(route.name)!,
        'api',
        route.public ? answersWithoutToken(200) : {},
      ]),
      [this.routeNotFound, 'api', answersWithoutToken(404)],
      [this.reports.worker, 'queue', {}],
      [this.reports.deadLetterHandler, 'queue', {}],
      [this.webhooks.delivery, 'queue', {}],
      [this.webhooks.slowDelivery, 'queue', {}],
      [this.sandboxWipes.consumer, 'queue', {}],
      [this.reports.sweep, 'schedule', {}],
      [this.webhooks.republish, 'schedule', {}],
      [this.mail.eventCounter, 'ses-event', {}],
    ];
    // Cognito's trigger is no API function: §24 canaries those alone, so it rolls out as the queue consumers do (10%
    // more a minute where the rollout is watched, all at once elsewhere), its §7 Errors alarm reading the new version.
    if (this.identity)
      rolledOut.push([this.identity.preTokenGeneration, 'pre-token-generation', { policyOfItsOwn: true }]);
    for (const [fn, kind, options] of rolledOut) {
      // A nested stack's function is watched and rolled out by that stack's alarms and groups (lib/sandbox-stack.ts).
      const { alarms: stackAlarms, deployments } = Stack.of(fn) === this.sandbox ? this.sandbox : this;
      const alarms = deployments.watchesRollout
        ? stackAlarms.addNewVersionAlarms(fn)
        : (stackAlarms.newVersionAlarms.get(fn) ?? []);
      deployments.add(fn, kind, alarms, options);
    }
  }

  /**
   * Every authenticated route spends its organization's request budget (shared/http/limits/request-budget.ts)
   * and holds one of its concurrency slots (shared/http/limits/concurrency.ts), both items of the
   * RequestBudgets table: UpdateItem on it and nothing else, and the limits from context.
   */
  private grantRequestBudget(fn: ServiceFunction, config: StackConfig): void {
    const table = this.data.tables.RequestBudgets;
    fn.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:UpdateItem'], resources: [table.tableArn] }));
    fn.addEnvironment(table.definition.envVar, table.tableName);
    fn.addEnvironment('REQUEST_BUDGET_RATE', String(config.requestBudgetRate));
    fn.addEnvironment('REQUEST_BUDGET_BURST', String(config.requestBudgetBurst));
    fn.addEnvironment('CONCURRENCY_PER_ORGANIZATION', String(config.concurrencyPerOrganization));
    fn.addEnvironment('DATABASE_CONCURRENCY_PER_ORGANIZATION', String(config.databaseConcurrencyPerOrganization));
  }

  /** What an operator needs after a deploy without opening the console (`users:import --database <UsersDatabaseEndpoint>` and so on). */
  private addOperatorOutputs(): void {
    new CfnOutput(this, 'ApiUrl', {
      value: `${this.apiUrl}/`,
      description: this.edge
        ? 'Base URL of the HTTP API for clients: the edge (CloudFront and its web ACL)'
        : 'Base URL of the HTTP API for clients',
    });
    if (this.edge) {
      new CfnOutput(this, 'ApiOriginUrl', {
        value: `${this.api.origin}/`,
        description: 'The API behind the edge (CloudFront calls it): not for clients, it refuses their calls with 403',
      });
    }
    new CfnOutput(this, 'DashboardUrl', {
      value: this.dashboard.dashboardUrl,
      description: 'The organization dashboard (staff sign in with OpenID Connect); /v1/* there is the API',
    });
    for (const [name, table] of Object.entries(this.data.tables)) {
      new CfnOutput(this, `${name}TableName`, { value: table.tableName, description: `DynamoDB table ${name}` });
    }
    if (this.identity) this.addIdentityOutputs(this.identity);
    new CfnOutput(this, 'UsersDatabaseEndpoint', {
      value: this.usersDatabase.endpoint,
      description:
        'Aurora DSQL endpoint of the users database (host; port 5432, database postgres, IAM authentication)',
    });
    new CfnOutput(this, 'UsersDatabaseClusterArn', {
      value: this.usersDatabase.clusterArn,
      description: 'ARN of the users database cluster (for dsql:DbConnect / dsql:DbConnectAdmin policies)',
    });
    new CfnOutput(this, 'UsersDatabaseBackupVaultName', {
      value: this.usersDatabase.backupVault.backupVaultName,
      description: 'AWS Backup vault holding the users database backups (docs/operate.md, "Backups and restoring")',
    });
    new CfnOutput(this, 'UsersDatabaseBackupRoleArn', {
      value: this.usersDatabase.backupRole.roleArn,
      description: 'Role AWS Backup restores the users database with (start-restore-job --iam-role-arn)',
    });
    new CfnOutput(this, 'ReportsBucketName', {
      value: this.reports.bucket.bucketName,
      description: 'S3 bucket of the report PDFs',
    });
    new CfnOutput(this, 'ReportQueueUrl', {
      value: this.reports.queue.queueUrl,
      description: 'SQS queue of report jobs',
    });
    new CfnOutput(this, 'ReportDeadLetterQueueUrl', {
      value: this.reports.deadLetterQueue.queueUrl,
      description: 'Dead-letter queue of report jobs',
    });
    new CfnOutput(this, 'WebhookQueueUrl', {
      value: this.webhooks.queue.queueUrl,
      description: 'SQS queue of webhook events and delivery attempts (the fast lane)',
    });
    new CfnOutput(this, 'WebhookSlowQueueUrl', {
      value: this.webhooks.slowQueue.queueUrl,
      description: 'SQS queue of webhook deliveries to endpoints that answer slowly (the slow lane)',
    });
    new CfnOutput(this, 'WebhookDeadLetterQueueUrl', {
      value: this.webhooks.deadLetterQueue.queueUrl,
      description: 'Dead-letter queue of webhook messages',
    });
  }

  /** What `npm run org:add` and an operator need from the user pool (docs/identity-providers.md). */
  private addIdentityOutputs(identity: CognitoIdentityConstruct): void {
    new CfnOutput(this, 'UserPoolId', {
      value: identity.userPool.userPoolId,
      description: 'Cognito user pool of staff and machine clients',
    });
    new CfnOutput(this, 'MachineClientsTableName', {
      value: identity.machineClients.tableName,
      description: 'DynamoDB table: which organization each machine client acts for (written by org:add)',
    });
    new CfnOutput(this, 'TokenEndpoint', {
      value: identity.tokenEndpoint,
      description: 'OAuth token endpoint (client credentials for machine clients)',
    });
    new CfnOutput(this, 'TokenIssuer', { value: identity.issuer, description: 'iss of the user pool tokens' });
    new CfnOutput(this, 'DashboardClientId', {
      value: identity.dashboardClient.userPoolClientId,
      description: 'The dashboard app client (authorization code + PKCE)',
    });
  }
}

/** Age of the oldest report message that raises an alarm. */
export const REPORT_QUEUE_MAX_AGE = Duration.minutes(2);

/** The stack of one stage: `-c stage=prod` deploys OnboardingReportsService-prod beside -dev. */
export const serviceStackName = (stage: string): string => `OnboardingReportsService-${stage}`;

/** The `service` tag on every resource; `stage` tells the deployments apart. */
export const SERVICE_TAG = 'onboarding-reports-service';
