import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '#lib/service-stack.ts';
import { usersEraserDatabaseEnvironment } from '#shared/config/users-database-config.ts';
import { USERS_ERASER_ROLE } from '#shared/adapters/postgres/users-schema.ts';
import { buildServiceStack, logicalIdOf } from './service-stack-fixture.ts';
import { actionsOf, resourcesOf, templateQueries, type Statement, wholeTemplateOf } from './template-queries.ts';

/** DELETE /v1/users/{id}: what its function may do, and how it reaches the users database. */

let stack: ServiceStack;
let queries: ReturnType<typeof templateQueries>;

beforeAll(() => {
  ({ stack } = buildServiceStack({ bundle: false, context: { alarmEmail: 'ops@example.org' } }));
  queries = templateQueries(wholeTemplateOf(stack));
});

const eraseFunction = () => stack.routeFunctions.get('EraseUser')!;
const arnOf = (construct: Parameters<typeof logicalIdOf>[0]) => `<${logicalIdOf(construct)}.Arn>`;
const clusterId = () => stack.getLogicalId(stack.usersDatabase.cluster);
const clusterArn = () => `<${clusterId()}.ResourceArn>`;
const migration = () => queries.resources[logicalIdOf(stack.usersDatabase.migration)]!;

/** `action on resource`, one line per pair (CDK merges statements as it likes), sorted, for a readable comparison. */
const grants = (statements: Statement[]) =>
  [
    ...new Set(
      statements.flatMap((statement) =>
        actionsOf(statement).flatMap((action) => resourcesOf(statement).map((resource) => `${action} on ${resource}`)),
      ),
    ),
  ].sort();
const tableActions = (table: string) =>
  [
    'BatchGetItem',
    'BatchWriteItem',
    'ConditionCheckItem',
    'DeleteItem',
    'GetItem',
    'PutItem',
    'Query',
    'UpdateItem',
  ].map((action) => `dynamodb:${action} on ${table}`);

