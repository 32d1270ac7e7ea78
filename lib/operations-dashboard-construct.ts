import { Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BusinessMetric, METRICS_NAMESPACE } from '#shared/observability/metrics.ts';
import { CONFIGURATION_SET_DIMENSION } from './mail-construct.ts';

export interface OperationsDashboardProps {
  /** Value of the `service` dimension (POWERTOOLS_SERVICE_NAME). */
  readonly serviceName: string;
  readonly stage: string;
  readonly httpApi: IHttpApi;
  /** One function per route, by route name. */
  readonly routeFunctions: ReadonlyMap<string, IFunction>;
  readonly worker: IFunction;
  readonly reportQueue: IQueue;
  readonly reportDeadLetterQueue: IQueue;
  readonly sesConfigurationSetName: string;
  /** The webhook fast lane's queue and its delivery function. */
  readonly webhookQueue: IQueue;
  readonly webhookDelivery: IFunction;
  /** The slow lane's: a backlog there is endpoints of some organization answering slowly or not at all. */
  readonly webhookSlowQueue: IQueue;
  readonly webhookSlowDelivery: IFunction;
  readonly webhookDeadLetterQueue: IQueue;
  /** Every DynamoDB table, by name: their throttles (only the queue consumers' tables have alarms). */
  readonly tables: Readonly<Record<string, ITable>>;
}

const period = Duration.minutes(5);

/**
 * One CloudWatch dashboard per stage: what the service did (business metrics), how the API
 * answered (latency and errors per route), how the report pipeline keeps up (queue depth and
 * age, worker duration) and how mail is received (SES events). The alarms watch the same metrics.
 */
