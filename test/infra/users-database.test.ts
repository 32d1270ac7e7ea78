import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { AURORA_DSQL_NAMESPACE } from '#lib/alarms-construct.ts';
import type { ServiceStack } from '#lib/service-stack.ts';
import { allTables } from '#shared/config/table-definitions.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  copyUsersMigrations,
  MIGRATION_QUERY_INTERVAL,
  MIGRATION_TOTAL_TIMEOUT,
  USERS_DATABASE_MIGRATION_TYPE,
  usersDatabaseEnvironmentFor,
} from '#lib/users-database-construct.ts';
import { usersDatabaseMigrationFunction } from '#shared/config/api-routes.ts';
import { repoRoot } from '#lib/repo-root.ts';
import { usersDatabaseEnvironment } from '#shared/config/users-database-config.ts';
import { USERS_READER_ROLE } from '#shared/adapters/postgres/users-schema.ts';
import {
  readMigrations,
  USERS_MIGRATIONS_FOLDER,
  usersMigrations,
  usersMigrationsHash,
} from '#shared/adapters/postgres/users-migrations.ts';
import { buildServiceStack, logicalIdOf } from './service-stack-fixture.ts';
import { actionsOf, resourcesOf, templateQueries, type Resource, wholeTemplateOf } from './template-queries.ts';

let stack: ServiceStack;
let template: Template;
let queries: ReturnType<typeof templateQueries>;

beforeAll(() => {
  // The template is all these tests read: skip esbuild (the bundles are built in lambda-bundles and service-stack tests).
  ({ stack } = buildServiceStack({ bundle: false, context: { alarmEmail: 'ops@example.org' } }));
  template = wholeTemplateOf(stack);
  queries = templateQueries(template);
});

const clusterId = () => stack.getLogicalId(stack.usersDatabase.cluster);
const cluster = (): Resource => queries.resources[clusterId()]!;
const clusterAttribute = (attribute: string) => ({ 'Fn::GetAtt': [clusterId(), attribute] });
const routeFunction = (name: string) => {
  const fn = stack.routeFunctions.get(name);
  if (!fn) throw new Error(`no route function ${name}`);
  return fn;
};
/** The three functions that read users: the user-status route, the report request route and the worker. */
const readers = () => [
  routeFunction('QueryUserStatus'),
  routeFunction('CreateReportJob'),
  stack.reports.worker,
  // Its report jobs read users as CreateReportJob's do; it is in the sandbox's nested stack (lib/sandbox-stack.ts).
  routeFunction('TriggerSandboxEvent'),
];
const dsqlStatementsOf = (fn: IFunction) => queries.statementsFor(fn, 'dsql:');
const migration = (): Resource => queries.resources[logicalIdOf(stack.usersDatabase.migration)]!;
const waiter = () => stack.usersDatabase.migrationProvider.node.findChild('waiter-state-machine');
/** The waiter state machine's definition, each token in it (the framework functions' ARNs) as a placeholder. */
const waiterDefinition = (): { States: Record<string, Record<string, unknown>> } => {
  const [separator, parts] = queries.resources[logicalIdOf(waiter())]!.Properties.DefinitionString['Fn::Join'] as [
    string,
    unknown[],
  ];
  return JSON.parse(parts.map((part) => (typeof part === 'string' ? part : 'token')).join(separator));
};

