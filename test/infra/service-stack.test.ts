import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CfnResource } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '#lib/service-stack.ts';
import { HOOK_ENTRY } from '#lib/safe-deployments-construct.ts';
import { ServiceFunction } from '#lib/service-function.ts';
import { SYNTHETIC_REQUEST_KINDS } from '#shared/domain/deployments/new-version-check.ts';
import type { IConstruct } from 'constructs';
import { bundleFileName, esbuildOptionsFor } from '#lib/bundling.ts';
import { repoRoot } from '#lib/repo-root.ts';
import { allReportFontFiles, installedPath } from '#shared/adapters/pdf/report-fonts.ts';
import {
  apiRoutes,
  fallbackRoute,
  reportPipelineFunctions,
  usersDatabaseMigrationFunction,
  reportSigningCertificatesFunction,
  emailEventsFunction,
  sandboxWipeFunction,
  webhookDeliveryFunction,
  webhookRepublishFunction,
} from '#shared/config/api-routes.ts';
import { allTables, requestBudgetsTable } from '#shared/config/table-definitions.ts';
import { WEBHOOK_LANE_CONSUMERS } from '#shared/queue/webhook-messages.ts';
import { buildServiceStack, exampleContext, logicalIdOf } from './service-stack-fixture.ts';
import {
  actionsOf,
  apartFromRequestBudget,
  resourcesOf,
  templateQueries,
  type Resource,
  type Statement,
  wholeTemplateOf,
} from './template-queries.ts';

const run = promisify(execFile);
const SYNTHESIZE_BUNDLED_STACK = fileURLToPath(new URL('./synthesize-bundled-stack.ts', import.meta.url));
const BUNDLED_STACK_ID = 'ServiceUnderTest';

/** What active tracing grants every function, on `*`. */
const X_RAY_ACTIONS = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

let stack: ServiceStack;
let template: Template;
let resources: Record<string, Resource>;
let queries: ReturnType<typeof templateQueries>;

beforeAll(() => {
  // The template's rules do not depend on the bundles: those are built once, below, in a process of their own.
  ({ stack } = buildServiceStack({ bundle: false }));
  template = wholeTemplateOf(stack);
  queries = templateQueries(template);
  resources = queries.resources;
});

/**
 * The CDK's BucketDeployment handler (it uploads the dashboard during a deploy, see
 * lib/dashboard-construct.ts and test/infra/dashboard.test.ts) is the CDK's own Python function
 * with its own role, and the CDK Provider framework's function (it calls the users database
 * migration for CloudFormation, lib/users-database-construct.ts) is the CDK's own Node.js code:
 * neither is a function of the service, and the rules below are the service's. (The framework's
 * role and log group are the service's, and are checked.)
 */
const isDeployTimeHelper = (logicalId: string) =>
  logicalId.startsWith('CustomCDKBucketDeployment') || providerFrameworkIds().has(logicalId);
const providerFrameworkIds = () =>
  new Set(
    [stack.usersDatabase.migrationProvider, stack.reportSigning.publisherProvider]
      .flatMap((provider) => provider.node.findAll())
      .filter((construct) => construct instanceof CfnResource)
      .map((resource) => stack.getLogicalId(resource as CfnResource)),
  );
const ofType = (type: string) => queries.ofType(type).filter(([logicalId]) => !isDeployTimeHelper(logicalId));
// API routes, the fallback, the report pipeline, the webhook delivery functions (one per lane), the republish of
// pending webhook events, the users database migration and the report signing certificates' publisher.
// Routes, the fallback, the report pipeline, both webhook lanes, the republish, the migration, the certificate
// publisher, the SES event counter and the sandbox wipe's consumer.
// ... and a pre-traffic hook per kind of synthetic request (lib/safe-deployments-construct.ts) but the Cognito
// trigger's, which only identity=cognito has; and the sandbox's nested stack's own hooks (lib/sandbox-stack.ts), of
// its API routes and its wipe queue's consumer.
const functionCount =
  apiRoutes.length +
  1 +
  Object.keys(reportPipelineFunctions).length +
  2 +
  1 +
  1 +
  1 +
  1 +
  1 +
  SYNTHETIC_REQUEST_KINDS.filter((kind) => kind !== 'pre-token-generation').length +
  2;
/** The function whose `live` alias a reference names, by the alias's logical id. */
const functionOfAlias = () =>
  new Map(
    stack.node
      .findAll()
      .filter((node): node is ServiceFunction => node instanceof ServiceFunction && node.live !== undefined)
      .map((fn) => [logicalIdOf(fn.invokedAlias), logicalIdOf(fn)]),
  );
/** `{"Ref": alias}` of `fn`'s live alias: what routes, event sources and schedules invoke. */
const aliasRef = (fn: ServiceFunction) => ({ Ref: logicalIdOf(fn.invokedAlias) });

function routeFunction(name: string) {
  const fn = stack.routeFunctions.get(name);
  if (!fn) throw new Error(`no route function ${name}`);
  return fn;
}

const fallbackFunction = () => stack.routeNotFound;

const statementsOf = (fn: ReturnType<typeof routeFunction>): Statement[] => queries.statementsOf(fn);
/** What the function may do besides spending its organization's request budget (tested in "the request budget"). */
const otherStatementsOf = (fn: ReturnType<typeof routeFunction>): Statement[] =>
  apartFromRequestBudget(statementsOf(fn), stack.data.tables.RequestBudgets);
const environmentOf = (fn: ReturnType<typeof routeFunction>): Record<string, unknown> => queries.environmentOf(fn);
const webhooksTableName = () => ({ Ref: logicalIdOf(stack.data.tables.Webhooks) });

