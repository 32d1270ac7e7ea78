import { readFileSync } from 'node:fs';
import { Match } from 'aws-cdk-lib/assertions';
import { CURRENTLY_RECOMMENDED_FLAGS } from 'aws-cdk-lib/cx-api';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { SES_BOUNCE_RATE_THRESHOLD, SES_COMPLAINT_RATE_THRESHOLD } from '#lib/alarms-construct.ts';
import { idleCost, type CloudFormationTemplate, type IdleCost } from '#scripts/cost/idle-cost.ts';
import { readPriceTable } from '#scripts/cost/price-table.ts';
import { synthesizeStage } from '#scripts/cost/stage-template.ts';
import { apiRoutes } from '#shared/config/api-routes.ts';
import { buildServiceStack, logicalIdOf } from './service-stack-fixture.ts';
import { alarmedFunctionOf, wholeTemplateOf } from './template-queries.ts';

const { stack } = buildServiceStack({
  bundle: false,
  context: { alarmEmail: 'ops@example.org', operationsDashboard: 'true' },
});
const template = wholeTemplateOf(stack);
const resources = template.toJSON().Resources as Record<string, any>;
const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as any[];
const topicRef = { Ref: logicalIdOf(stack.alarms.topic!) };
/** Function logical ids by the logical id of their live alias, which the API's integrations invoke. */
const functionOfAlias = new Map(
  [...stack.routeFunctions.values(), stack.routeNotFound].map((fn) => [logicalIdOf(fn.invokedAlias), logicalIdOf(fn)]),
);

const alarmOn = (metricName: string, predicate: (alarm: any) => boolean = () => true): any[] =>
  alarms.filter(
    (alarm) =>
      (alarm.Properties.MetricName === metricName ||
        (alarm.Properties.Metrics as any[] | undefined)?.some(
          (query) => query.MetricStat?.Metric?.MetricName === metricName,
        )) &&
      predicate(alarm),
  );

describe('cdk.json', () => {
  it('sets every feature flag the CDK version in use recommends, at the recommended value', () => {
    const context = (JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as any).context;
    for (const [flag, value] of Object.entries(CURRENTLY_RECOMMENDED_FLAGS)) expect(context[flag], flag).toEqual(value);
  });
});

describe('SES', () => {
  it('sends through a configuration set with reputation metrics and bounce and complaint events in CloudWatch', () => {
    template.hasResourceProperties('AWS::SES::ConfigurationSet', {
      ReputationOptions: { ReputationMetricsEnabled: true },
    });
    template.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
      EventDestination: {
        Enabled: true,
        MatchingEventTypes: Match.arrayWith(['bounce', 'complaint']),
        CloudWatchDestination: {
          DimensionConfigurations: [
            {
              DimensionName: 'ses:configuration-set',
              DimensionValueSource: 'messageTag',
              DefaultDimensionValue: 'none',
            },
          ],
        },
      },
    });
    const create = resources[logicalIdOf(stack.routeFunctions.get('CreateOnboardingToken')!)];
    expect(create.Properties.Environment.Variables.SES_CONFIGURATION_SET).toEqual({
      Ref: logicalIdOf(stack.mail.configurationSet),
    });
    const sendStatements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[])
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .filter((statement) => statement.Action === 'ses:SendEmail');
    expect(sendStatements.length).toBe(3); // create, resend and the sandbox's events (a token issued)
    for (const statement of sendStatements) expect(JSON.stringify(statement.Resource)).toContain(':configuration-set/');
  });

  it('outputs the three DKIM CNAME records of a domain identity it creates, and none for one it reuses', () => {
    const dkim = Object.keys(template.findOutputs('*')).filter((name) => name.includes('DkimRecord'));
    expect(dkim).toHaveLength(3);
    for (const name of dkim) expect(JSON.stringify(template.findOutputs(name))).toContain('CNAME');

    const reused = wholeTemplateOf(
      buildServiceStack({ bundle: false, context: { senderIdentityExists: 'true' } }).stack,
    );
    expect(Object.keys(reused.findOutputs('*')).filter((name) => name.includes('DkimRecord'))).toEqual([]);
  });

  it('lets the functions send to the verified recipients named for the SES sandbox, and to no one else', () => {
    const sandbox = wholeTemplateOf(
      buildServiceStack({ bundle: false, context: { sesSandboxRecipients: 'qa@example.org, lead@example.org' } }).stack,
    );
    const statements = (Object.values(sandbox.findResources('AWS::IAM::Policy')) as any[])
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .filter((statement) => statement.Action === 'ses:SendEmail');
    expect(statements.length).toBe(3);
    for (const statement of statements) {
      const resourcesText = JSON.stringify(statement.Resource);
      expect(resourcesText).toContain(':identity/qa@example.org');
      expect(resourcesText).toContain(':identity/lead@example.org');
      expect(resourcesText).not.toContain('identity/*');
    }
  });
});

