import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { LIVE_ALIAS, ServiceFunction } from '#lib/service-function.ts';
import type { ServiceStack } from '#lib/service-stack.ts';
import { apiRoutes } from '#shared/config/api-routes.ts';
import { cfnLintFindings } from './cfn-lint-findings.ts';
import { buildServiceStack, logicalIdOf } from './service-stack-fixture.ts';
import { type Resource, separateTemplatesOf, wholeTemplateOf } from './template-queries.ts';

interface Synthesized {
  readonly context: Record<string, unknown>;
  readonly stack: ServiceStack;
  readonly template: Template;
  readonly resources: Record<string, Resource>;
}

function synthesize(context: Record<string, unknown> = {}): Synthesized {
  const { stack } = buildServiceStack({
    bundle: false,
    // prod's edge needs the region at synth.
    env: { account: '123456789012', region: 'eu-west-1' },
    context: { alarmEmail: 'ops@example.org', ...context },
  });
  const template = wholeTemplateOf(stack);
  return { context, stack, template, resources: template.toJSON().Resources as Record<string, Resource> };
}

const dev = synthesize();
const prod = synthesize({ stage: 'prod' });
const cognito = synthesize({ identity: 'cognito' });
const cognitoProd = synthesize({ identity: 'cognito', stage: 'prod' });

const ofType = ({ resources }: Synthesized, type: string) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** Every function a route, an event source or a schedule invokes; the deploy-time and hook functions are not. */
function trafficFunctions(stack: ServiceStack): ServiceFunction[] {
  const notByTraffic = new Set<unknown>([
    stack.usersDatabase.migrationFunction,
    stack.reportSigning.publisherFunction,
    ...stack.deployments.hooks.values(),
    ...stack.sandbox.deployments.hooks.values(),
  ]);
  return stack.node
    .findAll()
    .filter((node): node is ServiceFunction => node instanceof ServiceFunction && !notByTraffic.has(node));
}

const aliasIdOf = (fn: ServiceFunction) => logicalIdOf(fn.invokedAlias);
const aliasIds = (synthesized: Synthesized) => new Set(ofType(synthesized, 'AWS::Lambda::Alias').map(([id]) => id));

/** `{Ref: alias}` or `{"Fn::GetAtt": [alias, ...]}` somewhere in `value`, as the alias's logical id. */
function referencedAlias(value: unknown, aliases: Set<string>): string | undefined {
  const text = JSON.stringify(value);
  return [...aliases].find((id) => text.includes(`{"Ref":"${id}"}`));
}