describe('HTTP API', () => {
  it('routes each onboarding, report and user-status route to its own function and everything else to the fallback', () => {
    const functionOfRouteKey = new Map(
      ofType('AWS::ApiGatewayV2::Route').map(([, route]) => {
        const integrationId = (route.Properties.Target['Fn::Join'][1][1] as { Ref: string }).Ref;
        // The live alias of the route's function (contract §24).
        const uri = resources[integrationId]!.Properties.IntegrationUri as { Ref: string };
        return [route.Properties.RouteKey as string, functionOfAlias().get(uri.Ref)];
      }),
    );
    expect(Object.fromEntries(functionOfRouteKey)).toEqual({
      'POST /v1/onboarding-token': logicalIdOf(routeFunction('CreateOnboardingToken')),
      'GET /v1/onboarding-tokens': logicalIdOf(routeFunction('ListOnboardingTokens')),
      'POST /v1/onboarding-token/redeem': logicalIdOf(routeFunction('RedeemOnboardingToken')),
      'DELETE /v1/onboarding-tokens/{tokenId}': logicalIdOf(routeFunction('RevokeOnboardingToken')),
      'POST /v1/onboarding-tokens/{tokenId}/resend': logicalIdOf(routeFunction('ResendOnboardingToken')),
      'POST /v1/document/api': logicalIdOf(routeFunction('CreateReportJob')),
      'GET /v1/document/api': logicalIdOf(routeFunction('ListReportJobs')),
      'GET /v1/document/api/{id}': logicalIdOf(routeFunction('GetReportJob')),
      'GET /v1/document/api/{id}/url': logicalIdOf(routeFunction('GetReportDownloadUrl')),
      'GET /v1/report-signing-certificates': logicalIdOf(routeFunction('ListReportSigningCertificates')),
      'POST /v1/user-status': logicalIdOf(routeFunction('QueryUserStatus')),
      'DELETE /v1/users/{id}': logicalIdOf(routeFunction('EraseUser')),
      'DELETE /v1/sandbox': logicalIdOf(routeFunction('WipeSandbox')),
      'POST /v1/webhooks': logicalIdOf(routeFunction('CreateWebhookEndpoint')),
      'GET /v1/webhooks': logicalIdOf(routeFunction('ListWebhookEndpoints')),
      'DELETE /v1/webhooks/{id}': logicalIdOf(routeFunction('DeleteWebhookEndpoint')),
      'POST /v1/webhooks/{id}/test': logicalIdOf(routeFunction('TestWebhookEndpoint')),
      'GET /v1/webhooks/{id}/deliveries': logicalIdOf(routeFunction('ListWebhookDeliveries')),
      'GET /v1/audit-events': logicalIdOf(routeFunction('ListAuditEvents')),
      'GET /v1/sandbox/scenarios': logicalIdOf(routeFunction('ListSandboxScenarios')),
      'POST /v1/sandbox/users': logicalIdOf(routeFunction('ImportSandboxUsers')),
      'GET /v1/sandbox/emails': logicalIdOf(routeFunction('ListSandboxEmails')),
      'POST /v1/sandbox/events': logicalIdOf(routeFunction('TriggerSandboxEvent')),
      'POST /v1/sandbox/onboarding-tokens/{tokenId}/expire': logicalIdOf(routeFunction('ExpireSandboxOnboardingToken')),
      'POST /v1/sandbox/webhook-listener': logicalIdOf(routeFunction('OpenSandboxWebhookListener')),
      'GET /v1/sandbox/webhook-messages': logicalIdOf(routeFunction('ListSandboxWebhookMessages')),
      'GET /v1/openapi.json': logicalIdOf(routeFunction('GetOpenApiDocument')),
      $default: logicalIdOf(fallbackFunction()),
    });
  });

  it('logs every request of the $default stage as JSON with request id, route, status and latency', () => {
    const stages = ofType('AWS::ApiGatewayV2::Stage');
    expect(stages).toHaveLength(1);
    const [, stage] = stages[0]!;
    expect(stage.Properties.StageName).toBe('$default');
    const destination = stage.Properties.AccessLogSettings.DestinationArn['Fn::GetAtt'][0] as string;
    expect(resources[destination]?.Type).toBe('AWS::Logs::LogGroup');
    const format = JSON.parse(stage.Properties.AccessLogSettings.Format as string) as Record<string, string>;
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      routeKey: '$context.routeKey',
      status: '$context.status',
      latency: '$context.responseLatency',
    });
  });

  it('throttles the default stage at 1,000 requests a second (bursts of 2,000), far above one organization’s budget', () => {
    const [, stage] = ofType('AWS::ApiGatewayV2::Stage')[0]!;
    expect(stage.Properties.DefaultRouteSettings).toMatchObject({
      ThrottlingRateLimit: 1000,
      ThrottlingBurstLimit: 2000,
    });
  });

  it('takes the stage throttle from the apiThrottleRate context value, bursts of twice it', () => {
    const { stack: configured } = buildServiceStack({ bundle: false, context: { apiThrottleRate: '400' } });
    const stages = wholeTemplateOf(configured).findResources('AWS::ApiGatewayV2::Stage');
    expect(Object.values(stages).map((stage) => stage.Properties.DefaultRouteSettings)).toEqual([
      expect.objectContaining({ ThrottlingRateLimit: 400, ThrottlingBurstLimit: 800 }),
    ]);
  });

  it('outputs the API URL', () => {
    expect(Object.keys(template.findOutputs('*')).some((name) => name.includes('ApiUrl'))).toBe(true);
  });
});

