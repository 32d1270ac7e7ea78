import { readFileSync } from 'node:fs';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Alarm, Dashboard, GraphWidget, MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Code, Function, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { beforeAll, describe, expect, it } from 'vitest';
import { idleCost, type CloudFormationTemplate, type IdleCost } from '#scripts/cost/idle-cost.ts';
import { parsePriceTable, readPriceTable, type PriceTable } from '#scripts/cost/price-table.ts';

const metric = (metricName: string, period = Duration.minutes(5)) =>
  new Metric({ namespace: 'Test', metricName, period, statistic: 'Sum' });

/** Two alarms (one metric; metric math over three), a high-resolution alarm, a key, a dashboard, a schedule, a poller, a web ACL. */
function smallStack(): CloudFormationTemplate {
  const app = new App();
  const stack = new Stack(app, 'CostUnderTest');
  new Alarm(stack, 'OneMetric', { metric: metric('Errors'), threshold: 1, evaluationPeriods: 1 });
  new Alarm(stack, 'ThreeMetrics', {
    metric: new MathExpression({
      expression: 'a + b + c',
      usingMetrics: { a: metric('A'), b: metric('B'), c: metric('C') },
      period: Duration.minutes(5),
    }),
    threshold: 1,
    evaluationPeriods: 1,
  });
  new Alarm(stack, 'Fast', { metric: metric('Fast', Duration.seconds(10)), threshold: 1, evaluationPeriods: 1 });
  new Key(stack, 'Key');
  new Dashboard(stack, 'Dashboard').addWidgets(new GraphWidget({ left: [metric('Errors')] }));
  const fn = new Function(stack, 'Sweep', {
    runtime: Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => {}'),
    memorySize: 512,
    tracing: Tracing.ACTIVE,
  });
  new Rule(stack, 'EveryMinute', { schedule: Schedule.rate(Duration.minutes(1)), targets: [new LambdaFunction(fn)] });
  fn.addEventSource(new SqsEventSource(new Queue(stack, 'Jobs')));
  new CfnWebACL(stack, 'Acl', {
    defaultAction: { allow: {} },
    scope: 'REGIONAL',
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'acl', sampledRequestsEnabled: true },
    rules: ['one', 'two'].map((name, priority) => ({
      name,
      priority,
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name: 'AWSManagedRulesCommonRuleSet' } },
      overrideAction: { none: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: name, sampledRequestsEnabled: true },
    })),
  });
  return app.synth().getStackByName(stack.stackName).template as CloudFormationTemplate;
}

let table: PriceTable;
let cost: IdleCost;
const item = (name: string) => cost.items.find((entry) => entry.item === name)!;

beforeAll(() => {
  table = readPriceTable();
  cost = idleCost(smallStack(), table);
  // A CDK synth on a shared machine.
}, 60_000);

describe('the idle cost of a synthesized stack', () => {
  it('counts every metric an alarm reads: one for a metric, each of a metric math expression, high resolution apart', () => {
    expect(item('alarm metrics')).toMatchObject({ resources: 3, quantity: 4, monthlyUsd: 0.4 });
    expect(item('high-resolution alarm metrics')).toMatchObject({ quantity: 1, monthlyUsd: 0.3 });
  });

  it('prices each dashboard, KMS key, web ACL and WAF rule by the month', () => {
    expect(item('dashboards')).toMatchObject({ quantity: 1, monthlyUsd: 3 });
    expect(item('KMS keys')).toMatchObject({ quantity: 1, monthlyUsd: 1 });
    expect(item('WAF web ACLs')).toMatchObject({ quantity: 1, monthlyUsd: 5 });
    expect(item('WAF rules')).toMatchObject({ quantity: 2, monthlyUsd: 2 });
  });

  it('counts a schedule’s runs of its function: requests, GB-seconds at its memory, traces when it traces, log lines', () => {
    const runs = 730 * 60;
    expect(item('scheduled runs: Lambda requests').quantity).toBe(runs);
    expect(item('scheduled runs: Lambda GB-seconds').quantity).toBeCloseTo(runs * 0.5 * 0.1);
    expect(item('scheduled runs: X-Ray traces').quantity).toBe(runs);
    expect(item('scheduled runs: log lines').quantity).toBeCloseTo((runs * 700) / 1e9);
  });

  it('counts the empty receives of the pollers of an SQS event source', () => {
    expect(item('SQS receives of event sources')).toMatchObject({ quantity: 5 * 3 * 60 * 730 });
    expect(item('SQS receives of event sources').monthlyUsd).toBeCloseTo(0.2628);
  });

  it('sums the items, and names the resource types it found free while idle', () => {
    expect(cost.monthlyUsd).toBeCloseTo(cost.items.reduce((sum, entry) => sum + entry.monthlyUsd, 0));
    expect(cost.unpricedTypes).toEqual(expect.arrayContaining(['AWS::Lambda::Function', 'AWS::SQS::Queue']));
    expect(cost.unpricedTypes).not.toContain('AWS::CloudWatch::Alarm');
  });
});

describe('the price table of docs/cost.md', () => {
  it('reads each price per its unit count (0.20 per 1,000,000 requests)', () => {
    expect(table.region).toBe('us-east-1');
    expect(table.prices.get('lambda-request')).toEqual({ usd: 0.2, per: 1_000_000, unit: 'requests' });
  });

  it('prices a new resource type by a row: a secret costs once its row is there', () => {
    const page = (rows: string) =>
      [
        'Region: `us-east-1`',
        '<!-- cost:prices:start -->',
        '| price | USD | per | service |',
        '| - | - | - | - |',
        '| `secret` | 0.40 | secret-month | Secrets Manager |',
        '<!-- cost:prices:end -->',
        '<!-- cost:idle:start -->',
        '| resource type | counted | price | item |',
        '| - | - | - | - |',
        rows,
        '<!-- cost:idle:end -->',
        '<!-- cost:assumptions:start -->',
        '| assumption | value | why |',
        '| - | - | - |',
        '<!-- cost:assumptions:end -->',
      ].join('\n');
    const template = { Resources: { Secret: { Type: 'AWS::SecretsManager::Secret', Properties: {} } } };
    expect(idleCost(template, parsePriceTable(page(''))).monthlyUsd).toBe(0);
    const priced = idleCost(
      template,
      parsePriceTable(page('| `AWS::SecretsManager::Secret` | resources | `secret` | secrets |')),
    );
    expect(priced.monthlyUsd).toBeCloseTo(0.4);
  });

  it('refuses a rule naming a price the table lacks, and a counter the walk lacks', () => {
    const base = readFileText();
    expect(() => parsePriceTable(base.replace('| `kms-key` ', '| `kms-keys` '))).toThrow(/no known price kms-key/);
    const unknownCounter = parsePriceTable(
      base.replace('| resources                     | `kms-key`', '| keys | `kms-key`'),
    );
    expect(() => idleCost({ Resources: {} }, unknownCounter)).toThrow(/no counter "keys"/);
  });
});

function readFileText(): string {
  return readFileSync(new URL('../../../docs/cost.md', import.meta.url), 'utf8');
}
