import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { EventField, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import { SnsTopic } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '#shared/observability/metrics.ts';
import { ServiceFunction } from './service-function.ts';

export interface AlarmsConstructProps {
  /** Subscribed to an alarm topic; without it alarms only show in the console. */
  readonly alarmEmail?: string;
  /** Functions whose errors raise an alarm; more can be added with `addFunctionErrorsAlarm`. */
  readonly functions?: readonly IFunction[];
  /**
   * The topic another stack's alarms notify (a nested stack's alarms notify the parent's): none is created here,
   * and `alarmEmail` is then ignored.
   */
  readonly notifiedTopic?: ITopic;
}

const period = Duration.minutes(5);

/** AWS reviews an account at a 5% bounce rate and 0.1% complaint rate; these alarm at half of that. */
export const SES_BOUNCE_RATE_THRESHOLD = 0.025;
export const SES_COMPLAINT_RATE_THRESHOLD = 0.0005;

/** Where Aurora DSQL publishes a cluster's metrics (dimension `ClusterId`). */
export const AURORA_DSQL_NAMESPACE = 'AWS/AuroraDSQL';
/** OCC conflicts per 5 minutes that, kept up for OCC_CONFLICTS_PERIODS periods, raise the alarm. */
export const OCC_CONFLICTS_THRESHOLD = 10;
export const OCC_CONFLICTS_PERIODS = 3;

/**
 * The service's alarms. Each fires on the first occurrence in a 5-minute period: the service is
 * low-volume, so one error or one dead-lettered message is worth a look.
 */
export class AlarmsConstruct extends Construct {
  /** Present only when an alarm e-mail is configured. */
  readonly topic?: Topic;
  readonly alarms: Alarm[] = [];
  /**
   * The alarms that watch one function's new version alone (through its `live` alias): a deployment of that
   * function rolls back when one fires (lib/safe-deployments-construct.ts).
   */
  readonly newVersionAlarms = new Map<ServiceFunction, Alarm[]>();
  /** What every alarm notifies: `topic`, or the topic given. */
  private readonly notifiedTopic?: ITopic;

  constructor(scope: Construct, id: string, props: AlarmsConstructProps = {}) {
    super(scope, id);
    if (props.alarmEmail !== undefined && props.notifiedTopic === undefined) {
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
    this.notifiedTopic = props.notifiedTopic ?? this.topic;
    for (const fn of props.functions ?? []) this.addFunctionErrorsAlarm(fn);
  }

  /** Alarms when the function fails (an uncaught error, a timeout or an out-of-memory exit). */
  addFunctionErrorsAlarm(fn: IFunction): Alarm {
    const options = { period, statistic: 'Sum' };
    const alarm = this.addAlarm(
      `${fn.node.id}Errors`,
      liveVersionOf(fn)?.metricOfLiveVersion('Errors', options) ?? fn.metricErrors(options),
      {
        description:
          `${fn.node.id} failed (uncaught error, timeout or crash). ` +
          `Look up its ERROR lines and Task timed out REPORT lines in its log group (README, "Operate").`,
      },
    );
    this.watchNewVersion(fn, alarm);
    return alarm;
  }

  /**
   * What a deployment of `fn` rolls back on (contract §24), where §7 has no alarm of that kind for it already:
   * errors and p99 duration (80% of the timeout) of the new version alone.
   */
  addNewVersionAlarms(fn: ServiceFunction): Alarm[] {
    const watched = this.newVersionAlarms.get(fn) ?? [];
    const has = (metricName: string) =>
      watched.some((alarm) => (alarm.node.defaultChild as { metricName?: string }).metricName === metricName);
    if (has('Errors') && !has('Duration')) this.addFunctionDurationAlarm(fn, fn.timeoutDuration);
    if (!has('Errors') && !has('Duration')) {
      // One alarm for both (a stack holds at most 500 resources; thirty functions would otherwise add sixty).
      const thresholdMs = Math.round(fn.timeoutDuration.toMilliseconds() * 0.8);
      this.watchNewVersion(
        fn,
        this.addAlarm(
          `${fn.node.id}NewVersionFailing`,
          new MathExpression({
            expression: `errors + IF(slowest >= ${thresholdMs}, 1, 0)`,
            usingMetrics: {
              errors: fn.metricOfLiveVersion('Errors', { period, statistic: 'Sum' }),
              slowest: fn.metricOfLiveVersion('Duration', { period, statistic: 'p99' }),
            },
            label: `${fn.node.id} new version: errors, and 1 while its p99 duration is at or above ${thresholdMs} ms`,
            period,
          }),
          {
            description:
              `The version of ${fn.node.id} being deployed failed (uncaught error, timeout or crash) or its p99 ` +
              `duration reached ${thresholdMs} ms, 80% of its timeout: CodeDeploy moves the alias back to the ` +
              'previous version. Read its ERROR lines and REPORT durations (docs/operate.md "Deployments").',
          },
        ),
      );
    }
    return this.newVersionAlarms.get(fn) ?? [];
  }

  /** Alarms when Lambda refused to run the function for lack of concurrency. */
  addFunctionThrottlesAlarm(fn: IFunction): Alarm {
    return this.addAlarm(`${fn.node.id}Throttles`, fn.metricThrottles({ period, statistic: 'Sum' }), {
      description:
        `${fn.node.id} was throttled. Check the account's concurrency (Lambda console, ` +
        `ConcurrentExecutions) and the function's reserved concurrency; messages wait in the queue meanwhile.`,
    });
  }

  /** Alarms when the slowest invocations come within 80% of the function's timeout. */
  addFunctionDurationAlarm(fn: IFunction, timeout: Duration): Alarm {
    const thresholdMs = Math.round(timeout.toMilliseconds() * 0.8);
    const options = { period, statistic: 'p99' };
    const metric = liveVersionOf(fn)?.metricOfLiveVersion('Duration', options) ?? fn.metricDuration(options);
    return this.watchNewVersion(
      fn,
      this.addAlarm(`${fn.node.id}NearTimeout`, metric, {
        threshold: thresholdMs,
        description:
          `${fn.node.id}'s p99 duration passed ${thresholdMs} ms, 80% of its ${timeout.toSeconds()} s timeout. ` +
          `Find the slow dependency in its logs (durations by phase); raise memory or the timeout only with the queue's visibility.`,
      }),
    );
  }

  /** Records an alarm on `fn`'s new version for its deployment group; others pass through. */
  private watchNewVersion(fn: IFunction, alarm: Alarm): Alarm {
    const live = liveVersionOf(fn);
    if (live) this.newVersionAlarms.set(live, [...(this.newVersionAlarms.get(live) ?? []), alarm]);
    return alarm;
  }

  /** Alarms when the oldest message of a work queue has waited longer than `maxAge`. */
  addQueueAgeAlarm(queue: IQueue, maxAge: Duration): Alarm {
    return this.addAlarm(
      `${queue.node.id}OldestMessage`,
      queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
      {
        threshold: maxAge.toSeconds(),
        description:
          `A message waited more than ${maxAge.toSeconds()} s in ${queue.node.id}: its consumer is failing, ` +
          `throttled or too slow. Check the consumer's Errors and Throttles alarms and its logs.`,
      },
    );
  }

  /** Alarms when DynamoDB throttled reads or writes of a table or its indexes. */
  addTableThrottlesAlarm(id: string, table: ITable): Alarm {
    const metric = (metricName: string) =>
      new Metric({
        namespace: 'AWS/DynamoDB',
        metricName,
        dimensionsMap: { TableName: table.tableName },
        period,
        statistic: 'Sum',
      });
    return this.addAlarm(
      `${id}TableThrottles`,
      new MathExpression({
        expression: 'reads + writes',
        usingMetrics: { reads: metric('ReadThrottleEvents'), writes: metric('WriteThrottleEvents') },
        label: `${id} throttle events`,
        period,
      }),
      {
        description:
          `DynamoDB throttled requests to the ${id} table. The tables are on-demand: look for a hot ` +
          `partition (CloudWatch Contributor Insights) or an account table limit; requests got 503 with Retry-After.`,
      },
    );
  }

  /**
   * Alarms on one of the service's own EMF metrics (shared/observability/metrics.ts), counted in
   * this stage: failures the code absorbs on purpose but an operator must hear about.
   */
  addBusinessMetricAlarm(
    metricName: string,
    dimensions: { service: string; stage: string },
    description: string,
  ): Alarm {
    return this.addAlarm(
      metricName,
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service: dimensions.service, stage: dimensions.stage },
        period,
        statistic: 'Sum',
      }),
      { description },
    );
  }

  /** Alarms on the bounce and complaint rates SES keeps for a configuration set. */
  addSesReputationAlarms(configurationSetName: string): Alarm[] {
    const rate = (metricName: string) =>
      new Metric({
        namespace: 'AWS/SES',
        metricName,
        dimensionsMap: { 'ses:configuration-set': configurationSetName },
        period: Duration.hours(1),
        statistic: 'Maximum',
      });
    return [
      this.addAlarm('SesBounceRate', rate('Reputation.BounceRate'), {
        threshold: SES_BOUNCE_RATE_THRESHOLD,
        description:
          'The onboarding e-mails bounce at more than 2.5% (AWS reviews the account at 5%). ' +
          'Check which organizations issue tokens to invalid addresses (token counts per organization) and the SES suppression list.',
      }),
      this.addAlarm('SesComplaintRate', rate('Reputation.ComplaintRate'), {
        threshold: SES_COMPLAINT_RATE_THRESHOLD,
        description:
          'Recipients mark onboarding e-mails as spam at more than 0.05% (AWS reviews the account at 0.1%). ' +
          'Find the organization sending unexpected tokens and stop it before SES pauses sending.',
      }),
    ];
  }

  /** Alarms when any message lands in a dead-letter queue; `firstStep` says what to do (default: read and redrive). */
  addDeadLetterQueueAlarm(queue: IQueue, firstStep?: string): Alarm {
    return this.addAlarm(
      `${queue.node.id}Messages`,
      queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      {
        description:
          `Messages are waiting in the dead-letter queue ${queue.node.id}. ` +
          (firstStep ??
            `Read the dead-letter handler's logs for the job ids; redrive with the console's "Start DLQ redrive" once the cause is fixed.`),
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
        description:
          `A message was dead-lettered and received from ${queue.node.id}: a job failed with INTERNAL_ERROR. ` +
          `Find its job id in the dead-letter handler's logs and the worker's ERROR lines for the cause.`,
      },
    );
  }

  /**
   * Alarms on the users database's own metrics: namespace `AWS/AuroraDSQL`, dimension `ClusterId`
   * (the cluster identifier), names as the Aurora DSQL user guide lists them ("Monitoring Aurora
   * DSQL with Amazon CloudWatch"):
   * - `QueryTimeouts`: queries cut off at DSQL's maximum transaction time. The service's statements
   *   are short, so one is a finding (Sum >= 1 in 5 minutes).
   * - `OccConflicts`: transactions aborted by optimistic concurrency control. The functions only
   *   read, which never conflicts; writers (users:import, the migration) can conflict when they
   *   overlap, and an occasional conflict is harmless. Alarms when conflicts are sustained: at least
   *   OCC_CONFLICTS_THRESHOLD in each of OCC_CONFLICTS_PERIODS 5-minute periods in a row.
   */
  addUsersDatabaseAlarms(clusterIdentifier: string): Alarm[] {
    const metric = (metricName: string) =>
      new Metric({
        namespace: AURORA_DSQL_NAMESPACE,
        metricName,
        dimensionsMap: { ClusterId: clusterIdentifier },
        period,
        statistic: 'Sum',
      });
    return [
      this.addAlarm('UsersDatabaseQueryTimeouts', metric('QueryTimeouts'), {
        description:
          "A users database query ran into Aurora DSQL's maximum transaction time. Find the statement in the " +
          "reading functions' logs (user status queries, report jobs: their 503s name the users database) and read its plan (EXPLAIN).",
      }),
      this.addAlarm('UsersDatabaseOccConflicts', metric('OccConflicts'), {
        threshold: OCC_CONFLICTS_THRESHOLD,
        evaluationPeriods: OCC_CONFLICTS_PERIODS,
        description:
          `Aurora DSQL aborted ${OCC_CONFLICTS_THRESHOLD} or more transactions for conflicts in each of ` +
          `${OCC_CONFLICTS_PERIODS} 5-minute periods: concurrent writers (users:import runs, migrations) contend ` +
          'for the same rows. Find the overlapping writers and run them one at a time.',
      }),
    ];
  }

  /**
   * Sends the operator a message for each backup job of `backupVaultName` that ends FAILED, ABORTED
   * or EXPIRED (AWS Backup's `Backup Job State Change` events): at once, naming the job, with AWS
   * Backup's reason. A scheduled backup that could not start within its window ends EXPIRED, so a
   * missed backup pages too. No rule without the alarm topic (no alarm e-mail): nothing to send to.
   */
  addBackupJobFailuresRule(id: string, backupVaultName: string): Rule | undefined {
    if (!this.topic) return undefined;
    const detail = (field: string) => EventField.fromPath(`$.detail.${field}`);
    return new Rule(this, `${id}BackupJobFailures`, {
      description: `AWS Backup jobs of ${id} that end FAILED, ABORTED or EXPIRED, sent to the alarm topic`,
      eventPattern: {
        source: ['aws.backup'],
        detailType: ['Backup Job State Change'],
        detail: { state: ['FAILED', 'ABORTED', 'EXPIRED'], backupVaultName: [backupVaultName] },
      },
      targets: [
        new SnsTopic(this.topic, {
          message: RuleTargetInput.fromText(
            `The ${id} backup job ${detail('backupJobId')} ended ${detail('state')} in vault ${detail('backupVaultName')}: ` +
              `${detail('statusMessage')}. Until a backup completes, the newest recovery point is older than planned. ` +
              'Find the job with aws backup describe-backup-job, fix the cause (docs/operate.md "Backups and restoring"), ' +
              'then back up on demand with aws backup start-backup-job.',
          ),
        }),
      ],
    });
  }

  /** Alarms on 5XX answers: a function that maps a failure to a 500/503 does not count as a Lambda error. */
  addHttpApiServerErrorsAlarm(httpApi: IHttpApi): Alarm {
    return this.addAlarm(`${httpApi.node.id}ServerErrors`, httpApi.metricServerError({ period, statistic: 'Sum' }), {
      description:
        "The HTTP API answered with a 5XX status: a route's function failed (error, timeout, crash) or a dependency " +
        'was unavailable (503: a throttled table, the users database). Query the access log for status >= 500 by ' +
        "route, then that function's logs by requestId; 503s name the unavailable dependency.",
    });
  }

  private addAlarm(
    id: string,
    metric: IMetric,
    options: { description: string; threshold?: number; evaluationPeriods?: number },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      threshold: options.threshold ?? 1,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
    if (this.notifiedTopic) alarm.addAlarmAction(new SnsAction(this.notifiedTopic));
    this.alarms.push(alarm);
    return alarm;
  }
}

/** The function, when callers invoke it through its `live` alias; its metrics are then read per version. */
function liveVersionOf(fn: IFunction): ServiceFunction | undefined {
  return fn instanceof ServiceFunction && fn.live ? fn : undefined;
}