describe('alarms', () => {
  it('notify the alarm topic, every one of them, and say what to do', () => {
    expect(alarms.length).toBeGreaterThan(20);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions, alarm.Properties.AlarmDescription).toEqual([topicRef]);
      // A description states what happened and then at least one instruction.
      expect(alarm.Properties.AlarmDescription).toMatch(
        /\. (Check|Find|Read|Query|Look|Look up|Raise|Redrive)\b|\. [A-Z][^.]*(check|find|stop|look|\badd\b)/,
      );
    }
  });

  it('watch the report pipeline: dead letters, the oldest message, worker errors, throttles and duration near timeout', () => {
    const depthAlarmQueues = alarmOn('ApproximateNumberOfMessagesVisible').map(
      (alarm) => alarm.Properties.Dimensions[0].Value['Fn::GetAtt'][0],
    );
    // The report dead letters have a consumer that drains them within seconds: their receive count pages instead.
    expect(depthAlarmQueues.sort()).toEqual(
      [
        logicalIdOf(stack.webhooks.deadLetterQueue),
        logicalIdOf(stack.mail.eventDeadLetterQueue),
        logicalIdOf(stack.sandboxWipes.deadLetterQueue),
      ].sort(),
    );
    expect(
      alarmOn('NumberOfMessagesReceived').map((alarm) => alarm.Properties.Dimensions[0].Value['Fn::GetAtt'][0]),
    ).toEqual([logicalIdOf(stack.reports.deadLetterQueue)]);
    const [age] = alarmOn('ApproximateAgeOfOldestMessage');
    expect(age.Properties.Threshold).toBe(120);
    const worker = { Ref: logicalIdOf(stack.reports.worker) };
    // Errors and duration are read per version through the live alias (contract §24): deployments roll back on them.
    const onWorker = (alarm: any) =>
      JSON.stringify(alarm.Properties.Dimensions) === JSON.stringify([{ Name: 'FunctionName', Value: worker }]) ||
      JSON.stringify(alarm.Properties.Dimensions?.find((dimension: any) => dimension.Name === 'FunctionName')) ===
        JSON.stringify({ Name: 'FunctionName', Value: worker });
    expect(alarmOn('Errors', onWorker)).toHaveLength(1);
    expect(alarmOn('Throttles', onWorker)).toHaveLength(1);
    const [duration] = alarmOn('Duration', onWorker);
    expect(duration.Properties.ExtendedStatistic).toBe('p99');
    const timeoutSeconds = resources[logicalIdOf(stack.reports.worker)].Properties.Timeout as number;
    expect(duration.Properties.Threshold).toBe(timeoutSeconds * 1000 * 0.8);
  });

  it('watch every function outside the API for errors, the API for 5XX answers (a route function failing is one), and the tables of the queue consumers for throttling', () => {
    // The Provider frameworks' own functions: onEvent, and the migration's isComplete and onTimeout.
    const providerFrameworks = [stack.usersDatabase.migrationProvider, stack.reportSigning.publisherProvider].flatMap(
      (provider) =>
        ['framework-onEvent', 'framework-isComplete', 'framework-onTimeout']
          .map((name) => provider.node.tryFindChild(name))
          .filter((child): child is IConstruct => child !== undefined)
          .map((child) => logicalIdOf(child)),
    );
    // The certificate publisher runs during a deploy only, which fails visibly with it; an alarm of its own would
    // cost a metric every month of the idle budget (docs/cost.md) for nothing.
    const certificatePublisher = logicalIdOf(stack.reportSigning.publisherFunction);
    // A pre-traffic hook that fails fails the deployment it checks, in front of whoever deploys.
    const hooks = [...stack.deployments.hooks.values(), ...stack.sandbox.deployments.hooks.values()].map((hook) =>
      logicalIdOf(hook),
    );
    const routes = new Set([...stack.routeFunctions.values(), stack.routeNotFound].map((fn) => logicalIdOf(fn)));
    const functions = Object.keys(template.findResources('AWS::Lambda::Function')).filter(
      // The CDK's own deploy-time handlers (BucketDeployment, the Provider framework that calls the
      // users database migration) run only during a deploy; the migration function itself is watched.
      (id) =>
        !id.startsWith('CustomCDKBucketDeployment') &&
        !id.startsWith('AWS') &&
        !providerFrameworks.includes(id) &&
        !hooks.includes(id) &&
        id !== certificatePublisher,
    );
    const withErrorAlarm = alarmOn('Errors').map((alarm) => alarmedFunctionOf(alarm.Properties)!);
    // Or watched through its dead letters: a function whose failed events, once retried, go to a queue whose depth
    // pages (the SES event counter: its retries absorb a blip, and a lasting failure dead-letters the events).
    const depthAlarmed = new Set(
      alarmOn('ApproximateNumberOfMessagesVisible').map(
        (alarm) => alarm.Properties.Dimensions[0].Value['Fn::GetAtt'][0],
      ),
    );
    const withAlarmedDeadLetters = functions.filter((id) => {
      const target = resources[id].Properties.DeadLetterConfig?.TargetArn;
      return target !== undefined && depthAlarmed.has(target['Fn::GetAtt'][0]);
    });
    expect(withAlarmedDeadLetters).toEqual([logicalIdOf(stack.mail.eventCounter)]);
    expect([...withErrorAlarm, ...withAlarmedDeadLetters].sort()).toEqual(
      functions.filter((fn) => !routes.has(fn)).sort(),
    );
    // Every route is behind the API, whose integration answers a function's error or timeout with a 5XX.
    const integrated = Object.values(template.findResources('AWS::ApiGatewayV2::Integration')).map((integration: any) =>
      functionOfAlias.get(integration.Properties.IntegrationUri.Ref),
    );
    expect(new Set(integrated)).toEqual(routes);
    const [serverErrors, ...others] = alarmOn('5xx');
    expect(others).toEqual([]);
    expect(serverErrors.Properties).toMatchObject({ Statistic: 'Sum', Period: 300, Threshold: 1 });

    const throttled = alarmOn('ReadThrottleEvents').map(
      (alarm) =>
        (alarm.Properties.Metrics as any[]).find((query) => query.MetricStat)?.MetricStat.Metric.Dimensions[0].Value
          .Ref,
    );
    expect(throttled.sort()).toEqual(
      [logicalIdOf(stack.data.tables.ReportJobs), logicalIdOf(stack.data.tables.Webhooks)].sort(),
    );
    expect(alarmOn('WriteThrottleEvents')).toHaveLength(2);
  });

  it('read at most 30 metrics: an idle stage with the default settings costs at most $8 a month (docs/cost.md)', () => {
    const prices = readPriceTable();
    const alarmMetrics = (cost: IdleCost) => cost.items.find((item) => item.item === 'alarm metrics')!.quantity;
    expect(alarmMetrics(idleCost(template.toJSON() as CloudFormationTemplate, prices))).toBeLessThanOrEqual(30);
    // Without an alarm e-mail there is no topic, and no key to encrypt it ($1 a month).
    const quiet = idleCost(synthesizeStage({}), prices);
    expect(alarmMetrics(quiet)).toBeLessThanOrEqual(30);
    expect(quiet.monthlyUsd).toBeLessThanOrEqual(8);
  });

  it('price every stack a stage deploys: stage=prod’s web ACL, in its us-east-1 stack, is in its idle cost', () => {
    const prod = idleCost(synthesizeStage({ stage: 'prod' }), readPriceTable());
    const item = (name: string) => prod.items.find((entry) => entry.item === name)!;
    expect(item('WAF web ACLs')).toMatchObject({ quantity: 1, monthlyUsd: 5 });
    expect(item('WAF rules').quantity).toBeGreaterThan(0);
    expect(prod.monthlyUsd).toBeGreaterThan(idleCost(synthesizeStage({}), readPriceTable()).monthlyUsd + 5);
  });

  it('watch both webhook delivery lanes: each function’s errors, each logging to its own group kept one month', () => {
    const lanes = [stack.webhooks.delivery, stack.webhooks.slowDelivery];
    const logGroups = lanes.map((fn) => resources[logicalIdOf(fn)].Properties.LoggingConfig.LogGroup.Ref as string);
    expect(new Set(logGroups).size).toBe(2);
    for (const [index, fn] of lanes.entries()) {
      const onFunction = (alarm: any) => alarmedFunctionOf(alarm.Properties) === logicalIdOf(fn);
      expect(alarmOn('Errors', onFunction), fn.node.path).toHaveLength(1);
      expect(resources[logGroups[index]!].Properties.RetentionInDays, fn.node.path).toBe(30);
    }
  });

  it('watch the bounce and complaint rates of the configuration set below the rates AWS reviews at', () => {
    const onSet = (alarm: any) =>
      JSON.stringify(alarm.Properties.Dimensions) ===
      JSON.stringify([{ Name: 'ses:configuration-set', Value: { Ref: logicalIdOf(stack.mail.configurationSet) } }]);
    expect(alarmOn('Reputation.BounceRate', onSet)[0].Properties.Threshold).toBe(SES_BOUNCE_RATE_THRESHOLD);
    expect(alarmOn('Reputation.ComplaintRate', onSet)[0].Properties.Threshold).toBe(SES_COMPLAINT_RATE_THRESHOLD);
    expect(SES_BOUNCE_RATE_THRESHOLD).toBeLessThan(0.05);
    expect(SES_COMPLAINT_RATE_THRESHOLD).toBeLessThan(0.001);
  });
});