describe('functions', () => {
  it('run every function on nodejs24.x and arm64 from a CommonJS bundle, with stack traces mapped to TypeScript and platform log lines kept', () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions).toHaveLength(functionCount);
    for (const [, fn] of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.Handler).toBe('index.handler');
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
      expect(fn.Properties.LoggingConfig.LogFormat).toBe('JSON');
      expect(fn.Properties.LoggingConfig.SystemLogLevel).toBe('INFO');
    }
  });

  it('send every function’s logs to its own log group, kept one month', () => {
    const logGroupIds = ofType('AWS::Lambda::Function').map(
      ([, fn]) => (fn.Properties.LoggingConfig.LogGroup as { Ref: string }).Ref,
    );
    expect(new Set(logGroupIds).size).toBe(functionCount);
    for (const id of logGroupIds) expect(resources[id]?.Properties.RetentionInDays).toBe(30);
    for (const [, logGroup] of ofType('AWS::Logs::LogGroup')) expect(logGroup.Properties.RetentionInDays).toBe(30);
  });

  it('give every authenticated API function the token verification settings, and public routes, the fallback and report pipeline none', () => {
    const expected = {
      JWT_ISSUER: exampleContext.jwtIssuer,
      JWT_AUDIENCE: exampleContext.jwtAudience,
      JWKS_URL: exampleContext.jwksUrl,
      ORG_CLAIM: 'org_id',
      ORG_NAME_CLAIM: 'org_name',
    };
    for (const { name } of apiRoutes.filter((route) => !route.public))
      expect(environmentOf(routeFunction(name))).toMatchObject(expected);
    const publicFunctions = apiRoutes.filter((route) => route.public).map((route) => routeFunction(route.name));
    expect(publicFunctions).toHaveLength(1);
    for (const fn of [
      ...publicFunctions,
      fallbackFunction(),
      stack.reports.worker,
      stack.reports.deadLetterHandler,
      stack.reports.sweep,
      stack.webhooks.delivery,
      stack.webhooks.slowDelivery,
      stack.webhooks.republish,
      stack.usersDatabase.migrationFunction,
    ]) {
      expect(
        Object.keys(environmentOf(fn)).filter(
          (name) => name.startsWith('JWT') || name.startsWith('JWKS') || name.startsWith('ORG_'),
        ),
      ).toEqual([]);
    }
  });

  it('use no AWS managed policy in any role but AWS Backup’s, which needs its two service-role policies', () => {
    const backupRole = logicalIdOf(stack.usersDatabase.backupRole);
    for (const [id, role] of ofType('AWS::IAM::Role')) {
      if (id === backupRole) {
        expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toMatch(
          /service-role\/AWSBackupServiceRolePolicyForBackup".*service-role\/AWSBackupServiceRolePolicyForRestores"/,
        );
        expect(role.Properties.ManagedPolicyArns).toHaveLength(2);
      } else expect(role.Properties.ManagedPolicyArns, id).toBeUndefined();
    }
  });

  it('grant no action wildcard, no resource wildcard but the reports/ object prefix and the migration function’s versions, and never dynamodb:Scan', () => {
    const statements = ofType('AWS::IAM::Policy').flatMap(
      ([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[],
    );
    const actions = statements.flatMap(actionsOf);
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
    const reportObjects = `<${logicalIdOf(stack.reports.bucket)}.Arn>/reports/*`;
    const deployTimeFunctionVersions = [
      stack.usersDatabase.migrationFunction,
      stack.reportSigning.publisherFunction,
    ].map((fn) => `<${logicalIdOf(fn)}.Arn>:*`);
    for (const statement of statements) {
      const wildcards = resourcesOf(statement).filter((resource) => resource.includes('*'));
      if (wildcards.length === 0) continue;
      // CodeDeploy reads the state of the alarms a deployment watches (lib/safe-deployments-construct.ts).
      if (wildcards[0] === '*' && actionsOf(statement).includes('cloudwatch:DescribeAlarms')) {
        expect(actionsOf(statement)).toEqual(['cloudwatch:DescribeAlarms']);
        continue;
      }
      // X-Ray has no resource-level permissions: sending trace segments is granted on `*`.
      if (wildcards[0] === '*') {
        expect(actionsOf(statement).sort()).toEqual(X_RAY_ACTIONS);
        continue;
      }
      // The Provider frameworks invoke the deploy-time functions (any version of them: CDK's grantInvoke).
      if (deployTimeFunctionVersions.includes(wildcards[0]!)) {
        expect(actionsOf(statement)).toEqual(['lambda:InvokeFunction']);
        continue;
      }
      // Object keys are created per job: the one wildcard is a key prefix of the reports bucket (the sandbox wipe's: of
      // the sandboxes' folders), for object actions only.
      expect([[reportObjects], [`${reportObjects}~sandbox/*`]]).toContainEqual(wildcards);
      expect(actionsOf(statement).length).toBeGreaterThan(0);
      for (const action of actionsOf(statement))
        expect(['s3:GetObject', 's3:PutObject', 's3:DeleteObject']).toContain(action);
    }
  });
});

describe('CreateOnboardingToken', () => {
  it('may send e-mail only through the sender identity and the onboarding template, from the sender address', () => {
    const fn = routeFunction('CreateOnboardingToken');
    const sesStatements = statementsOf(fn).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('ses:')),
    );
    expect(sesStatements).toHaveLength(1);
    const [statement] = sesStatements;
    expect(actionsOf(statement!)).toEqual(['ses:SendEmail']);
    const resourceArns = JSON.stringify(statement!.Resource);
    expect(statement!.Resource).toHaveLength(3);
    expect(resourceArns).toContain(':identity/');
    expect(resourceArns).toContain(':configuration-set/');
    expect(resourceArns).toContain(`{"Ref":"${logicalIdOf(stack.mail.identity!)}"}`);
    expect(resourceArns).toContain(':template/onboarding-token-v2-dev');
    expect(statement!.Condition).toEqual({ StringEquals: { 'ses:FromAddress': exampleContext.senderEmail } });
    expect(environmentOf(fn)).toMatchObject({
      SENDER_EMAIL: exampleContext.senderEmail,
      ONBOARDING_TEMPLATE_NAME: 'onboarding-token-v2-dev',
    });
  });

  it('may read and write the onboarding tokens and idempotency tables and no other', () => {
    const fn = routeFunction('CreateOnboardingToken');
    // Besides PutItem alone on the audit trail (audit-trail.test.ts) and its request budget (below).
    const auditTrail = logicalIdOf(stack.data.tables.AuditEvents);
    const dynamoStatements = otherStatementsOf(fn).filter(
      (statement) =>
        actionsOf(statement).some((action) => action.startsWith('dynamodb:')) &&
        !JSON.stringify(statement.Resource).includes(auditTrail),
    );
    // With `@aws-cdk/aws-iam:minimizePolicies`, tables granted the same actions share one statement.
    const tables = dynamoStatements
      .flatMap((statement) => [statement.Resource].flat() as { 'Fn::GetAtt': [string, string] }[])
      .map((resource) => resource['Fn::GetAtt'][0])
      .sort();
    expect(tables).toEqual(
      [logicalIdOf(stack.data.tables.Idempotency), logicalIdOf(stack.data.tables.OnboardingTokens)].sort(),
    );
    for (const statement of dynamoStatements) {
      expect(actionsOf(statement)).toEqual(
        expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:ConditionCheckItem']),
      );
      expect(actionsOf(statement)).not.toContain('dynamodb:Scan');
    }
    expect(environmentOf(fn)).toMatchObject({
      ONBOARDING_TOKENS_TABLE_NAME: { Ref: logicalIdOf(stack.data.tables.OnboardingTokens) },
      IDEMPOTENCY_TABLE_NAME: { Ref: logicalIdOf(stack.data.tables.Idempotency) },
    });
  });
});

