import { assumption, costOf, type IdleRule, type PriceTable } from './price-table.ts';

/**
 * The monthly cost of a stage that serves no request, from its synthesized CloudFormation template:
 * each idle rule of docs/cost.md counts something on every resource of its type (the resource
 * itself, the metrics an alarm watches, the runs of a schedule) and prices the count. Which
 * counters exist is code (below); which resource type is counted how, and at what price, is data.
 */

type Properties = Record<string, unknown>;
export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Properties;
}
export interface CloudFormationTemplate {
  readonly Resources: Readonly<Record<string, TemplateResource>>;
}

export interface IdleItem {
  readonly item: string;
  readonly resourceType: string;
  /** Resources of the type in the template. */
  readonly resources: number;
  /** What was counted on them, in the price's unit. */
  readonly quantity: number;
  readonly unit: string;
  readonly monthlyUsd: number;
}

export interface IdleCost {
  readonly items: readonly IdleItem[];
  readonly monthlyUsd: number;
  /** Resource types no idle rule prices: free while idle (or priced per use, in the bench). */
  readonly unpricedTypes: readonly string[];
}

interface CounterContext {
  readonly id: string;
  readonly properties: Properties;
  readonly template: CloudFormationTemplate;
  readonly table: PriceTable;
}

type Counter = (context: CounterContext) => number;

const MINUTES_PER_HOUR = 60;

const counters: Readonly<Record<string, Counter>> = {
  resources: () => 1,
  'alarm metrics': ({ properties }) => alarmMetricPeriods(properties).filter((period) => period >= 60).length,
  'high-resolution alarm metrics': ({ properties }) =>
    alarmMetricPeriods(properties).filter((period) => period < 60).length,
  rules: ({ properties }) => arrayOf(properties.Rules).length,
  'scheduled invocations': (context) => lambdaTargetsOf(context).length * runsPerMonth(context),
  'scheduled GB-seconds': (context) =>
    lambdaTargetsOf(context).reduce((sum, fn) => sum + memoryGbOf(fn), 0) *
    runsPerMonth(context) *
    (assumption(context.table, 'idle-scheduled-run-ms') / 1000),
  'traced scheduled invocations': (context) =>
    lambdaTargetsOf(context).filter((fn) => recordOf(fn.TracingConfig)?.Mode === 'Active').length *
    runsPerMonth(context),
  'scheduled log GB': (context) =>
    (lambdaTargetsOf(context).length *
      runsPerMonth(context) *
      assumption(context.table, 'idle-scheduled-run-log-bytes')) /
    1e9,
  'idle SQS receives': (context) => {
    const source = getAttTarget(context.properties.EventSourceArn);
    if (context.properties.Enabled === false || context.template.Resources[source ?? '']?.Type !== 'AWS::SQS::Queue')
      return 0;
    const receivesPerMinute =
      assumption(context.table, 'sqs-idle-pollers') * (60 / assumption(context.table, 'sqs-long-poll-seconds'));
    return receivesPerMinute * MINUTES_PER_HOUR * assumption(context.table, 'hours-per-month');
  },
};

export const counterNames = Object.keys(counters);

export function idleCost(template: CloudFormationTemplate, table: PriceTable): IdleCost {
  const resources = Object.entries(template.Resources);
  const items = table.idleRules.map((rule): IdleItem => {
    const counter = counterOf(rule);
    const ofType = resources.filter(([, resource]) => resource.Type === rule.resourceType);
    const quantity = ofType.reduce(
      (sum, [id, resource]) => sum + counter({ id, properties: resource.Properties ?? {}, template, table }),
      0,
    );
    return {
      item: rule.item,
      resourceType: rule.resourceType,
      resources: ofType.length,
      quantity,
      unit: table.prices.get(rule.price)!.unit,
      monthlyUsd: costOf(table, rule.price, quantity),
    };
  });
  const priced = new Set(table.idleRules.map((rule) => rule.resourceType));
  return {
    items,
    monthlyUsd: items.reduce((sum, item) => sum + item.monthlyUsd, 0),
    unpricedTypes: [...new Set(resources.map(([, resource]) => resource.Type))]
      .filter((type) => !priced.has(type))
      .sort(),
  };
}

function counterOf(rule: IdleRule): Counter {
  const counter = counters[rule.counter];
  if (!counter)
    throw new Error(`idle rule ${rule.item}: no counter "${rule.counter}" (known: ${counterNames.join(', ')})`);
  return counter;
}

/**
 * The period of every metric an alarm watches: one for a single-metric alarm, one per metric of a
 * metric math expression (CloudWatch bills each), one for a Metrics Insights query (a lower bound:
 * it bills per metric the query reads, unknown before it runs).
 */
function alarmMetricPeriods(properties: Properties): number[] {
  if (properties.MetricName !== undefined) return [numberOr(properties.Period, 60)];
  return arrayOf(properties.Metrics).flatMap((query) => {
    const stat = recordOf(query.MetricStat);
    if (stat) return [numberOr(stat.Period, 60)];
    return typeof query.Expression === 'string' && /^\s*SELECT\b/i.test(query.Expression)
      ? [numberOr(query.Period, 60)]
      : [];
  });
}

/** How often a rule's schedule runs in a month: `rate(n unit)`, or a cron whose fields are `*`, numbers and lists. */
function runsPerMonth({ properties, table }: CounterContext): number {
  const expression = properties.ScheduleExpression;
  if (typeof expression !== 'string') return 0;
  const hours = assumption(table, 'hours-per-month');
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (rate) {
    const everyHours = { minute: 1 / 60, hour: 1, day: 24 }[rate[2]!.replace(/s$/, '') as 'minute' | 'hour' | 'day'];
    return hours / (Number(rate[1]) * everyHours);
  }
  const cron = /^cron\((\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\)$/.exec(expression);
  if (cron) {
    const perField = (field: string, all: number) => (field === '*' || field === '?' ? all : field.split(',').length);
    const [minute, hour, dayOfMonth, , dayOfWeek] = cron.slice(1) as [string, string, string, string, string];
    const days =
      dayOfMonth !== '*' && dayOfMonth !== '?' ? perField(dayOfMonth, 1) : (hours / 24) * (perField(dayOfWeek, 7) / 7);
    if (/[/-]/.test(minute + hour)) throw new Error(`cannot count the runs of ${expression}: write it as rate(...)`);
    return perField(minute, 60) * perField(hour, 24) * days;
  }
  throw new Error(`cannot count the runs of the schedule ${expression}`);
}

/** The Lambda functions a rule invokes (targets given as `Fn::GetAtt [id, Arn]`). */
function lambdaTargetsOf({ properties, template }: CounterContext): Properties[] {
  return arrayOf(properties.Targets).flatMap((target) => {
    const fn = template.Resources[getAttTarget(target.Arn) ?? ''];
    return fn?.Type === 'AWS::Lambda::Function' ? [fn.Properties ?? {}] : [];
  });
}

const memoryGbOf = (fn: Properties): number => numberOr(fn.MemorySize, 128) / 1024;

function getAttTarget(value: unknown): string | undefined {
  const getAtt = recordOf(value)?.['Fn::GetAtt'];
  return Array.isArray(getAtt) && typeof getAtt[0] === 'string' ? getAtt[0] : undefined;
}

const recordOf = (value: unknown): Properties | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Properties) : undefined;

const arrayOf = (value: unknown): Properties[] =>
  Array.isArray(value) ? value.flatMap((entry) => (recordOf(entry) ? [entry as Properties] : [])) : [];

const numberOr = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback);