describe('the users database cluster', () => {
  it('is one Aurora DSQL cluster, protected from deletion and retained on stack deletion or replacement', () => {
    expect(queries.ofType('AWS::DSQL::Cluster')).toHaveLength(1);
    expect(cluster().Type).toBe('AWS::DSQL::Cluster');
    expect(cluster().Properties.DeletionProtectionEnabled).toBe(true);
    expect(cluster().DeletionPolicy).toBe('Retain');
    expect(cluster().UpdateReplacePolicy).toBe('Retain');
  });

  it('replaces the DynamoDB Users table: no table of users is deployed', () => {
    expect(allTables.map((table) => table.id)).not.toContain('Users');
    expect(Object.keys(stack.data.tables)).not.toContain('Users');
    expect(queries.ofType('AWS::DynamoDB::Table')).toHaveLength(allTables.length);
    for (const [, table] of queries.ofType('AWS::DynamoDB::Table')) {
      const keys = JSON.stringify(table.Properties.GlobalSecondaryIndexes ?? []);
      expect(keys).not.toMatch(/byStatus|byEmail|createdAtSk/);
    }
    const environments = queries.ofType('AWS::Lambda::Function').map(([, fn]) => fn.Properties.Environment?.Variables);
    for (const variables of environments) expect(variables ?? {}).not.toHaveProperty('USERS_TABLE_NAME');
  });

  it('outputs its endpoint and ARN under fixed names', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.UsersDatabaseEndpoint?.Value).toEqual(clusterAttribute('Endpoint'));
    expect(outputs.UsersDatabaseClusterArn?.Value).toEqual(clusterAttribute('ResourceArn'));
  });
});

describe('the functions that read users', () => {
  it('may only dsql:DbConnect, on this cluster, and never DbConnectAdmin', () => {
    for (const fn of readers()) {
      const statements = dsqlStatementsOf(fn);
      expect(statements, fn.node.id).toHaveLength(1);
      expect(actionsOf(statements[0]!), fn.node.id).toEqual(['dsql:DbConnect']);
      expect(statements[0]!.Resource, fn.node.id).toEqual(clusterAttribute('ResourceArn'));
      expect(queries.statementsOf(fn).flatMap(actionsOf), fn.node.id).not.toContain('dsql:DbConnectAdmin');
    }
  });

  it('connect to the cluster endpoint as users_reader with IAM tokens', () => {
    for (const fn of readers()) {
      expect(queries.environmentOf(fn), fn.node.id).toMatchObject({
        USERS_DATABASE_HOST: clusterAttribute('Endpoint'),
        USERS_DATABASE_USER: USERS_READER_ROLE,
        USERS_DATABASE_AUTH: 'dsql',
      });
    }
  });

  it('are, with the migration, the erasure (users_eraser, test/infra/erase-user.test.ts) and the sandbox import (users_sandbox_writer), the only functions given the users database', () => {
    const connecting = queries
      .ofType('AWS::Lambda::Function')
      .filter(([, fn]) => fn.Properties.Environment?.Variables?.USERS_DATABASE_HOST !== undefined)
      .map(([id]) => id)
      .sort();
    expect(connecting).toEqual(
      [
        ...readers(),
        stack.usersDatabase.migrationFunction,
        routeFunction('EraseUser'),
        routeFunction('ImportSandboxUsers'),
        // As users_eraser, held to the sandboxes' users (test/infra/sandbox-wipe.test.ts).
        stack.sandboxWipes.consumer,
      ]
        .map((fn) => logicalIdOf(fn))
        .sort(),
    );
  });

  it('are given variables the functions’ configuration schema knows (shared/config/users-database-config.ts)', () => {
    for (const name of Object.keys(usersDatabaseEnvironmentFor('host', 'user'))) {
      expect(Object.keys(usersDatabaseEnvironment)).toContain(name);
    }
  });

  it('are created or updated only after the migration ran, but those of the sandbox’s nested stack, whose roles it maps after them', () => {
    const migrationId = logicalIdOf(stack.usersDatabase.migration);
    for (const fn of readers().filter((reader) => Stack.of(reader) === stack))
      expect(queries.resources[logicalIdOf(fn)]!.DependsOn, fn.node.id).toContain(migrationId);
    // The migration names the nested roles, so it waits for the nested stack, which cannot wait for it in turn.
    const nestedReaders = readers().filter((reader) => Stack.of(reader) !== stack);
    expect(nestedReaders.length).toBeGreaterThan(0);
    for (const fn of nestedReaders)
      expect(queries.resources[logicalIdOf(fn)]!.DependsOn ?? [], fn.node.id).not.toContain(migrationId);
  });
});