describe('the e-mail quotas and the webhook test limit', () => {
  it('tells create and resend the e-mail quotas of the context (defaults 5 to one address and 1000 per organization an hour)', () => {
    for (const name of ['CreateOnboardingToken', 'ResendOnboardingToken']) {
      const fn = routeFunction(name);
      expect(environmentOf(fn), name).toMatchObject({
        EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR: '5',
        EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR: '1000',
        ONBOARDING_TOKENS_TABLE_NAME: { Ref: logicalIdOf(stack.data.tables.OnboardingTokens) },
      });
      // The quota items live in the tokens table, read and written in one transaction.
      expect(statementsOf(fn).flatMap(actionsOf)).toEqual(
        expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']),
      );
    }
    for (const name of ['RedeemOnboardingToken', 'RevokeOnboardingToken', 'ListOnboardingTokens']) {
      expect(environmentOf(routeFunction(name)), name).not.toHaveProperty('EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR');
    }
  });

  it('takes other quotas from the context', () => {
    const { stack: configured } = buildServiceStack({
      bundle: false,
      context: { emailQuotaPerRecipientPerHour: '3', emailQuotaPerOrganizationPerHour: 250 },
    });
    const configuredQueries = templateQueries(wholeTemplateOf(configured));
    for (const name of ['CreateOnboardingToken', 'ResendOnboardingToken']) {
      expect(configuredQueries.environmentOf(configured.routeFunctions.get(name)!), name).toMatchObject({
        EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR: '3',
        EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR: '250',
      });
    }
  });

  it('lets the webhook test read the Webhooks table and put its limiter item, but update or delete nothing', () => {
    const fn = routeFunction('TestWebhookEndpoint');
    const webhooksTable = logicalIdOf(stack.data.tables.Webhooks);
    const onWebhooks = statementsOf(fn).filter((statement) =>
      JSON.stringify(statement.Resource).includes(webhooksTable),
    );
    const actions = onWebhooks.flatMap(actionsOf);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem']));
    for (const write of ['dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'])
      expect(actions).not.toContain(write);
  });
});

describe('ListOnboardingTokens', () => {
  it('may only read the onboarding tokens table', () => {
    const fn = routeFunction('ListOnboardingTokens');
    const actions = otherStatementsOf(fn).flatMap(actionsOf);
    expect(actions).toContain('dynamodb:Query');
    for (const write of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
      expect(actions).not.toContain(write);
    }
    expect(actions.filter((action) => action.startsWith('ses:'))).toEqual([]);
    expect(environmentOf(fn)).toMatchObject({
      ONBOARDING_TOKENS_TABLE_NAME: { Ref: logicalIdOf(stack.data.tables.OnboardingTokens) },
    });
  });
});

describe('RouteNotFound', () => {
  it('may only write its own logs', () => {
    const fn = fallbackFunction();
    const statements = statementsOf(fn);
    expect(statements.flatMap(actionsOf).sort()).toEqual([
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      ...X_RAY_ACTIONS,
    ]);
    expect(statements[0]!.Resource).toEqual({ 'Fn::GetAtt': [logicalIdOf(fn.logGroup), 'Arn'] });
  });
});

describe('GetOpenApiDocument', () => {
  it('may only write its own logs and reads no configuration but where clients call (its document’s server)', () => {
    const fn = routeFunction('GetOpenApiDocument');
    const statements = statementsOf(fn);
    expect(statements.flatMap(actionsOf).sort()).toEqual([
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      ...X_RAY_ACTIONS,
    ]);
    expect(Object.keys(environmentOf(fn)).sort()).toEqual([
      'API_URL',
      'NODE_OPTIONS',
      'POWERTOOLS_METRICS_NAMESPACE',
      'POWERTOOLS_SERVICE_NAME',
      'POWERTOOLS_TRACER_CAPTURE_ERROR',
      'STAGE',
    ]);
  });
});

describe('tables', () => {
  it.each(allTables.map((definition) => [definition.id, definition] as const))(
    '%s: on demand, TTL, point-in-time recovery, encrypted, retained, with its indexes',
    (id, definition) => {
      const table = resources[logicalIdOf(stack.data.tables[id as keyof typeof stack.data.tables])]!;
      expect(table.Type).toBe('AWS::DynamoDB::Table');
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.UpdateReplacePolicy).toBe('Retain');
      expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(table.Properties.TimeToLiveSpecification).toEqual({
        AttributeName: definition.timeToLiveAttribute,
        Enabled: true,
      });
      expect(table.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: true });
      expect(table.Properties.KeySchema).toEqual([
        { AttributeName: definition.partitionKey, KeyType: 'HASH' },
        ...(definition.sortKey ? [{ AttributeName: definition.sortKey, KeyType: 'RANGE' }] : []),
      ]);
      const indexes = (table.Properties.GlobalSecondaryIndexes ?? []) as Array<Record<string, any>>;
      expect(indexes.map((index) => index.IndexName)).toEqual(
        definition.globalSecondaryIndexes.map((index) => index.indexName),
      );
      expect(indexes.map((index) => index.Projection)).toEqual(
        definition.globalSecondaryIndexes.map((index) =>
          index.include
            ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.include] }
            : { ProjectionType: 'ALL' },
        ),
      );
    },
  );

  it('creates exactly the defined tables, and no Users table (users are in the users database)', () => {
    expect(ofType('AWS::DynamoDB::Table')).toHaveLength(allTables.length);
    expect(allTables.map((definition) => definition.id)).not.toContain('Users');
  });
});