describe('the EraseUser function', () => {
  it('is the DELETE /v1/users/{id} route, with the longest timeout an HTTP API allows it', () => {
    const fn = queries.resources[logicalIdOf(eraseFunction())]!;
    expect(fn.Properties.Description).toBe('DELETE /v1/users/{id}');
    expect(fn.Properties.Timeout).toBe(29);
  });

  it('connects to the users database as users_eraser with IAM tokens: dsql:DbConnect on this cluster, never admin', () => {
    const dsql = queries.statementsFor(eraseFunction(), 'dsql:');
    expect(grants(dsql)).toEqual([`dsql:DbConnect on ${clusterArn()}`]);

    const environment = queries.environmentOf(eraseFunction());
    expect(environment).toMatchObject({
      USERS_DATABASE_HOST: { 'Fn::GetAtt': [clusterId(), 'Endpoint'] },
      USERS_DATABASE_AUTH: 'dsql',
      USERS_ERASER_DATABASE_USER: USERS_ERASER_ROLE,
    });
    // Never the reader's variable: the function reads its role from its own (as it does locally).
    expect(environment).not.toHaveProperty('USERS_DATABASE_USER');
    for (const name of Object.keys(environment).filter((key) => key.startsWith('USERS_'))) {
      expect(Object.keys(usersEraserDatabaseEnvironment)).toContain(name);
    }
  });

  it('is mapped to users_eraser by the migration, and not to the reader; it is deployed after the migration', () => {
    const eraserArns = migration().Properties.EraserRoleArns as Array<{ 'Fn::GetAtt': [string, string] }>;
    // And the sandbox wipe's consumer (test/infra/sandbox-wipe.test.ts), held to the sandboxes' users.
    expect(eraserArns).toHaveLength(2);
    expect(eraserArns).toEqual(
      expect.arrayContaining(
        [eraseFunction(), stack.sandboxWipes.consumer].map((fn) => ({ 'Fn::GetAtt': [logicalIdOf(fn.role!), 'Arn'] })),
      ),
    );
    const readerArns = JSON.stringify(migration().Properties.ReaderRoleArns);
    expect(readerArns).not.toContain(logicalIdOf(eraseFunction().role!));
    expect(queries.resources[logicalIdOf(eraseFunction())]!.DependsOn).toContain(
      logicalIdOf(stack.usersDatabase.migration),
    );
  });

  it('may delete report PDFs (DeleteObject on reports/* alone), read and write jobs and tokens, append audit events, publish events, spend its request budget; nothing else', () => {
    const reportsPrefix = `${arnOf(stack.reports.bucket)}/reports/*`;
    const tables = stack.data.tables;
    const statements = queries
      .statementsOf(eraseFunction())
      // X-Ray, on every function.
      .filter((statement) => !actionsOf(statement).every((action) => action.startsWith('xray:')));

    expect(grants(statements).filter((grant) => grant.startsWith('logs:'))).toHaveLength(2);
    expect(grants(statements)).toEqual(
      [
        `dsql:DbConnect on ${clusterArn()}`,
        `dynamodb:PutItem on ${arnOf(tables.AuditEvents)}`,
        // Every authenticated route's request budget (service-stack.test.ts).
        `dynamodb:UpdateItem on ${arnOf(tables.RequestBudgets)}`,
        ...tableActions(arnOf(tables.ReportJobs)),
        `dynamodb:Query on ${arnOf(tables.ReportJobs)}/index/jobsByOrganization`,
        ...tableActions(arnOf(tables.OnboardingTokens)),
        // Its own log group.
        ...grants(statements).filter((grant) =>
          /^logs:(CreateLogStream|PutLogEvents) on <EraseUserLogs\w+\.Arn>$/.test(grant),
        ),
        `s3:DeleteObject on ${reportsPrefix}`,
        `sqs:SendMessage on ${arnOf(stack.webhooks.queue)}`,
        // Events SQS refuses wait as pending (the PENDING_EVENTS# partitions alone: service-stack.test.ts).
        `dynamodb:PutItem on ${arnOf(tables.Webhooks)}`,
        // The pending events naming the person are found and deleted (the same partitions alone, below).
        `dynamodb:DeleteItem on ${arnOf(tables.Webhooks)}`,
        `dynamodb:Query on ${arnOf(tables.Webhooks)}`,
      ].sort(),
    );
    expect(queries.environmentOf(eraseFunction())).toMatchObject({
      REPORTS_BUCKET_NAME: { Ref: logicalIdOf(stack.reports.bucket) },
      REPORT_JOBS_TABLE_NAME: { Ref: logicalIdOf(tables.ReportJobs) },
      ONBOARDING_TOKENS_TABLE_NAME: { Ref: logicalIdOf(tables.OnboardingTokens) },
      AUDIT_EVENTS_TABLE_NAME: { Ref: logicalIdOf(tables.AuditEvents) },
      WEBHOOK_QUEUE_URL: { Ref: logicalIdOf(stack.webhooks.queue) },
    });
  });

  it('may read and delete only the pending partitions of the webhooks table', () => {
    const webhooksTable = logicalIdOf(stack.data.tables.Webhooks);
    const tableStatements = queries
      .statementsOf(eraseFunction())
      .filter((statement) => JSON.stringify(statement.Resource).includes(webhooksTable));
    const pendingOnly = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PENDING_EVENTS#*'] } };
    expect(tableStatements.length).toBeGreaterThan(0);
    for (const statement of tableStatements) expect(statement.Condition).toEqual(pendingOnly);
    expect(tableStatements.flatMap(actionsOf).sort()).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
    ]);
    expect(queries.environmentOf(eraseFunction())).toMatchObject({ WEBHOOKS_TABLE_NAME: { Ref: webhooksTable } });
  });

  it('is the only function besides the migration and the sandbox wipe that may delete users', () => {
    const mapped = queries
      .ofType('AWS::Lambda::Function')
      .filter(([, fn]) => fn.Properties.Environment?.Variables?.USERS_ERASER_DATABASE_USER !== undefined)
      .map(([id]) => id);
    expect(mapped.sort()).toEqual([logicalIdOf(eraseFunction()), logicalIdOf(stack.sandboxWipes.consumer)].sort());
  });
});