describe('the sandbox import (POST /v1/sandbox/users)', () => {
  const importer = () => routeFunction('ImportSandboxUsers');

  it('connects as users_sandbox_writer alone, mapped by the migration, with dsql:DbConnect on this cluster only', () => {
    const variables = queries.environmentOf(importer());
    expect(variables.USERS_SANDBOX_WRITER_DATABASE_USER).toBe('users_sandbox_writer');
    expect(variables).not.toHaveProperty('USERS_DATABASE_USER');
    expect(variables).not.toHaveProperty('USERS_ERASER_DATABASE_USER');
    const dsql = queries.statementsFor(importer(), 'dsql:');
    expect(dsql.flatMap((statement) => statement.Action)).toEqual(['dsql:DbConnect']);
    const migration = queries.resources[logicalIdOf(stack.usersDatabase.migration)]!.Properties;
    expect(JSON.stringify(migration.SandboxWriterRoleArns)).toContain(logicalIdOf(importer().role as never));
    expect(JSON.stringify(migration.ReaderRoleArns)).not.toContain(logicalIdOf(importer().role as never));
    expect(JSON.stringify(migration.EraserRoleArns)).not.toContain(logicalIdOf(importer().role as never));
  });

  it('is the one function mapped to users_sandbox_writer', () => {
    const migration = queries.resources[logicalIdOf(stack.usersDatabase.migration)]!.Properties;
    expect(migration.SandboxWriterRoleArns).toHaveLength(1);
  });
});