describe('mail and alarms', () => {
  it('deploys the onboarding template and the sender identity', () => {
    template.hasResourceProperties('AWS::SES::Template', { Template: { TemplateName: 'onboarding-token-v2-dev' } });
    template.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'example.org' });
  });

  it('alarms on the errors (or the alarmed dead letters) of every function outside the API and on API 5XX answers, without a topic when no alarm e-mail is set', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm);
    const depthAlarmedQueues = new Set(
      alarms
        .filter((alarm) => alarm.Properties.MetricName === 'ApproximateNumberOfMessagesVisible')
        .map((alarm) => alarm.Properties.Dimensions[0].Value['Fn::GetAtt'][0] as string),
    );
    // A function whose failed events end, after their retries, in a queue whose depth pages (the SES event counter).
    const watchedByDeadLetters = ofType('AWS::Lambda::Function')
      .filter(([, fn]) => depthAlarmedQueues.has(fn.Properties.DeadLetterConfig?.TargetArn?.['Fn::GetAtt']?.[0]))
      .map(([id]) => id);
    const alarmedFunctions = [
      ...alarms
        .filter((alarm) => alarm.Properties.MetricName === 'Errors')
        .map(
          (alarm) =>
            (alarm.Properties.Dimensions as Array<{ Name: string; Value: { Ref: string } }>).find(
              (dimension) => dimension.Name === 'FunctionName',
            )!.Value.Ref,
        ),
      ...watchedByDeadLetters,
    ].sort();
    // A route function's failure is the API's 5XX answer, which its own alarm pages for.
    const routes = new Set([...stack.routeFunctions.values(), stack.routeNotFound].map((fn) => logicalIdOf(fn)));
    // The certificate publisher runs during a deploy only, which fails visibly with it (operations.test.ts).
    const certificatePublisher = logicalIdOf(stack.reportSigning.publisherFunction);
    // A pre-traffic hook that fails fails the deployment it checks, in front of whoever deploys.
    const hooks = new Set(
      [...stack.deployments.hooks.values(), ...stack.sandbox.deployments.hooks.values()].map((hook) =>
        logicalIdOf(hook),
      ),
    );
    expect(watchedByDeadLetters).toEqual([logicalIdOf(stack.mail.eventCounter)]);
    expect(alarmedFunctions).toEqual(
      ofType('AWS::Lambda::Function')
        .map(([id]) => id)
        .filter((id) => !routes.has(id) && id !== certificatePublisher && !hooks.has(id))
        .sort(),
    );
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/ApiGateway', MetricName: '5xx' });
    template.resourceCountIs('AWS::SNS::Topic', 0);
  });
});

