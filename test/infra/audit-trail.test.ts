import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '#lib/service-stack.ts';
import { BusinessMetric } from '#shared/observability/metrics.ts';
import { buildServiceStack, logicalIdOf } from './service-stack-fixture.ts';
import { actionsOf, resourcesOf, templateQueries, wholeTemplateOf } from './template-queries.ts';

let stack: ServiceStack;
let queries: ReturnType<typeof templateQueries>;

beforeAll(() => {
  ({ stack } = buildServiceStack({
    bundle: false,
    context: { alarmEmail: 'ops@example.org', auditRetentionDays: 500 },
  }));
  queries = templateQueries(wholeTemplateOf(stack));
});

/** Routes whose requests change state or issue download addresses: each records an audit event. */
const AUDITED_ROUTES = [
  'CreateOnboardingToken',
  'RedeemOnboardingToken',
  'RevokeOnboardingToken',
  'ResendOnboardingToken',
  'CreateReportJob',
  'GetReportDownloadUrl',
  'CreateWebhookEndpoint',
  'DeleteWebhookEndpoint',
  'TestWebhookEndpoint',
  'EraseUser',
];

const auditTable = () => `<${logicalIdOf(stack.data.tables.AuditEvents)}.Arn>`;
const touchesAuditTable = (resources: string[]) => resources.some((resource) => resource.startsWith(auditTable()));

describe('the audit trail', () => {
  it('is a retained, deletion-protected table whose events expire by TTL', () => {
    const table = queries.resources[logicalIdOf(stack.data.tables.AuditEvents)]!;

    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
  });

  it('can be appended to, never updated or deleted, by any function: each audited route holds PutItem alone on it', () => {
    const allFunctions = queries
      .ofType('AWS::IAM::Policy')
      .flatMap(([, policy]) =>
        (policy.Properties.PolicyDocument.Statement as Parameters<typeof actionsOf>[0][]).filter((statement) =>
          touchesAuditTable(resourcesOf(statement)),
        ),
      );
    const forbidden = allFunctions
      .flatMap(actionsOf)
      .filter((action) => /^dynamodb:(Update|Delete|BatchWrite|PartiQL)/.test(action));
    expect(forbidden).toEqual([]);

    for (const name of AUDITED_ROUTES) {
      const fn = stack.routeFunctions.get(name)!;
      const onTrail = queries.statementsOf(fn).filter((statement) => touchesAuditTable(resourcesOf(statement)));
      expect(onTrail.flatMap(actionsOf), name).toEqual(['dynamodb:PutItem']);
      expect(queries.environmentOf(fn), name).toMatchObject({
        AUDIT_EVENTS_TABLE_NAME: { Ref: logicalIdOf(stack.data.tables.AuditEvents) },
        AUDIT_RETENTION_DAYS: '500',
      });
    }
  });

  it('is read by the listing route alone, which cannot write it', () => {
    const list = stack.routeFunctions.get('ListAuditEvents')!;
    const actions = queries
      .statementsOf(list)
      .filter((statement) => touchesAuditTable(resourcesOf(statement)))
      .flatMap(actionsOf);

    expect(actions).toContain('dynamodb:Query');
    expect(actions.filter((action) => !/^dynamodb:(Get|BatchGet|Query|ConditionCheck)/.test(action))).toEqual([]);
    const readers = [...stack.routeFunctions.entries()].filter(([, fn]) =>
      queries
        .statementsOf(fn)
        .some(
          (statement) => touchesAuditTable(resourcesOf(statement)) && actionsOf(statement).includes('dynamodb:Query'),
        ),
    );
    expect(readers.map(([name]) => name)).toEqual(['ListAuditEvents']);
  });

  it('alarms when an event is lost', () => {
    const alarms = queries
      .ofType('AWS::CloudWatch::Alarm')
      .filter(([, alarm]) => alarm.Properties.MetricName === BusinessMetric.AuditEventsLost);

    expect(alarms).toHaveLength(1);
  });
});
