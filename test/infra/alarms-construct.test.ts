import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, it } from 'vitest';
import { AlarmsConstruct } from '#lib/alarms-construct.ts';

let template: Template;

beforeAll(() => {
  const stack = new Stack(new App(), 'AlarmsUnderTest');
  const alarms = new AlarmsConstruct(stack, 'Alarms', { alarmEmail: 'ops@example.com' });
  const deadLetters = new Queue(stack, 'JobsDeadLetters');
  alarms.addDeadLetterQueueAlarm(deadLetters);
  alarms.addDeadLetterReceivesAlarm(deadLetters);
  template = Template.fromStack(stack);
});

describe('AlarmsConstruct', () => {
  it('alarms as soon as one message waits in a dead-letter queue', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^JobsDeadLetters'), 'QueueName'] } },
      ],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: Match.stringLikeRegexp('^AlarmsAlarmTopic') }],
    });
  });

  it('alarms as soon as a consumer receives one message from a dead-letter queue', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'NumberOfMessagesReceived',
      Statistic: 'Sum',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^JobsDeadLetters'), 'QueueName'] } },
      ],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('mails alarms through a topic encrypted with a rotated key CloudWatch may use', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
  });

  it('creates no topic without an alarm e-mail', () => {
    const stack = new Stack(new App(), 'QuietAlarms');
    new AlarmsConstruct(stack, 'Alarms').addDeadLetterQueueAlarm(new Queue(stack, 'JobsDeadLetters'));
    const quiet = Template.fromStack(stack);
    quiet.resourceCountIs('AWS::SNS::Topic', 0);
    quiet.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmActions: Match.absent() });
  });
});