describe('bundling', () => {
  /**
   * The stack synthesized with every function bundled by esbuild exactly as `cdk synth` does, in a
   * child process: CDK bundles synchronously, and a test worker blocked for minutes misses vitest's
   * 60-second RPC deadline ("Timeout calling onTaskUpdate") and loses the run.
   */
  let assemblyDir: string;
  let bundledResources: Record<string, Resource>;
  beforeAll(async () => {
    assemblyDir = mkdtempSync(path.join(tmpdir(), 'service-assembly-'));
    await run(process.execPath, ['--import', 'tsx', SYNTHESIZE_BUNDLED_STACK, assemblyDir], { cwd: repoRoot });
    // The stack's template and its nested stacks' (lib/sandbox-stack.ts), whose logical ids are apart.
    bundledResources = Object.assign(
      {},
      ...[
        `${BUNDLED_STACK_ID}.template.json`,
        ...readdirSync(assemblyDir).filter((file) => file.endsWith('.nested.template.json')),
      ].map((file) => JSON.parse(readFileSync(path.join(assemblyDir, file), 'utf8')).Resources),
    );
    // About 40 bundles: 190 s on a loaded 2-core machine, past the tier's 180-second hook timeout.
  }, 360_000);
  afterAll(() => rmSync(assemblyDir, { recursive: true, force: true }));

  /** The folder CDK built a function's bundle in. */
  const assetDirOf = (fn: IConstruct) => {
    const code = bundledResources[logicalIdOf(fn)]!.Properties.Code as { S3Key: string };
    return path.join(assemblyDir, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
  };

  /** Every function with its entry file, as shared/config/api-routes.ts declares them. */
  const deployedFunctions = () => [
    ...apiRoutes.map((route) => ({ entry: route.entry, fn: routeFunction(route.name) })),
    { entry: fallbackRoute.entry, fn: stack.routeNotFound },
    { entry: reportPipelineFunctions.worker.entry, fn: stack.reports.worker },
    { entry: reportPipelineFunctions.deadLetters.entry, fn: stack.reports.deadLetterHandler },
    { entry: reportPipelineFunctions.sweep.entry, fn: stack.reports.sweep },
    { entry: webhookDeliveryFunction.entry, fn: stack.webhooks.delivery },
    { entry: webhookDeliveryFunction.entry, fn: stack.webhooks.slowDelivery },
    { entry: webhookRepublishFunction.entry, fn: stack.webhooks.republish },
    { entry: usersDatabaseMigrationFunction.entry, fn: stack.usersDatabase.migrationFunction },
    { entry: reportSigningCertificatesFunction.entry, fn: stack.reportSigning.publisherFunction },
    { entry: emailEventsFunction.entry, fn: stack.mail.eventCounter },
    { entry: sandboxWipeFunction.entry, fn: stack.sandboxWipes.consumer },
    ...[...stack.deployments.hooks.values(), ...stack.sandbox.deployments.hooks.values()].map((fn) => ({
      entry: HOOK_ENTRY,
      fn,
    })),
  ];

  it('builds with esbuildOptionsFor exactly the bundle CDK deploys, for every function', async () => {
    const functions = deployedFunctions();
    expect(functions).toHaveLength(functionCount);
    const outDir = mkdtempSync(path.join(tmpdir(), 'bundle-'));
    try {
      for (const { entry, fn } of functions) {
        const assetDir = assetDirOf(fn);
        const file = path.join(outDir, path.basename(entry, '.ts'), bundleFileName);
        await build(esbuildOptionsFor(entry, file));
        const deployed = readFileSync(path.join(assetDir, bundleFileName), 'utf8');
        expect(deployed.startsWith('"use strict";const importMetaUrl =')).toBe(true);
        expect(deployed).toMatch(/\/\/# sourceMappingURL=index\.js\.map\s*$/);
        expect(existsSync(path.join(assetDir, `${bundleFileName}.map`))).toBe(true);
        expect(readFileSync(file, 'utf8'), entry).toBe(deployed);
      }
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  });

  it('copies every report font next to the worker bundle, byte for byte', () => {
    const assetDir = assetDirOf(stack.reports.worker);
    for (const { file, packagePath } of allReportFontFiles()) {
      const deployed = readFileSync(path.join(assetDir, 'fonts', file));
      const installed = readFileSync(installedPath(packagePath));
      expect(deployed.length).toBeGreaterThan(20_000);
      expect(deployed.equals(installed), file).toBe(true);
    }
  });
});

describe('user-status route', () => {
  it('may only connect to the users database as its reader: no table but its request budget, no admin, nothing else', () => {
    const fn = routeFunction('QueryUserStatus');
    const statements = otherStatementsOf(fn);
    expect(statements.flatMap(actionsOf).sort()).toEqual([
      'dsql:DbConnect',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      ...X_RAY_ACTIONS,
    ]);
    const connect = statements.find((statement) => actionsOf(statement).includes('dsql:DbConnect'))!;
    expect(resourcesOf(connect)).toEqual([`<${stack.getLogicalId(stack.usersDatabase.cluster)}.ResourceArn>`]);
    expect(environmentOf(fn)).toMatchObject({ USERS_DATABASE_USER: 'users_reader', USERS_DATABASE_AUTH: 'dsql' });
    expect(environmentOf(fn)).not.toHaveProperty('USERS_TABLE_NAME');
  });
});

describe('webhooks', () => {
  const keyArn = () => ({ 'Fn::GetAtt': [logicalIdOf(stack.webhooks.secretsKey), 'Arn'] });
  const kmsActionsOf = (fn: ReturnType<typeof routeFunction>) =>
    statementsOf(fn)
      .flatMap(actionsOf)
      .filter((action) => action.startsWith('kms:'));

  it('alarms on the depth of the dead-letter queue both lanes redrive to', () => {
    const depthAlarms = ofType('AWS::CloudWatch::Alarm').filter(
      ([, alarm]) =>
        alarm.Properties.MetricName === 'ApproximateNumberOfMessagesVisible' &&
        JSON.stringify(alarm.Properties.Dimensions).includes(logicalIdOf(stack.webhooks.deadLetterQueue)),
    );
    expect(depthAlarms).toHaveLength(1);
  });

  it('seals secrets with a rotating KMS key: registration may only encrypt, delivery may only decrypt, no one else either', () => {
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    expect(kmsActionsOf(routeFunction('CreateWebhookEndpoint'))).toEqual(['kms:Encrypt']);
    expect(kmsActionsOf(stack.webhooks.delivery)).toEqual(['kms:Decrypt']);
    expect(kmsActionsOf(stack.webhooks.slowDelivery)).toEqual(['kms:Decrypt']);
    for (const name of [
      'ListWebhookEndpoints',
      'DeleteWebhookEndpoint',
      'TestWebhookEndpoint',
      'ListWebhookDeliveries',
    ])
      expect(kmsActionsOf(routeFunction(name))).toEqual([]);
    expect(environmentOf(stack.webhooks.delivery)).toMatchObject({ WEBHOOK_SECRETS_KEY_ID: keyArn() });
    expect(environmentOf(stack.webhooks.slowDelivery)).toMatchObject({ WEBHOOK_SECRETS_KEY_ID: keyArn() });
  });

  it('lets every function that finishes report jobs or changes token states publish events', () => {
    const queueUrl = { Ref: logicalIdOf(stack.webhooks.queue) };
    for (const fn of [
      stack.reports.worker,
      stack.reports.deadLetterHandler,
      stack.reports.sweep,
      routeFunction('GetReportJob'),
      routeFunction('GetReportDownloadUrl'),
      routeFunction('RedeemOnboardingToken'),
      routeFunction('RevokeOnboardingToken'),
      routeFunction('ResendOnboardingToken'),
      routeFunction('TestWebhookEndpoint'),
    ]) {
      expect(environmentOf(fn)).toMatchObject({
        WEBHOOK_QUEUE_URL: queueUrl,
        WEBHOOKS_TABLE_NAME: webhooksTableName(),
      });
      expect(statementsOf(fn).flatMap(actionsOf)).toContain('sqs:SendMessage');
      // An event SQS refuses is kept as pending: PutItem on the pending partitions, nothing wider.
      expect(statementsOf(fn)).toContainEqual(
        expect.objectContaining({
          Action: 'dynamodb:PutItem',
          Resource: { 'Fn::GetAtt': [logicalIdOf(stack.data.tables.Webhooks), 'Arn'] },
          Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PENDING_EVENTS#*'] } },
        }),
      );
    }
  });

  it('republishes pending events every minute, reading and deleting the pending partitions only', () => {
    const fn = stack.webhooks.republish;
    const table = { 'Fn::GetAtt': [logicalIdOf(stack.data.tables.Webhooks), 'Arn'] };
    const tableStatements = statementsOf(fn).filter((statement) =>
      JSON.stringify(statement.Resource).includes(logicalIdOf(stack.data.tables.Webhooks)),
    );
    expect(tableStatements).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:Query', 'dynamodb:DeleteItem'].sort(),
        Resource: table,
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PENDING_EVENTS#*'] } },
      },
    ]);
    expect(statementsOf(fn).flatMap(actionsOf)).toContain('sqs:SendMessage');
    expect(environmentOf(fn)).toMatchObject({
      WEBHOOK_QUEUE_URL: { Ref: logicalIdOf(stack.webhooks.queue) },
      WEBHOOKS_TABLE_NAME: webhooksTableName(),
    });
    const rule = template.toJSON().Resources[logicalIdOf(stack.webhooks.republishSchedule)].Properties;
    expect(rule.ScheduleExpression).toBe('rate(1 minute)');
    expect(rule.Targets[0].Arn).toEqual(aliasRef(fn));
  });

  it('gives the read-only webhook routes no write on the webhooks table', () => {
    for (const name of ['ListWebhookEndpoints', 'ListWebhookDeliveries']) {
      const actions = otherStatementsOf(routeFunction(name)).flatMap(actionsOf);
      expect(actions).toContain('dynamodb:Query');
      expect(actions).not.toContain('dynamodb:PutItem');
      expect(actions).not.toContain('dynamodb:UpdateItem');
    }
  });
});