describe('alarms on failures the code absorbs', () => {
  it('watch skipped sweep items, abandoned dead letters and lost webhook events of this stage', () => {
    for (const metricName of ['SweepItemsSkipped', 'DeadLetterMessagesAbandoned', 'WebhookEventsLost']) {
      const [alarm] = alarmOn(metricName);
      expect(alarm, metricName).toBeDefined();
      expect(alarm.Properties.Namespace).toBe('OnboardingService');
      expect(alarm.Properties.Dimensions).toEqual([
        { Name: 'service', Value: 'onboarding-reports-service' },
        { Name: 'stage', Value: 'dev' },
      ]);
      expect(alarm.Properties.Threshold).toBe(1);
    }
  });
});

describe('tracing', () => {
  it('is active on every function of the service but those whose traces would cost more than the rest of their work, without error messages in traces', () => {
    const functions = Object.entries(template.findResources('AWS::Lambda::Function')) as [string, any][];
    const service = functions.filter(([, fn]) => fn.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME);
    // Route functions, the fallback, the report worker, dead-letter handler and sweep, the webhook delivery of
    // each lane, the republish of pending webhook events, the users database migration, the SES event counter,
    // the certificate publisher, the sandbox wipe's consumer, and the pre-traffic hook of each kind of synthetic
    // request, in the stack and in the sandbox's nested stack.
    expect(service.length).toBe(
      stack.routeFunctions.size + 11 + stack.deployments.hooks.size + stack.sandbox.deployments.hooks.size,
    );
    for (const fn of [stack.webhooks.delivery, stack.webhooks.slowDelivery])
      expect(service.map(([id]) => id)).toContain(logicalIdOf(fn));
    // Nothing upstream of these passes a sampled trace header, so PassThrough records no trace for them: the
    // every-minute schedules (nearly every run idle), the webhook delivery lanes (a trace would double a
    // delivery's cost) and the API's GET routes (what clients poll). docs/cost.md has the figures.
    const getRoutes = apiRoutes.filter((route) => route.method === 'GET');
    expect(getRoutes.map((route) => route.name)).toEqual(
      expect.arrayContaining(['GetReportJob', 'GetReportDownloadUrl', 'ListReportJobs']),
    );
    const passThrough = new Set(
      [
        stack.reports.sweep,
        stack.webhooks.republish,
        stack.webhooks.delivery,
        stack.webhooks.slowDelivery,
        // The sandbox wipe's consumer (lib/sandbox-wipe-construct.ts): a sandbox's test data, traced by nothing upstream.
        stack.sandboxWipes.consumer,
        ...getRoutes.map((route) => stack.routeFunctions.get(route.name)!),
      ].map((fn) => logicalIdOf(fn)),
    );
    for (const [id, fn] of service) {
      expect(fn.Properties.TracingConfig, id).toEqual({ Mode: passThrough.has(id) ? 'PassThrough' : 'Active' });
      expect(fn.Properties.Runtime, id).toBe('nodejs24.x');
      expect(fn.Properties.Architectures, id).toEqual(['arm64']);
      expect(fn.Properties.Environment.Variables.POWERTOOLS_TRACER_CAPTURE_ERROR, id).toBe('false');
    }
    // Everything that writes or does the long work keeps its traces: the report request and its worker above all.
    for (const fn of [stack.routeFunctions.get('CreateReportJob')!, stack.reports.worker])
      expect(passThrough.has(logicalIdOf(fn))).toBe(false);
  });

  it('sets no X-Ray sampling rule: Lambda samples with its own fixed rule and the HTTP API does not trace', () => {
    template.resourceCountIs('AWS::XRay::SamplingRule', 0);
  });
});