describe.each([
  ['the default settings', dev],
  ['stage=prod', prod],
  ['identity=cognito, stage=prod', cognitoProd],
])('safe deployments with %s (contract §24)', (_, synthesized) => {
  const { stack, resources } = synthesized;

  it('give every function a route, an event source or a schedule invokes a live alias on its current version', () => {
    const functions = trafficFunctions(stack);
    // Every route, the unmatched route, five queue consumers, two schedules, the SES counter, the Cognito trigger.
    expect(functions).toHaveLength(apiRoutes.length + 1 + 5 + 2 + 1 + (stack.identity ? 1 : 0));
    for (const fn of functions) {
      const alias = resources[aliasIdOf(fn)]!;
      expect(alias.Properties.Name, fn.node.path).toBe(LIVE_ALIAS);
      // currentVersion's logical id ends in a hash of the function's code and configuration.
      const [versionId, attribute] = alias.Properties.FunctionVersion['Fn::GetAtt'] as [string, string];
      expect(attribute).toBe('Version');
      expect(versionId.startsWith(logicalIdOf(fn.currentVersion)), versionId).toBe(true);
      expect(resources[versionId]!.Type).toBe('AWS::Lambda::Version');
    }
  });

  it('put each alias in a deployment group of its own, all in one CodeDeploy application, with a pre-traffic hook', () => {
    const functions = trafficFunctions(stack);
    const groups = ofType(synthesized, 'AWS::CodeDeploy::DeploymentGroup');
    expect(groups).toHaveLength(functions.length);
    expect(ofType(synthesized, 'AWS::CodeDeploy::Application')).toHaveLength(1);
    const application = { Ref: ofType(synthesized, 'AWS::CodeDeploy::Application')[0]![0] };
    const groupOfAlias = new Map<string, string>();
    for (const fn of functions) {
      const update = (resources[aliasIdOf(fn)] as Resource & { UpdatePolicy?: any }).UpdatePolicy
        ?.CodeDeployLambdaAliasUpdate;
      expect(update, fn.node.path).toBeDefined();
      expect(update.ApplicationName).toEqual(application);
      expect(update.BeforeAllowTrafficHook).toEqual({ Ref: expect.stringContaining('CheckNewVersion') });
      groupOfAlias.set(aliasIdOf(fn), update.DeploymentGroupName.Ref);
    }
    // A group runs one deployment at a time: two aliases in one group would meet "a conflicting deployment".
    expect(new Set(groupOfAlias.values()).size).toBe(functions.length);
    for (const [, group] of groups) {
      expect(group.Properties.ApplicationName).toEqual(application);
      expect(group.Properties.DeploymentStyle).toEqual({
        DeploymentType: 'BLUE_GREEN',
        DeploymentOption: 'WITH_TRAFFIC_CONTROL',
      });
      expect(group.Properties.AutoRollbackConfiguration.Enabled).toBe(true);
    }
  });

  it('route every API integration, event source and scheduled or event rule target to an alias', () => {
    const aliases = aliasIds(synthesized);
    const integrations = ofType(synthesized, 'AWS::ApiGatewayV2::Integration');
    expect(integrations).toHaveLength(apiRoutes.length + 1);
    for (const [id, integration] of integrations)
      expect(referencedAlias(integration.Properties.IntegrationUri, aliases), id).toBeDefined();
    const mappings = ofType(synthesized, 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(5);
    for (const [id, mapping] of mappings)
      expect(referencedAlias(mapping.Properties.FunctionName, aliases), id).toBeDefined();
    const lambdaTargets = ofType(synthesized, 'AWS::Events::Rule').flatMap(([id, rule]) =>
      ((rule.Properties.Targets ?? []) as Array<{ Arn: unknown }>)
        .filter((target) => JSON.stringify(target.Arn).includes('Function') || referencedAlias(target.Arn, aliases))
        .map((target) => [id, target.Arn] as const),
    );
    // The sweep, the republish schedule and the SES counter.
    expect(lambdaTargets).toHaveLength(3);
    for (const [id, arn] of lambdaTargets) expect(referencedAlias(arn, aliases), id).toBeDefined();
    // Each invoke permission of API Gateway, EventBridge and SQS's poller names an alias, not $LATEST.
    for (const [id, permission] of ofType(synthesized, 'AWS::Lambda::Permission').filter(([, permission]) =>
      ['apigateway.amazonaws.com', 'events.amazonaws.com'].includes(permission.Properties.Principal),
    ))
      expect(referencedAlias(permission.Properties.FunctionName, aliases), id).toBeDefined();
  });

  it('roll back on alarms of the new version alone: each one reads the alias and the ExecutedVersion dimension', () => {
    const groups = ofType(synthesized, 'AWS::CodeDeploy::DeploymentGroup');
    const alarmNames = groups.flatMap(
      ([, group]) => (group.Properties.AlarmConfiguration?.Alarms ?? []) as Array<{ Name: { Ref: string } }>,
    );
    expect(alarmNames.length).toBeGreaterThan(0);
    for (const { Name } of alarmNames) {
      const alarm = resources[Name.Ref]!;
      const metrics = alarm.Properties.Metrics
        ? (alarm.Properties.Metrics as Array<{ MetricStat?: { Metric: { Dimensions: unknown } } }>)
            .filter((query) => query.MetricStat)
            .map((query) => query.MetricStat!.Metric)
        : [alarm.Properties];
      expect(metrics.length, Name.Ref).toBeGreaterThan(0);
      for (const metric of metrics) {
        const dimensions = (metric.Dimensions ?? []) as Array<{ Name: string; Value: unknown }>;
        expect(dimensions.map((dimension) => dimension.Name).sort(), Name.Ref).toEqual([
          'ExecutedVersion',
          'FunctionName',
          'Resource',
        ]);
        const version = dimensions.find((dimension) => dimension.Name === 'ExecutedVersion')!.Value;
        expect(JSON.stringify(version)).toMatch(/CurrentVersion[0-9A-Fa-f]+","Version"/);
        const resource = dimensions.find((dimension) => dimension.Name === 'Resource')!.Value;
        expect(JSON.stringify(resource)).toContain(`:${LIVE_ALIAS}`);
      }
    }
  });

  it('updates each alarm before its alias, so a deployment never starts watching the old version', () => {
    for (const [fn, group] of stack.deployments.groups) {
      const alarms = (resources[logicalIdOf(group)]!.Properties.AlarmConfiguration?.Alarms ?? []) as Array<{
        Name: { Ref: string };
      }>;
      const dependsOn = resources[aliasIdOf(fn)]!.DependsOn ?? [];
      for (const { Name } of alarms) expect(dependsOn, fn.node.path).toContain(Name.Ref);
    }
  });

  it('lets each hook report to its own deployment groups and invoke exactly their new versions, nothing else', () => {
    for (const [kind, hook] of stack.deployments.hooks) {
      const statements = ofType(synthesized, 'AWS::IAM::Policy')
        .filter(([, policy]) => JSON.stringify(policy.Properties.Roles).includes(logicalIdOf(hook.role!)))
        .flatMap(
          ([, policy]) => policy.Properties.PolicyDocument.Statement as Array<{ Action: unknown; Resource: unknown }>,
        );
      const byAction = (action: string) =>
        statements
          .filter((statement) => [statement.Action].flat().includes(action))
          .flatMap((s) => [s.Resource].flat());
      const groupsOfKind = [...stack.deployments.groups]
        .filter(([fn]) =>
          JSON.stringify((resources[aliasIdOf(fn)] as Resource & { UpdatePolicy?: any }).UpdatePolicy).includes(
            logicalIdOf(hook),
          ),
        )
        .map(([, group]) => group);
      expect(groupsOfKind.length, kind).toBeGreaterThan(0);
      const reportedTo = byAction('codedeploy:PutLifecycleEventHookExecutionStatus').map((resource) =>
        JSON.stringify(resource),
      );
      expect(reportedTo).toHaveLength(groupsOfKind.length);
      for (const group of groupsOfKind)
        expect(reportedTo.some((resource) => resource.includes(`"Ref":"${logicalIdOf(group)}"`))).toBe(true);
      const invoked = byAction('lambda:InvokeFunction');
      expect(invoked).toHaveLength(groupsOfKind.length);
      for (const resource of invoked)
        expect(resource).toEqual({ Ref: expect.stringMatching(/CurrentVersion[0-9A-Fa-f]+$/) });
      // Besides X-Ray's, which support no resource (every function has them).
      const others = statements.filter(
        (statement) => ![statement.Action].flat().every((action) => String(action).startsWith('xray:')),
      );
      expect(others.flatMap((statement) => [statement.Resource].flat())).not.toContain('*');
    }
  });

  it('give CodeDeploy one role that may move the live aliases and invoke the hooks, no more', () => {
    const roleIds = new Set(
      [...stack.deployments.groups.values()].map(
        (group) =>
          (resources[logicalIdOf(group)]!.Properties.ServiceRoleArn as { 'Fn::GetAtt': [string, string] })[
            'Fn::GetAtt'
          ][0],
      ),
    );
    expect(roleIds.size).toBe(1);
    const [roleId] = [...roleIds] as [string];
    expect(resources[roleId]!.Properties.ManagedPolicyArns).toBeUndefined();
    const statements = ofType(synthesized, 'AWS::IAM::Policy')
      .filter(([, policy]) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
      .flatMap(
        ([, policy]) => policy.Properties.PolicyDocument.Statement as Array<{ Action: unknown; Resource: unknown }>,
      );
    const resourcesOf = (action: string) =>
      statements
        .filter((statement) => [statement.Action].flat().includes(action))
        .flatMap((statement) => [statement.Resource].flat());
    expect(resourcesOf('lambda:UpdateAlias')).toEqual(
      expect.arrayContaining(
        [...stack.deployments.groups.keys()].map((fn) => ({
          'Fn::Join': ['', [{ 'Fn::GetAtt': [logicalIdOf(fn), 'Arn'] }, `:${LIVE_ALIAS}`]],
        })),
      ),
    );
    expect(resourcesOf('lambda:UpdateAlias')).toHaveLength(stack.deployments.groups.size);
    expect(resourcesOf('lambda:InvokeFunction').sort()).toEqual(
      [...stack.deployments.hooks.values()].map((hook) => ({ 'Fn::GetAtt': [logicalIdOf(hook), 'Arn'] })).sort(),
    );
    // Alarm states alone are read on any alarm.
    const wildcard = statements.filter((statement) => [statement.Resource].flat().includes('*'));
    expect(wildcard.map((statement) => statement.Action)).toEqual(['cloudwatch:DescribeAlarms']);
  });

  it('tell the API hook which functions answer a request without a token otherwise than its status', () => {
    const variables = resources[logicalIdOf(stack.deployments.hooks.get('api')!)]!.Properties.Environment.Variables;
    // Behind the edge (prod) every function answers 403 first; without it, authenticated ones 401.
    expect(variables.EXPECTED_API_STATUS).toBe(stack.edge ? '403' : '401');
    // A Fn::Join of the JSON around each function name's Ref, read back with `<logical id>` for each name.
    const join = (variables.EXPECTED_API_STATUS_BY_FUNCTION as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    const byFunction = join
      ? (JSON.parse(
          join[1].map((part) => (typeof part === 'string' ? part : `<${(part as { Ref: string }).Ref}>`)).join(''),
        ) as Record<string, number>)
      : (JSON.parse(variables.EXPECTED_API_STATUS_BY_FUNCTION as string) as Record<string, number>);
    const expected = {
      [`<${logicalIdOf(stack.routeFunctions.get('GetOpenApiDocument')!)}>`]: 200,
      [`<${logicalIdOf(stack.routeNotFound)}>`]: 404,
    };
    expect(byFunction).toEqual(stack.edge ? {} : expected);
  });

  it('do not re-create an alias when its function changes: the version is new, the alias the same resource', () => {
    const changed = synthesize({ ...synthesized.context, requestBudgetRate: 7 });
    const fn = stack.routeFunctions.get('ListOnboardingTokens')!;
    const changedFn = changed.stack.routeFunctions.get('ListOnboardingTokens')!;
    expect(logicalIdOf(changedFn.invokedAlias)).toBe(aliasIdOf(fn));
    const versionOf = (of: Synthesized, id: string) => of.resources[id]!.Properties.FunctionVersion as unknown;
    expect(versionOf(changed, aliasIdOf(fn))).not.toEqual(versionOf(synthesized, aliasIdOf(fn)));
  });
});

describe('the rollout (context deployAllAtOnce, canaryPercent, canaryMinutes)', () => {
  const configOf = ({ stack, resources }: Synthesized, fn: ServiceFunction) =>
    resources[logicalIdOf(stack.deployments.groups.get(fn)!)]!.Properties.DeploymentConfigName;

  it('in prod, canaries the API functions 10% for 5 minutes and shifts the others 10% a minute', () => {
    expect(configOf(prod, prod.stack.routeFunctions.get('CreateOnboardingToken')!)).toBe(
      'CodeDeployDefault.LambdaCanary10Percent5Minutes',
    );
    expect(configOf(prod, prod.stack.routeNotFound)).toBe('CodeDeployDefault.LambdaCanary10Percent5Minutes');
    for (const fn of [prod.stack.reports.worker, prod.stack.webhooks.delivery, prod.stack.reports.sweep])
      expect(configOf(prod, fn)).toBe('CodeDeployDefault.LambdaLinear10PercentEvery1Minute');
  });

  it('in prod, watches errors and p99 duration of every new version', () => {
    const metricsOf = (alarm: Resource): string[] =>
      alarm.Properties.Metrics
        ? (alarm.Properties.Metrics as Array<{ MetricStat?: { Metric: { MetricName: string } } }>)
            .filter((query) => query.MetricStat)
            .map((query) => query.MetricStat!.Metric.MetricName)
        : [alarm.Properties.MetricName as string];
    for (const [fn, group] of prod.stack.deployments.groups) {
      const metrics = (
        prod.resources[logicalIdOf(group)]!.Properties.AlarmConfiguration.Alarms as Array<{ Name: { Ref: string } }>
      ).flatMap(({ Name }) => metricsOf(prod.resources[Name.Ref]!));
      expect(metrics.sort(), fn.node.path).toEqual(['Duration', 'Errors']);
    }
  });

  it('elsewhere deploys all at once after the pre-traffic check, keeping §7’s alarms on the version', () => {
    for (const [fn, group] of dev.stack.deployments.groups)
      expect(dev.resources[logicalIdOf(group)]!.Properties.DeploymentConfigName, fn.node.path).toBe(
        'CodeDeployDefault.LambdaAllAtOnce',
      );
    const workerGroup = dev.resources[logicalIdOf(dev.stack.deployments.groups.get(dev.stack.reports.worker)!)]!;
    expect(workerGroup.Properties.AlarmConfiguration.Alarms).toHaveLength(2);
  });

  it('takes the canary from context: 25% for 10 minutes', () => {
    const custom = synthesize({ deployAllAtOnce: 'false', canaryPercent: '25', canaryMinutes: '10' });
    const [[configId, config]] = ofType(custom, 'AWS::CodeDeploy::DeploymentConfig') as [[string, Resource]];
    expect(config.Properties.TrafficRoutingConfig).toEqual({
      Type: 'TimeBasedCanary',
      TimeBasedCanary: { CanaryPercentage: 25, CanaryInterval: 10 },
    });
    expect(configOf(custom, custom.stack.routeFunctions.get('CreateOnboardingToken')!)).toEqual({ Ref: configId });
  });
});

// §7's Errors alarm on the version everywhere; its p99 duration only where the rollout takes a while to watch.
describe.each([
  ['identity=cognito', cognito, 'CodeDeployDefault.LambdaAllAtOnce', ['Errors']],
  [
    'identity=cognito, stage=prod',
    cognitoProd,
    'CodeDeployDefault.LambdaLinear10PercentEvery1Minute',
    ['Duration', 'Errors'],
  ],
])('the Cognito pre-token-generation trigger with %s', (_, synthesized, deploymentConfig, alarmMetrics) => {
  const { stack, resources } = synthesized;
  const trigger = stack.identity!.preTokenGeneration;
  const aliasId = () => logicalIdOf(trigger.invokedAlias);

  it('is the user pool’s PreTokenGenerationConfig as its live alias, which cognito-idp alone may invoke', () => {
    const [[, pool]] = ofType(synthesized, 'AWS::Cognito::UserPool') as [[string, Resource]];
    expect(pool.Properties.LambdaConfig.PreTokenGenerationConfig).toEqual({
      LambdaArn: { Ref: aliasId() },
      LambdaVersion: 'V3_0',
    });
    const cognitoPermissions = ofType(synthesized, 'AWS::Lambda::Permission').filter(
      ([, permission]) => permission.Properties.Principal === 'cognito-idp.amazonaws.com',
    );
    expect(cognitoPermissions.map(([, permission]) => permission.Properties.FunctionName)).toEqual([
      { Ref: aliasId() },
    ]);
    expect(cognitoPermissions[0]![1].Properties.SourceArn).toEqual({
      'Fn::GetAtt': [logicalIdOf(stack.identity!.userPool), 'Arn'],
    });
  });

  it('has a live alias on its current version and a deployment group of its own with its own hook', () => {
    const alias = resources[aliasId()]! as Resource & { UpdatePolicy?: any };
    expect(alias.Properties.Name).toBe(LIVE_ALIAS);
    const group = stack.deployments.groups.get(trigger);
    expect(group).toBeDefined();
    expect(alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate.DeploymentGroupName).toEqual({ Ref: logicalIdOf(group!) });
    const hook = stack.deployments.hooks.get('pre-token-generation')!;
    expect(alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate.BeforeAllowTrafficHook).toEqual({ Ref: logicalIdOf(hook) });
    expect(resources[logicalIdOf(hook)]!.Properties.Environment.Variables.SYNTHETIC_REQUEST).toBe(
      'pre-token-generation',
    );
  });

  it('lets its hook invoke exactly the trigger’s new version and report to its group alone', () => {
    const hook = stack.deployments.hooks.get('pre-token-generation')!;
    const statements = ofType(synthesized, 'AWS::IAM::Policy')
      .filter(([, policy]) => JSON.stringify(policy.Properties.Roles).includes(logicalIdOf(hook.role!)))
      .flatMap(
        ([, policy]) => policy.Properties.PolicyDocument.Statement as Array<{ Action: unknown; Resource: unknown }>,
      );
    const resourcesOf = (action: string) =>
      statements.filter((statement) => [statement.Action].flat().includes(action)).flatMap((s) => [s.Resource].flat());
    const [versionId] = resources[aliasId()]!.Properties.FunctionVersion['Fn::GetAtt'] as [string, string];
    expect(resourcesOf('lambda:InvokeFunction')).toEqual([{ Ref: versionId }]);
    expect(JSON.stringify(resourcesOf('codedeploy:PutLifecycleEventHookExecutionStatus'))).toContain(
      `"Ref":"${logicalIdOf(stack.deployments.groups.get(trigger)!)}"`,
    );
    expect(resourcesOf('codedeploy:PutLifecycleEventHookExecutionStatus')).toHaveLength(1);
  });

  it('rolls out as the other functions that are not the API’s: 10% a minute in prod, all at once elsewhere', () => {
    const group = resources[logicalIdOf(stack.deployments.groups.get(trigger)!)]!;
    expect(group.Properties.DeploymentConfigName).toBe(deploymentConfig);
    const alarms = (group.Properties.AlarmConfiguration.Alarms as Array<{ Name: { Ref: string } }>).map(
      ({ Name }) => resources[Name.Ref]!.Properties,
    );
    expect(alarms.map((alarm) => alarm.MetricName).sort()).toEqual(alarmMetrics);
  });
});

describe('the synthesized templates in cfn-lint', () => {
  it('find no error and no warning in stage=prod (the default settings: cfn-lint.test.ts)', async () => {
    expect(await cfnLintFindings(separateTemplatesOf(prod.stack))).toEqual({ findings: [], stderr: '' });
  }, 120_000);
});