describe('the migration', () => {
  it('is the one function that may connect as admin (dsql:DbConnectAdmin on this cluster only)', () => {
    const migrationFunction = stack.usersDatabase.migrationFunction;
    const statements = dsqlStatementsOf(migrationFunction);
    expect(statements).toHaveLength(1);
    expect(actionsOf(statements[0]!)).toEqual(['dsql:DbConnectAdmin']);
    expect(statements[0]!.Resource).toEqual(clusterAttribute('ResourceArn'));

    const adminGrants = queries
      .ofType('AWS::IAM::Policy')
      .filter(([, policy]) =>
        (policy.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>).some((statement) =>
          [statement.Action].flat().includes('dsql:DbConnectAdmin'),
        ),
      );
    expect(adminGrants).toHaveLength(1);
    expect(adminGrants[0]![1].Properties.Roles).toEqual([{ Ref: logicalIdOf(migrationFunction.role!) }]);
    // No wildcard action of DSQL anywhere.
    const dsqlActions = queries
      .ofType('AWS::IAM::Policy')
      .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>)
      .flatMap((statement) => [statement.Action].flat())
      .filter((action) => action.startsWith('dsql:'));
    expect([...new Set(dsqlActions)].sort()).toEqual(['dsql:DbConnect', 'dsql:DbConnectAdmin']);
  });

  it('connects to the cluster endpoint as admin with IAM tokens', () => {
    expect(queries.environmentOf(stack.usersDatabase.migrationFunction)).toMatchObject({
      USERS_DATABASE_HOST: clusterAttribute('Endpoint'),
      USERS_DATABASE_USER: 'admin',
      USERS_DATABASE_AUTH: 'dsql',
    });
  });

  it('is a custom resource served by the Provider framework, which calls the migration function', () => {
    expect(migration().Type).toBe(USERS_DATABASE_MIGRATION_TYPE);
    const serviceToken = migration().Properties.ServiceToken as { 'Fn::GetAtt': [string, string] };
    const framework = queries.resources[serviceToken['Fn::GetAtt'][0]]!;
    expect(framework.Type).toBe('AWS::Lambda::Function');
    expect(framework.Properties.Environment.Variables.USER_ON_EVENT_FUNCTION_ARN).toEqual({
      'Fn::GetAtt': [logicalIdOf(stack.usersDatabase.migrationFunction), 'Arn'],
    });
    // The framework's role: its own log group, the migration function and starting its waiter, nothing else, no
    // managed policy.
    const frameworkRoleId = (framework.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(queries.resources[frameworkRoleId]!.Properties.ManagedPolicyArns).toBeUndefined();
    const frameworkStatements = queries
      .ofType('AWS::IAM::Policy')
      .filter(([, policy]) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: frameworkRoleId }]))
      .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Parameters<typeof actionsOf>[0][]);
    expect(frameworkStatements.flatMap(actionsOf).sort()).toEqual([
      'lambda:GetFunction',
      'lambda:InvokeFunction',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'states:StartExecution',
    ]);
    const handlerArn = `<${logicalIdOf(stack.usersDatabase.migrationFunction)}.Arn>`;
    for (const statement of frameworkStatements.filter((s) => actionsOf(s)[0]!.startsWith('lambda:'))) {
      for (const resource of resourcesOf(statement)) expect([handlerArn, `${handlerArn}:*`]).toContain(resource);
    }
    const [startWaiter] = frameworkStatements.filter((s) => actionsOf(s)[0] === 'states:StartExecution');
    expect(resourcesOf(startWaiter!)).toEqual([`<${logicalIdOf(waiter())}>`]);
  });

  it('is polled until the migration says it is complete: an index build may outlast one call of the function', () => {
    const provider = stack.usersDatabase.migrationProvider;
    const isComplete = queries.resources[logicalIdOf(provider.node.findChild('framework-isComplete'))]!;
    expect(isComplete.Properties.Environment.Variables.USER_IS_COMPLETE_FUNCTION_ARN).toEqual({
      'Fn::GetAtt': [logicalIdOf(stack.usersDatabase.migrationFunction), 'Arn'],
    });
    // Its role (and onTimeout's): the migration function and its own log group, nothing else.
    const pollRoleId = (isComplete.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const pollStatements = queries
      .ofType('AWS::IAM::Policy')
      .filter(([, policy]) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: pollRoleId }]))
      .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Parameters<typeof actionsOf>[0][]);
    expect(pollStatements.flatMap(actionsOf).sort()).toEqual([
      'lambda:GetFunction',
      'lambda:InvokeFunction',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
    // Every 30 s, for 55 minutes: the framework answers "Operation timed out" before CloudFormation's hour runs out.
    const [retry] = waiterDefinition().States['framework-isComplete-task']!.Retry as Array<Record<string, unknown>>;
    expect(retry).toMatchObject({ IntervalSeconds: 30, BackoffRate: 1 });
    expect(MIGRATION_QUERY_INTERVAL.toSeconds()).toBe(30);
    expect((retry!.IntervalSeconds as number) * (retry!.MaxAttempts as number)).toBe(
      MIGRATION_TOTAL_TIMEOUT.toSeconds(),
    );
    expect(MIGRATION_TOTAL_TIMEOUT.toMinutes()).toBeLessThan(60);
    expect(Number(migration().Properties.ServiceTimeout)).toBe(3600);
  });

  it('stops each call of the function early enough to grant the roles and answer within its timeout', () => {
    const timeoutMs = (queries.propertiesOf(stack.usersDatabase.migrationFunction).Timeout as number) * 1000;
    const { callReserveMs } = usersDatabaseMigrationFunction;
    expect(callReserveMs).toBeGreaterThanOrEqual(60_000);
    expect(timeoutMs - callReserveMs).toBeGreaterThanOrEqual(10 * 60_000);
  });

  it('logs each poll of the waiter, without the events (they hold CloudFormation’s presigned response URL), into a log group with a retention', () => {
    const { LoggingConfiguration } = queries.resources[logicalIdOf(waiter())]!.Properties;
    expect(LoggingConfiguration).toMatchObject({ Level: 'ALL', IncludeExecutionData: false });
    const logGroupId = LoggingConfiguration.Destinations[0].CloudWatchLogsLogGroup.LogGroupArn['Fn::GetAtt'][0];
    expect(queries.resources[logGroupId]!.Properties.RetentionInDays).toBe(30);
  });

  it('carries the IAM role ARNs of exactly the reading functions, so CloudFormation creates those roles first', () => {
    const arns = migration().Properties.ReaderRoleArns as Array<{ 'Fn::GetAtt': [string, string] }>;
    expect(arns).toHaveLength(readers().length);
    expect(arns.map((arn) => arn['Fn::GetAtt'][1])).toEqual(readers().map(() => 'Arn'));
    expect(arns.map((arn) => arn['Fn::GetAtt'][0]).sort()).toEqual(
      readers()
        .map((fn) => logicalIdOf(fn.role!))
        .sort(),
    );
  });

  it('carries the cluster ARN, so a replaced cluster updates the resource and its new database is migrated', () => {
    expect(migration().Properties.ClusterArn).toEqual(clusterAttribute('ResourceArn'));
  });

  it('carries a hash of the migration files, so a new file runs it again', () => {
    const USERS_MIGRATIONS = usersMigrations();
    const hash = migration().Properties.MigrationsHash as string;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(usersMigrationsHash(USERS_MIGRATIONS));
    const added = {
      version: USERS_MIGRATIONS.length + 1,
      file: '0099_another_index.sql',
      sha256: 'f'.repeat(64),
      statements: ['CREATE INDEX ASYNC x ON users (org_id)'],
    };
    expect(usersMigrationsHash([...USERS_MIGRATIONS, added])).not.toBe(hash);
    const [first, ...rest] = USERS_MIGRATIONS;
    expect(usersMigrationsHash([{ ...first!, sha256: '0'.repeat(64) }, ...rest])).not.toBe(hash);
  });

  it('has the most minutes Lambda gives a call, to wait for an index build before the next poll', () => {
    expect(queries.propertiesOf(stack.usersDatabase.migrationFunction).Timeout).toBe(900);
  });

  it('bundles the migration files next to index.js, where the bundled runner reads them', () => {
    const outputDir = mkdtempSync(path.join(tmpdir(), 'migration-bundle-'));
    try {
      for (const command of copyUsersMigrations.afterBundling(repoRoot, outputDir)) execFileSync('sh', ['-c', command]);
      const bundled = readMigrations(path.join(outputDir, USERS_MIGRATIONS_FOLDER));
      expect(bundled.map(({ file, sha256 }) => [file, sha256])).toEqual(
        usersMigrations().map(({ file, sha256 }) => [file, sha256]),
      );
    } finally {
      rmSync(outputDir, { recursive: true, force: true });
    }
  });
});