describe('webhook delivery lanes', () => {
  /** The design (shared/domain/webhooks/webhook-lanes.ts): few records per batch, more consumers on the fast lane. */
  const lanes = () => [
    { lane: 'fast', queue: stack.webhooks.queue, fn: stack.webhooks.delivery, batchSize: 5, maxConcurrency: 10 },
    {
      lane: 'slow',
      queue: stack.webhooks.slowQueue,
      fn: stack.webhooks.slowDelivery,
      batchSize: 10,
      maxConcurrency: 5,
    },
  ];
  const queueArn = (queue: Parameters<typeof logicalIdOf>[0]) => ({ 'Fn::GetAtt': [logicalIdOf(queue), 'Arn'] });
  const laneIds = () => new Set(lanes().map(({ fn }) => logicalIdOf(fn)));

  it('consume each lane’s queue with a function of its own: fast lane batches of 5, at most 10 at once; slow lane batches of 10, at most 5', () => {
    expect(laneIds().size).toBe(2);
    for (const { lane, queue, fn, batchSize, maxConcurrency } of lanes()) {
      const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
        ([, mapping]) => JSON.stringify(mapping.Properties.EventSourceArn) === JSON.stringify(queueArn(queue)),
      );
      // One consumer per queue: a second would take the lane's messages with other settings.
      expect(mappings, lane).toHaveLength(1);
      const [, mapping] = mappings[0]!;
      expect(JSON.stringify(mapping.Properties.FunctionName), lane).toContain(JSON.stringify(aliasRef(fn)));
      expect(mapping.Properties, lane).toMatchObject({
        BatchSize: batchSize,
        ScalingConfig: { MaximumConcurrency: maxConcurrency },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      // The local stack's pollers read the same settings (local/pollers.ts).
      expect(WEBHOOK_LANE_CONSUMERS[lane as keyof typeof WEBHOOK_LANE_CONSUMERS], lane).toEqual({
        batchSize,
        maxConcurrency,
      });
      expect(queries.propertiesOf(fn).Description, lane).toContain(`(${lane} lane)`);
      // No reservation by default (first-deploy.test.ts: the context value).
      expect(queries.propertiesOf(fn), lane).not.toHaveProperty('ReservedConcurrentExecutions');
    }
  });

  it('redrive both lanes to the one dead-letter queue after 5 receives, which keeps messages longer, with a visibility timeout six times the function’s', () => {
    for (const { lane, queue, fn } of lanes()) {
      const properties = queries.propertiesOf(queue);
      expect(properties.RedrivePolicy, lane).toEqual({
        deadLetterTargetArn: queueArn(stack.webhooks.deadLetterQueue),
        maxReceiveCount: 5,
      });
      const timeout = queries.propertiesOf(fn).Timeout as number;
      expect(timeout, lane).toBe(30);
      // Above the function's timeout, or a message still being delivered is received a second time.
      expect(properties.VisibilityTimeout, lane).toBe(6 * timeout);
    }
    const deadLetters = queries.propertiesOf(stack.webhooks.deadLetterQueue);
    expect(deadLetters.RedrivePolicy).toBeUndefined();
    // A message keeps its first enqueue time when it is dead-lettered: the dead-letter queue must keep it longer.
    expect(deadLetters.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    for (const { lane, queue } of lanes()) {
      const retention = (queries.propertiesOf(queue).MessageRetentionPeriod as number | undefined) ?? 4 * 24 * 3600;
      expect(retention, lane).toBeLessThan(deadLetters.MessageRetentionPeriod as number);
    }
  });

  it('encrypt all three queues, refuse every request not made over TLS, and are standard (fair) queues, not FIFO', () => {
    for (const queue of [stack.webhooks.queue, stack.webhooks.slowQueue, stack.webhooks.deadLetterQueue]) {
      const id = logicalIdOf(queue);
      expect(queries.propertiesOf(queue).SqsManagedSseEnabled, id).toBe(true);
      // Fair queues are standard queues whose messages carry a MessageGroupId (the organization).
      expect(queries.propertiesOf(queue).FifoQueue, id).toBeUndefined();
      const policies = ofType('AWS::SQS::QueuePolicy').filter(([, policy]) =>
        (policy.Properties.Queues as Array<{ Ref: string }>).some((ref) => ref.Ref === id),
      );
      expect(policies, id).toHaveLength(1);
      const statements = policies[0]![1].Properties.PolicyDocument.Statement as Statement[];
      expect(statements, id).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Action: 'sqs:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          Resource: queueArn(queue),
        }),
      );
    }
  });

  it('let each lane function consume its own queue, send to either lane, read and write the webhooks table and decrypt secrets; nothing else', () => {
    const webhooksTable = `<${logicalIdOf(stack.data.tables.Webhooks)}.Arn>`;
    const pairs = (statements: Statement[]) =>
      [
        ...new Set(
          statements.flatMap((statement) =>
            actionsOf(statement).flatMap((action) =>
              resourcesOf(statement).map((resource) => `${action} on ${resource}`),
            ),
          ),
        ),
      ].sort();
    for (const { lane, queue, fn } of lanes()) {
      const granted = pairs(statementsOf(fn).filter((statement) => !actionsOf(statement)[0]!.startsWith('xray:')));
      // What the event source needs, on the lane's own queue alone.
      const consumes = [
        'ChangeMessageVisibility',
        'DeleteMessage',
        'GetQueueAttributes',
        'GetQueueUrl',
        'ReceiveMessage',
      ].map((action) => `sqs:${action} on <${logicalIdOf(queue)}.Arn>`);
      expect(granted, lane).toEqual(
        [
          ...[
            'BatchGetItem',
            'BatchWriteItem',
            'ConditionCheckItem',
            'DeleteItem',
            'GetItem',
            'PutItem',
            'Query',
            'UpdateItem',
          ].map((action) => `dynamodb:${action} on ${webhooksTable}`),
          `kms:Decrypt on <${logicalIdOf(stack.webhooks.secretsKey)}.Arn>`,
          `logs:CreateLogStream on <${logicalIdOf(fn.logGroup)}.Arn>`,
          `logs:PutLogEvents on <${logicalIdOf(fn.logGroup)}.Arn>`,
          ...consumes,
          // Retries, fan-out and lane changes.
          `sqs:SendMessage on <${logicalIdOf(stack.webhooks.queue)}.Arn>`,
          `sqs:SendMessage on <${logicalIdOf(stack.webhooks.slowQueue)}.Arn>`,
        ].sort(),
      );
      expect(environmentOf(fn), lane).toMatchObject({
        WEBHOOKS_TABLE_NAME: { Ref: logicalIdOf(stack.data.tables.Webhooks) },
        WEBHOOK_QUEUE_URL: { Ref: logicalIdOf(stack.webhooks.queue) },
        WEBHOOK_SLOW_QUEUE_URL: { Ref: logicalIdOf(stack.webhooks.slowQueue) },
      });
    }
  });

  it('let no function but the lanes’ own send to the slow lane or know its URL: publishers start every event on the fast lane', () => {
    const slowQueueId = logicalIdOf(stack.webhooks.slowQueue);
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      if (laneIds().has(id)) continue;
      expect(fn.Properties.Environment?.Variables ?? {}, id).not.toHaveProperty('WEBHOOK_SLOW_QUEUE_URL');
    }
    const senders = ofType('AWS::IAM::Policy')
      .filter(([, policy]) =>
        (policy.Properties.PolicyDocument.Statement as Statement[]).some((statement) =>
          JSON.stringify(statement.Resource).includes(slowQueueId),
        ),
      )
      .flatMap(([, policy]) => (policy.Properties.Roles as Array<{ Ref: string }>).map((role) => role.Ref))
      .sort();
    expect(senders).toEqual(
      lanes()
        .map(({ fn }) => logicalIdOf(fn.role!))
        .sort(),
    );
  });
});

