import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '#lib/service-stack.ts';
import { parseStackConfig } from '#lib/stack-config.ts';
import { AWS_BACKUP_SERVICE_POLICIES } from '#lib/users-database-construct.ts';
import { buildServiceStack, exampleContext, logicalIdOf } from './service-stack-fixture.ts';
import { templateQueries } from './template-queries.ts';

/**
 * Every store of the service can be restored: each DynamoDB table has point-in-time recovery, and
 * the users database (Aurora DSQL, which keeps no history of its own) is backed up by AWS Backup on
 * the schedule and for the days its context values say.
 */

let stack: ServiceStack;
let queries: ReturnType<typeof templateQueries>;

beforeAll(() => {
  ({ stack } = buildServiceStack({ bundle: false }));
  queries = templateQueries(Template.fromStack(stack));
});

const only = <T>(items: T[]): T => {
  expect(items).toHaveLength(1);
  return items[0]!;
};

describe('DynamoDB tables', () => {
  it('every one in the template, whoever made it, has point-in-time recovery', () => {
    const tables = [...queries.ofType('AWS::DynamoDB::Table'), ...queries.ofType('AWS::DynamoDB::GlobalTable')];
    expect(tables.length).toBeGreaterThanOrEqual(Object.keys(stack.data.tables).length);
    for (const [logicalId, table] of tables) {
      expect(table.Properties.PointInTimeRecoverySpecification, logicalId).toEqual({
        PointInTimeRecoveryEnabled: true,
      });
    }
  });
});

describe('the users database backup', () => {
  const plan = () => only(queries.ofType('AWS::Backup::BackupPlan'))[1];

  it('backs the cluster up daily at 03:00 UTC and keeps each backup 35 days, by default', () => {
    const rules = plan().Properties.BackupPlan.BackupPlanRule as Array<Record<string, any>>;
    expect(rules).toEqual([
      expect.objectContaining({
        RuleName: 'UsersDatabase',
        ScheduleExpression: 'cron(0 3 * * ? *)',
        Lifecycle: { DeleteAfterDays: 35 },
        TargetBackupVault: { 'Fn::GetAtt': [logicalIdOf(stack.usersDatabase.backupVault), 'BackupVaultName'] },
      }),
    ]);
  });

  it('selects the cluster by its ARN, with a role only AWS Backup assumes', () => {
    const [, selection] = only(queries.ofType('AWS::Backup::BackupSelection'));
    expect(selection.Properties.BackupPlanId).toEqual({
      'Fn::GetAtt': [logicalIdOf(stack.usersDatabase.backupPlan), 'BackupPlanId'],
    });
    expect(selection.Properties.BackupSelection.Resources).toEqual([
      { 'Fn::GetAtt': [stack.getLogicalId(stack.usersDatabase.cluster), 'ResourceArn'] },
    ]);
    const roleArn = selection.Properties.BackupSelection.IamRoleArn as { 'Fn::GetAtt': [string, string] };
    const role = queries.resources[roleArn['Fn::GetAtt'][0]]!;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'backup.amazonaws.com' } }),
    ]);
    expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toEqual(
      expect.stringContaining(AWS_BACKUP_SERVICE_POLICIES[0]),
    );
    expect(role.Properties.ManagedPolicyArns).toHaveLength(AWS_BACKUP_SERVICE_POLICIES.length);
  });

  it('keeps its vault, with the recovery points, when the stack goes', () => {
    const [, vault] = only(queries.ofType('AWS::Backup::BackupVault'));
    expect(vault.DeletionPolicy).toBe('Retain');
    expect(vault.UpdateReplacePolicy).toBe('Retain');
  });

  it('takes its schedule and retention from the context', () => {
    const { stack: custom } = buildServiceStack({
      bundle: false,
      context: { usersBackupSchedule: 'cron(30 1 ? * SUN *)', usersBackupRetentionDays: '90' },
    });
    const [, customPlan] = only(templateQueries(Template.fromStack(custom)).ofType('AWS::Backup::BackupPlan'));
    expect(customPlan.Properties.BackupPlan.BackupPlanRule).toEqual([
      expect.objectContaining({ ScheduleExpression: 'cron(30 1 ? * SUN *)', Lifecycle: { DeleteAfterDays: 90 } }),
    ]);
  });

  it('refuses a schedule that is not an AWS cron expression, and a retention below a day', () => {
    expect(() => parseStackConfig({ ...exampleContext, usersBackupSchedule: 'daily' })).toThrow(
      /usersBackupSchedule must be an AWS cron expression/,
    );
    expect(() => parseStackConfig({ ...exampleContext, usersBackupSchedule: 'rate(1 day)' })).toThrow(
      /usersBackupSchedule must be an AWS cron expression/,
    );
    expect(() => parseStackConfig({ ...exampleContext, usersBackupRetentionDays: 0 })).toThrow(
      /usersBackupRetentionDays must be at least 1/,
    );
  });
});