describe('users database alarms', () => {
  const dsqlAlarms = () =>
    queries
      .ofType('AWS::CloudWatch::Alarm')
      .map(([, alarm]) => alarm.Properties)
      .filter((alarm) => alarm.Namespace === AURORA_DSQL_NAMESPACE);
  const clusterDimension = () => [{ Name: 'ClusterId', Value: clusterAttribute('Identifier') }];

  it('alarms on the first query timeout in 5 minutes', () => {
    expect(dsqlAlarms().filter((alarm) => alarm.MetricName === 'QueryTimeouts')).toEqual([
      expect.objectContaining({
        Dimensions: clusterDimension(),
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        EvaluationPeriods: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: logicalIdOf(stack.alarms.topic!) }],
      }),
    ]);
  });

  it('alarms on OCC conflicts only when they are sustained over several periods', () => {
    const [alarm, ...others] = dsqlAlarms().filter((candidate) => candidate.MetricName === 'OccConflicts');
    expect(others).toEqual([]);
    expect(alarm).toMatchObject({ Dimensions: clusterDimension(), Statistic: 'Sum', Period: 300 });
    expect(alarm!.EvaluationPeriods).toBeGreaterThan(1);
    expect(alarm!.Threshold).toBeGreaterThan(1);
  });

  it('alarms on errors of the migration function', () => {
    const alarmed = queries
      .ofType('AWS::CloudWatch::Alarm')
      .filter(([, alarm]) => alarm.Properties.MetricName === 'Errors')
      .map(([, alarm]) => (alarm.Properties.Dimensions[0].Value as { Ref: string }).Ref);
    expect(alarmed).toContain(logicalIdOf(stack.usersDatabase.migrationFunction));
  });
});
