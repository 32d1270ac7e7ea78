import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface AlarmsConstructProps {
  /** Subscribed to an alarm topic; without it alarms only show in the console. */
  readonly alarmEmail?: string;
  /** Functions whose errors raise an alarm; more can be added with `addFunctionErrorsAlarm`. */
  readonly functions?: readonly IFunction[];
}

const period = Duration.minutes(5);

/**
 * The service's alarms. Each fires on the first occurrence in a 5-minute period: the service is
 * low-volume, so one error or one dead-lettered message is worth a look.
 */
export class AlarmsConstruct extends Construct {
  /** Present only when an alarm e-mail is configured. */
  readonly topic?: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsConstructProps = {}) {
    super(scope, id);
    if (props.alarmEmail !== undefined) {
      // Encrypted with a customer-managed key: CloudWatch can only publish to an encrypted topic
      // if the key policy lets it, which the AWS-managed `alias/aws/sns` key does not.
      const key = new Key(this, 'AlarmTopicKey', {
        description: 'Encrypts the alarm notification topic',
        enableKeyRotation: true,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
      this.topic = new Topic(this, 'AlarmTopic', { masterKey: key, enforceSSL: true });
      // Without this statement the topic policy `enforceSSL` creates allows nobody to publish, and
      // alarm notifications never arrive. Scoped to alarms of this account.
      this.topic.addToResourcePolicy(
        new PolicyStatement({
          sid: 'AllowCloudWatchAlarmsToPublish',
          principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
          actions: ['sns:Publish'],
          resources: [this.topic.topicArn],
          conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
        }),
      );
      this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    }
    for (const fn of props.functions ?? []) this.addFunctionErrorsAlarm(fn);
  }

  /** Alarms when the function fails (an uncaught error, a timeout or an out-of-memory exit). */
  addFunctionErrorsAlarm(fn: IFunction): Alarm {
    return this.addAlarm(`${fn.node.id}Errors`, fn.metricErrors({ period, statistic: 'Sum' }), {
      description: `${fn.node.id} failed (uncaught error, timeout or crash)`,
    });
  }

  /** Alarms when any message lands in a dead-letter queue. */
  addDeadLetterQueueAlarm(queue: IQueue): Alarm {
    return this.addAlarm(
      `${queue.node.id}Messages`,
      queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      {
        description: `Messages are waiting in the dead-letter queue ${queue.node.id}`,
      },
    );
  }

  /**
   * Alarms when a consumer receives a message from a dead-letter queue. A queue that has its own
   * consumer is drained within seconds, so its depth, sampled once a minute, can miss a message;
   * the receive count cannot.
   */
  addDeadLetterReceivesAlarm(queue: IQueue): Alarm {
    return this.addAlarm(
      `${queue.node.id}Received`,
      queue.metricNumberOfMessagesReceived({ period, statistic: 'Sum' }),
      {
        description: `A message was dead-lettered and received from ${queue.node.id}`,
      },
    );
  }

  /** Alarms on 5XX answers: a function that maps a failure to a 500/503 does not count as a Lambda error. */
  addHttpApiServerErrorsAlarm(httpApi: IHttpApi): Alarm {
    return this.addAlarm(`${httpApi.node.id}ServerErrors`, httpApi.metricServerError({ period, statistic: 'Sum' }), {
      description: 'The HTTP API answered with a 5XX status',
    });
  }

  private addAlarm(id: string, metric: IMetric, options: { description: string }): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
    if (this.topic) alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
    return alarm;
  }
}