describe('the request budget', () => {
  const budgetTable = () => stack.data.tables.RequestBudgets;
  const onBudgetTable = (fn: ReturnType<typeof routeFunction>) =>
    statementsOf(fn).filter((statement) => JSON.stringify(statement.Resource).includes(logicalIdOf(budgetTable())));
  const budgetSettings = [
    'REQUEST_BUDGETS_TABLE_NAME',
    'REQUEST_BUDGET_RATE',
    'REQUEST_BUDGET_BURST',
    'CONCURRENCY_PER_ORGANIZATION',
    'DATABASE_CONCURRENCY_PER_ORGANIZATION',
  ];

  it('lets every authenticated API function UpdateItem its organization’s bucket in the RequestBudgets table, and nothing more on it', () => {
    const authenticated = apiRoutes.filter((route) => !route.public);
    expect(authenticated.length).toBeGreaterThan(10);
    for (const { name } of authenticated) {
      const fn = routeFunction(name);
      const statements = onBudgetTable(fn);
      expect(statements.flatMap(actionsOf), name).toEqual(['dynamodb:UpdateItem']);
      // The table itself: no index, no other table's wildcard.
      for (const statement of statements)
        expect(resourcesOf(statement).filter((resource) => resource.includes(logicalIdOf(budgetTable())))).toEqual([
          `<${logicalIdOf(budgetTable())}.Arn>`,
        ]);
      expect(statements.every((statement) => statement.Condition === undefined)).toBe(true);
      expect(environmentOf(fn), name).toMatchObject({
        REQUEST_BUDGETS_TABLE_NAME: { Ref: logicalIdOf(budgetTable()) },
        // The contract's 50 requests per second, bursts of 100, unless the context says otherwise.
        REQUEST_BUDGET_RATE: '50',
        REQUEST_BUDGET_BURST: '100',
      });
    }
  });

  it('gives the public route, the fallback and every function no caller reaches neither the table nor the budget', () => {
    const authenticatedIds = new Set(
      apiRoutes.filter((route) => !route.public).map((route) => logicalIdOf(routeFunction(route.name))),
    );
    const others = ofType('AWS::Lambda::Function').filter(([id]) => !authenticatedIds.has(id));
    // The public route, the fallback, the report pipeline, both webhook lanes, the republish and the migration.
    expect(others).toHaveLength(functionCount - authenticatedIds.size);
    for (const [id, fn] of others) {
      const variables = (fn.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
      for (const setting of budgetSettings) expect(variables, id).not.toHaveProperty(setting);
    }
    const budgetRoles = ofType('AWS::IAM::Policy')
      .filter(([, policy]) =>
        (policy.Properties.PolicyDocument.Statement as Statement[]).some((statement) =>
          JSON.stringify(statement.Resource).includes(logicalIdOf(budgetTable())),
        ),
      )
      .flatMap(([, policy]) => (policy.Properties.Roles as Array<{ Ref: string }>).map((role) => role.Ref));
    expect(new Set(budgetRoles)).toEqual(
      new Set(apiRoutes.filter((route) => !route.public).map((route) => logicalIdOf(routeFunction(route.name).role!))),
    );
  });

  it('takes the rate and the burst from the requestBudgetRate and requestBudgetBurst context values', () => {
    const { stack: configured } = buildServiceStack({
      bundle: false,
      context: { requestBudgetRate: '20', requestBudgetBurst: 40 },
    });
    const configuredQueries = templateQueries(wholeTemplateOf(configured));
    for (const route of apiRoutes.filter((candidate) => !candidate.public)) {
      expect(configuredQueries.environmentOf(configured.routeFunctions.get(route.name)!), route.name).toMatchObject({
        REQUEST_BUDGET_RATE: '20',
        REQUEST_BUDGET_BURST: '40',
      });
    }
  });

  it('gives every authenticated function the concurrency limits (contract §25: 20 in flight, 4 on the database routes), or the concurrencyPerOrganization and databaseConcurrencyPerOrganization context values', () => {
    const { stack: configured } = buildServiceStack({
      bundle: false,
      context: { concurrencyPerOrganization: '12', databaseConcurrencyPerOrganization: 3 },
    });
    const configuredQueries = templateQueries(wholeTemplateOf(configured));
    for (const route of apiRoutes.filter((candidate) => !candidate.public)) {
      expect(environmentOf(routeFunction(route.name)), route.name).toMatchObject({
        CONCURRENCY_PER_ORGANIZATION: '20',
        DATABASE_CONCURRENCY_PER_ORGANIZATION: '4',
      });
      expect(configuredQueries.environmentOf(configured.routeFunctions.get(route.name)!), route.name).toMatchObject({
        CONCURRENCY_PER_ORGANIZATION: '12',
        DATABASE_CONCURRENCY_PER_ORGANIZATION: '3',
      });
    }
  });

  it('keeps the buckets in a table keyed by organization alone, whose items expire (TTL on ttl), with point-in-time recovery and encryption', () => {
    const table = resources[logicalIdOf(budgetTable())]!;
    expect(table.Type).toBe('AWS::DynamoDB::Table');
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    expect(table.Properties.GlobalSecondaryIndexes).toBeUndefined();
    expect(table).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(requestBudgetsTable).toMatchObject({ id: 'RequestBudgets', partitionKey: 'pk', timeToLiveAttribute: 'ttl' });
  });
});
