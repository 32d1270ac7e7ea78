import { Aspects } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { COUNTER_RETRY_ATTEMPTS } from '#lib/mail-construct.ts';
import { COUNTED_SES_EVENT_TYPES, emailEventsFunction } from '#shared/config/api-routes.ts';
import { buildServiceStack, logicalIdOf } from './service-stack-fixture.ts';
import { namesLiveAliasOf, wholeTemplateOf } from './template-queries.ts';

const { stack } = buildServiceStack({
  bundle: false,
  context: { emailReputationFailOpenSeconds: 120, alarmEmail: 'ops@example.org' },
});
const template = wholeTemplateOf(stack);
const resources = template.toJSON().Resources as Record<string, any>;
const counterId = logicalIdOf(stack.mail.eventCounter);
const configurationSetRef = { Ref: logicalIdOf(stack.mail.configurationSet) };

describe('the SES configuration set’s event path (contract §19)', () => {
  it('publishes sends, bounces and complaints to the default EventBridge bus', () => {
    template.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
      ConfigurationSetName: configurationSetRef,
      EventDestination: {
        Enabled: true,
        MatchingEventTypes: ['send', 'bounce', 'complaint'],
        EventBridgeDestination: {
          EventBusArn: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([':event-bus/default'])]) }),
        },
      },
    });
  });

  it('hands this set’s events alone to the counter, retried for up to an hour', () => {
    // The counter's live alias (contract §24).
    const rules = Object.values(template.findResources('AWS::Events::Rule')).filter((rule: any) =>
      namesLiveAliasOf(rule.Properties.Targets, stack.mail.eventCounter),
    ) as any[];
    expect(rules).toHaveLength(1);
    const [rule] = rules;
    expect(rule.Properties.EventPattern).toEqual({
      source: ['aws.ses'],
      'detail-type': [...COUNTED_SES_EVENT_TYPES],
      detail: { mail: { tags: { 'ses:configuration-set': [configurationSetRef] } } },
    });
    expect(rule.Properties.EventBusName).toBe('default');
    expect(rule.Properties.Targets[0].RetryPolicy).toEqual({ MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 3600 });
  });

  it('dead-letters an event both retries gave up on (delivery by EventBridge, the count by Lambda) into one queue whose depth pages', () => {
    const queueId = logicalIdOf(stack.mail.eventDeadLetterQueue);
    const queueArn = { 'Fn::GetAtt': [queueId, 'Arn'] };
    const [rule] = (Object.values(template.findResources('AWS::Events::Rule')) as any[]).filter((candidate) =>
      namesLiveAliasOf(candidate.Properties.Targets, stack.mail.eventCounter),
    );
    expect(rule.Properties.Targets[0].DeadLetterConfig).toEqual({ Arn: queueArn });
    expect(resources[counterId].Properties.DeadLetterConfig).toEqual({ TargetArn: queueArn });
    // On the alias EventBridge invokes: $LATEST's settings would not apply to its invocations.
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: counterId },
      MaximumRetryAttempts: COUNTER_RETRY_ATTEMPTS,
      MaximumEventAgeInSeconds: 6 * 3600,
    });
    const [invokeConfig] = Object.values(template.findResources('AWS::Lambda::EventInvokeConfig')) as any[];
    expect(namesLiveAliasOf(invokeConfig.Properties.Qualifier, stack.mail.eventCounter)).toBe(true);
    expect(resources[queueId].Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86_400,
    });
    // EventBridge may send to it (only on this rule's behalf); the counter's role may too.
    const queuePolicy = (Object.values(template.findResources('AWS::SQS::QueuePolicy')) as any[]).find((policy) =>
      JSON.stringify(policy.Properties.Queues).includes(queueId),
    );
    expect(JSON.stringify(queuePolicy.Properties.PolicyDocument)).toContain('events.amazonaws.com');
    const roleId = logicalIdOf(stack.mail.eventCounter.role!);
    const sendStatements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[])
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleId))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .filter((statement) => JSON.stringify(statement.Action).includes('sqs:SendMessage'));
    expect(sendStatements.map((statement) => statement.Resource)).toEqual([queueArn]);
    const depthAlarms = (Object.values(template.findResources('AWS::CloudWatch::Alarm')) as any[]).filter(
      (alarm) =>
        alarm.Properties.MetricName === 'ApproximateNumberOfMessagesVisible' &&
        JSON.stringify(alarm.Properties.Dimensions).includes(queueId),
    );
    expect(depthAlarms).toHaveLength(1);
    expect(depthAlarms[0].Properties).toMatchObject({ Threshold: 1, Period: 300, EvaluationPeriods: 1 });
    expect(depthAlarms[0].Properties.AlarmDescription).toContain('CountEmailEvents');
  });

  it('lets the counter read and replace the reputation items of the OnboardingTokens table, nothing else', () => {
    const counter = resources[counterId];
    expect(counter.Properties.Handler).toBe('index.handler');
    expect(counter.Properties.Environment.Variables.ONBOARDING_TOKENS_TABLE_NAME).toEqual({
      Ref: logicalIdOf(stack.data.tables.OnboardingTokens),
    });
    const roleId = logicalIdOf(stack.mail.eventCounter.role!);
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[])
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleId))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .filter((statement) => JSON.stringify(statement.Action).includes('dynamodb:'));
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        Resource: { 'Fn::GetAtt': [logicalIdOf(stack.data.tables.OnboardingTokens), 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['EMAIL_REPUTATION#*'] } },
      },
    ]);
    expect(emailEventsFunction.entry).toBe('functions/count-email-events.ts');
  });

  it('alarms the operator on every pause (contract §27): EmailPauses by service and stage alone, paging the alarm topic, to which the counter publishes a message naming the organization', () => {
    const topic = stack.alarms.topic!;
    const topicRef = { Ref: logicalIdOf(topic) };
    const pauseAlarms = (Object.values(template.findResources('AWS::CloudWatch::Alarm')) as any[]).filter(
      (alarm) => alarm.Properties.MetricName === 'EmailPauses',
    );
    expect(pauseAlarms).toHaveLength(1);
    const [pauseAlarm] = pauseAlarms;
    expect(pauseAlarm.Properties).toMatchObject({
      Namespace: 'OnboardingService',
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [topicRef],
    });
    // The metric the counter emits carries these dimensions and no other: never the organization.
    expect(pauseAlarm.Properties.Dimensions.map((dimension: any) => dimension.Name).sort()).toEqual([
      'service',
      'stage',
    ]);
    expect(pauseAlarm.Properties.AlarmDescription).toContain('E-mail paused: <organization>');

    const counter = resources[counterId];
    expect(counter.Properties.Environment.Variables.EMAIL_PAUSE_TOPIC_ARN).toEqual(topicRef);
    const roleId = logicalIdOf(stack.mail.eventCounter.role!);
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[])
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleId))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .filter((statement) => /"(sns|kms):/.test(JSON.stringify(statement.Action)));
    expect(statements).toEqual([
      { Effect: 'Allow', Action: 'sns:Publish', Resource: topicRef },
      {
        Effect: 'Allow',
        Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
        Resource: { 'Fn::GetAtt': [logicalIdOf(topic.masterKey!), 'Arn'] },
      },
    ]);
  });

  it('without an alarm e-mail (no topic), still alarms on pauses in the console, and the counter publishes nowhere', () => {
    const { stack: quiet } = buildServiceStack({ bundle: false });
    const quietTemplate = wholeTemplateOf(quiet);
    const pauseAlarms = (Object.values(quietTemplate.findResources('AWS::CloudWatch::Alarm')) as any[]).filter(
      (alarm) => alarm.Properties.MetricName === 'EmailPauses',
    );
    expect(pauseAlarms).toHaveLength(1);
    const counter = (quietTemplate.toJSON().Resources as Record<string, any>)[logicalIdOf(quiet.mail.eventCounter)];
    expect(counter.Properties.Environment.Variables.EMAIL_PAUSE_TOPIC_ARN).toBeUndefined();
  });

  it('tells create and resend the fail-open window of the pause read (context emailReputationFailOpenSeconds)', () => {
    for (const name of ['CreateOnboardingToken', 'ResendOnboardingToken']) {
      const fn = resources[logicalIdOf(stack.routeFunctions.get(name)!)];
      expect(fn.Properties.Environment.Variables.EMAIL_REPUTATION_FAIL_OPEN_SECONDS, name).toBe('120');
    }
  });

  it('passes cdk-nag AwsSolutions: no finding on the mail construct (configuration set, rule, counter, its role with the alarm topic, and dead letters)', () => {
    const { stack: checked } = buildServiceStack({ bundle: false, context: { alarmEmail: 'ops@example.org' } });
    Aspects.of(checked).add(new AwsSolutionsChecks({ verbose: true }));
    const annotations = Annotations.fromStack(checked);
    const findings = [
      ...annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*')),
      ...annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*')),
    ].filter((finding) => finding.id.includes('/Mail/'));
    // The construct's resources were checked: the counter's role is among the paths cdk-nag visits.
    expect(checked.mail.eventCounter.node.path).toContain('/Mail/');
    expect(findings.map((finding) => `${finding.id}: ${String(finding.entry.data)}`)).toEqual([]);
  });
});