describe('the operations dashboard', () => {
  const body = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));

  it('shows the business metrics of this stage, latency and errors per route, queue depth and age, and mail events', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    for (const expected of [
      'OnboardingService',
      'TokensIssued',
      'ReportsCompleted',
      'ReportsFailed',
      'ReportRenderMilliseconds',
      'RateLimitedRequests',
      'ApproximateAgeOfOldestMessage',
      'ApproximateNumberOfMessagesVisible',
      'Latency',
      'Bounce',
      'Complaint',
      // Events SQS refused: kept, republished, lost.
      'WebhookEventsKept',
      'WebhookEventsRepublished',
      'WebhookEventsLost',
      // Every table's throttles, alarmed or not.
      'ReadThrottleEvents',
      'WriteThrottleEvents',
    ]) {
      expect(body, expected).toContain(expected);
    }
    for (const name of stack.routeFunctions.keys()) expect(body, name).toContain(`${name} p99`);
    for (const table of Object.values(stack.data.tables)) expect(body, table.node.path).toContain(logicalIdOf(table));
    // Both webhook lanes: a backlog on the slow lane is an organization's endpoints hanging.
    for (const construct of [
      stack.webhooks.queue,
      stack.webhooks.slowQueue,
      stack.webhooks.deadLetterQueue,
      stack.webhooks.delivery,
      stack.webhooks.slowDelivery,
    ])
      expect(body, construct.node.path).toContain(logicalIdOf(construct));
    expect(Object.keys(template.findOutputs('*')).some((name) => name.startsWith('OperationsDashboardUrl'))).toBe(true);
  });

  it('matches what the functions emit: every function knows its stage and the namespace', () => {
    for (const [id, fn] of Object.entries(template.findResources('AWS::Lambda::Function')) as [string, any][]) {
      if (!fn.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME) continue;
      expect(fn.Properties.Environment.Variables, id).toMatchObject({
        STAGE: 'dev',
        POWERTOOLS_METRICS_NAMESPACE: 'OnboardingService',
      });
    }
  });
});