export class OperationsDashboardConstruct extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const business = (metricName: string, statistic = 'Sum'): Metric =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service: props.serviceName, stage: props.stage },
        statistic,
        period,
      });
    const failedByErrorCode = new MathExpression({
      expression: `SEARCH('{${METRICS_NAMESPACE},errorCode,service,stage} MetricName="${BusinessMetric.ReportsFailed}" stage="${props.stage}"', 'Sum', 300)`,
      label: '',
      period,
    });
    const ses = (metricName: string): Metric =>
      new Metric({
        namespace: 'AWS/SES',
        metricName,
        dimensionsMap: { [CONFIGURATION_SET_DIMENSION]: props.sesConfigurationSetName },
        statistic: 'Sum',
        period,
      });
    const routes = [...props.routeFunctions.entries()];
    const perRoute = (metric: (fn: IFunction) => IMetric, label: string): IMetric[] =>
      routes.map(([name, fn]) => withLabel(metric(fn), `${name} ${label}`));

    const widgets: IWidget[][] = [
      [
        new TextWidget({
          markdown: `# Onboarding and reports (${props.stage})\nAlarms and what to do: README, "Operate".`,
          width: 24,
          height: 2,
        }),
      ],
      [
        graph('Onboarding tokens', [
          business(BusinessMetric.TokensIssued),
          business(BusinessMetric.TokensRedeemed),
          business(BusinessMetric.TokensRevoked),
        ]),
        graph('Reports', [
          business(BusinessMetric.ReportsRequested),
          business(BusinessMetric.ReportsCompleted),
          business(BusinessMetric.RateLimitedRequests),
        ]),
        graph('Failed reports by error code', [failedByErrorCode]),
        graph('Render milliseconds (p50, p99)', [
          withLabel(business(BusinessMetric.ReportRenderMilliseconds, 'p50'), 'p50'),
          withLabel(business(BusinessMetric.ReportRenderMilliseconds, 'p99'), 'p99'),
        ]),
      ],
      [
        graph(
          'HTTP API answers',
          [
            withLabel(props.httpApi.metricClientError({ period, statistic: 'Sum' }), '4XX'),
            withLabel(props.httpApi.metricServerError({ period, statistic: 'Sum' }), '5XX'),
          ],
          [withLabel(props.httpApi.metricCount({ period, statistic: 'Sum' }), 'requests')],
        ),
        graph('HTTP API latency (p50, p99)', [
          withLabel(props.httpApi.metricLatency({ period, statistic: 'p50' }), 'p50'),
          withLabel(props.httpApi.metricLatency({ period, statistic: 'p99' }), 'p99'),
        ]),
        graph(
          'Latency per route (p99 ms)',
          perRoute((fn) => fn.metricDuration({ period, statistic: 'p99' }), 'p99'),
          [],
          12,
        ),
      ],
      [
        graph(
          'Errors and throttles per route',
          [
            ...perRoute((fn) => fn.metricErrors({ period, statistic: 'Sum' }), 'errors'),
            ...perRoute((fn) => fn.metricThrottles({ period, statistic: 'Sum' }), 'throttles'),
          ],
          [],
          12,
        ),
        graph(
          'Report queue',
          [
            withLabel(
              props.reportQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
              'waiting',
            ),
            withLabel(
              props.reportDeadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
              'dead-lettered',
            ),
          ],
          [
            withLabel(
              props.reportQueue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
              'oldest (s)',
            ),
          ],
        ),
        graph('Report worker', [
          withLabel(props.worker.metricDuration({ period, statistic: 'p50' }), 'duration p50'),
          withLabel(props.worker.metricDuration({ period, statistic: 'p99' }), 'duration p99'),
          withLabel(props.worker.metricErrors({ period, statistic: 'Sum' }), 'errors'),
        ]),
      ],
      [
        graph(
          'Webhooks',
          [
            withLabel(
              props.webhookQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
              'queued (fast lane)',
            ),
            withLabel(
              props.webhookSlowQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
              'queued (slow lane)',
            ),
            withLabel(
              props.webhookDeadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
              'dead-lettered',
            ),
            withLabel(props.webhookDelivery.metricErrors({ period, statistic: 'Sum' }), 'errors (fast lane)'),
            withLabel(props.webhookSlowDelivery.metricErrors({ period, statistic: 'Sum' }), 'errors (slow lane)'),
          ],
          [
            withLabel(props.webhookDelivery.metricDuration({ period, statistic: 'p99' }), 'fast lane p99 (ms)'),
            withLabel(props.webhookSlowDelivery.metricDuration({ period, statistic: 'p99' }), 'slow lane p99 (ms)'),
          ],
        ),
        graph('Onboarding e-mails', [ses('Send'), ses('Delivery'), ses('Bounce'), ses('Complaint'), ses('Reject')]),
        // Events SQS refused wait as pending until the republish schedule queues them (docs/webhooks.md, "Emission").
        graph('Webhook events SQS refused', [
          withLabel(business(BusinessMetric.WebhookEventsKept), 'kept as pending'),
          withLabel(business(BusinessMetric.WebhookEventsRepublished), 'republished'),
          withLabel(business(BusinessMetric.WebhookEventsLost), 'lost'),
        ]),
        graph(
          'DynamoDB throttle events per table',
          // Metric ids are unique within a widget: one pair per table.
          Object.entries(props.tables).map(
            ([name, table], index) =>
              new MathExpression({
                expression: `reads${index} + writes${index}`,
                usingMetrics: {
                  [`reads${index}`]: table.metric('ReadThrottleEvents', { period, statistic: 'Sum' }),
                  [`writes${index}`]: table.metric('WriteThrottleEvents', { period, statistic: 'Sum' }),
                },
                label: name,
                period,
              }),
          ),
        ),
      ],
    ];

    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets,
    });
  }
}

function graph(title: string, left: IMetric[], right: IMetric[] = [], width = 6): GraphWidget {
  return new GraphWidget({ title, left, right, width, height: 6 });
}

function withLabel(metric: IMetric, label: string): IMetric {
  return metric instanceof Metric ? metric.with({ label }) : metric;
}
