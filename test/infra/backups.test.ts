import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '#lib/service-stack.ts';
import { parseStackConfig } from '#lib/stack-config.ts';
import { AWS_BACKUP_SERVICE_POLICIES, usersBackupVaultName } from '#lib/users-database-construct.ts';
import { buildServiceStack, exampleContext, logicalIdOf } from './service-stack-fixture.ts';
import { actionsOf, templateQueries, type Statement, wholeTemplateOf } from './template-queries.ts';

/**
 * Every store of the service can be restored: each DynamoDB table has point-in-time recovery, and
 * the users database (Aurora DSQL, which keeps no history of its own) is backed up by AWS Backup on
 * the schedule and for the days its context values say, into a vault no later deploy collides with,
 * and a backup that fails pages the operator.
 */

let stack: ServiceStack;
let queries: ReturnType<typeof templateQueries>;

beforeAll(() => {
  // An alarm e-mail: the alarm topic exists, which failed backups are sent to.
  ({ stack } = buildServiceStack({ bundle: false, context: { alarmEmail: 'ops@example.org' } }));
  queries = templateQueries(wholeTemplateOf(stack));
});

const only = <T>(items: T[]): T => {
  expect(items).toHaveLength(1);
  return items[0]!;
};

/** What CloudFormation makes of a name built from the stack id: Fn::Join, Fn::Select, Fn::Split and Ref. */
function evaluate(value: unknown, stackId: string): string {
  if (typeof value === 'string') return value;
  const { Ref, 'Fn::Join': join, 'Fn::Select': select, 'Fn::Split': split } = value as Record<string, any>;
  if (Ref === 'AWS::StackId') return stackId;
  if (join) return (join[1] as unknown[]).map((part) => evaluate(part, stackId)).join(join[0]);
  if (select) return evaluateList(select[1], stackId)[select[0]]!;
  if (split) throw new Error('Fn::Split answers a list');
  throw new Error(`cannot evaluate ${JSON.stringify(value)}`);
}
function evaluateList(value: unknown, stackId: string): string[] {
  const split = (value as { 'Fn::Split'?: [string, unknown] })['Fn::Split'];
  if (!split) throw new Error(`not a list: ${JSON.stringify(value)}`);
  return evaluate(split[1], stackId).split(split[0]);
}
const stackIdOf = (uuid: string) =>
  `arn:aws:cloudformation:eu-west-1:123456789012:stack/OnboardingReportsService-dev/${uuid}`;
const FIRST_STACK = stackIdOf('5b6c7d8e-1111-4222-8333-944455556666');
const STACK_AFTER_DESTROY = stackIdOf('0a1b2c3d-7777-4888-9999-a0000bbbbccc');

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

  it('names its vault per stage and per creation of the stack, so a deploy after `cdk destroy` or a failed first deploy does not collide with the vault those kept', () => {
    const [, vault] = only(queries.ofType('AWS::Backup::BackupVault'));
    const name = vault.Properties.BackupVaultName as unknown;
    // Every update of the same stack keeps the name (the vault is not replaced); a new stack gets a new one.
    expect(evaluate(name, FIRST_STACK)).toBe('onboarding-users-dev-5b6c7d8e');
    expect(evaluate(name, STACK_AFTER_DESTROY)).toBe('onboarding-users-dev-0a1b2c3d');
    // AWS Backup's pattern, with the longest stage the configuration accepts.
    const longest = evaluate(stack.resolve(usersBackupVaultName('s'.repeat(20))), FIRST_STACK);
    expect(longest).toMatch(/^[a-zA-Z0-9\-_]{2,50}$/);
  });

  it('names its plan per stage, so two stages back up side by side in one account', () => {
    expect(plan().Properties.BackupPlan.BackupPlanName).toBe('onboarding-users-dev');
  });

  it('takes its schedule and retention from the context', () => {
    const { stack: custom } = buildServiceStack({
      bundle: false,
      context: { usersBackupSchedule: 'cron(30 1 ? * SUN *)', usersBackupRetentionDays: '90' },
    });
    const [, customPlan] = only(templateQueries(wholeTemplateOf(custom)).ofType('AWS::Backup::BackupPlan'));
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

describe('a failed backup of the users database', () => {
  const backupRules = () =>
    queries
      .ofType('AWS::Events::Rule')
      .filter(([, rule]) => JSON.stringify(rule.Properties.EventPattern?.source) === JSON.stringify(['aws.backup']));
  const topicRef = () => ({ Ref: logicalIdOf(stack.alarms.topic!) });

  it('pages the operator: a rule on this vault’s backup jobs that end FAILED, ABORTED or EXPIRED sends to the alarm topic', () => {
    const [, rule] = only(backupRules());
    expect(rule.Properties.EventPattern).toEqual({
      source: ['aws.backup'],
      'detail-type': ['Backup Job State Change'],
      detail: {
        state: ['FAILED', 'ABORTED', 'EXPIRED'],
        backupVaultName: [{ 'Fn::GetAtt': [logicalIdOf(stack.usersDatabase.backupVault), 'BackupVaultName'] }],
      },
    });
    expect(rule.Properties.State).toBe('ENABLED');
    const [target] = rule.Properties.Targets as Array<Record<string, any>>;
    expect(rule.Properties.Targets).toHaveLength(1);
    expect(target!.Arn).toEqual(topicRef());
    // A message an operator reads: the job, its state, AWS Backup's reason, where to look.
    const { InputPathsMap, InputTemplate } = target!.InputTransformer as Record<string, any>;
    expect(InputPathsMap).toMatchObject({
      'detail-backupJobId': '$.detail.backupJobId',
      'detail-state': '$.detail.state',
      'detail-statusMessage': '$.detail.statusMessage',
    });
    for (const field of ['<detail-backupJobId>', '<detail-state>', '<detail-statusMessage>'])
      expect(InputTemplate).toContain(field);
    expect(InputTemplate).toContain('docs/operate.md');
  });

  it('reaches the topic: its policy lets EventBridge publish, and its key lets EventBridge encrypt', () => {
    const publishers = queries
      .ofType('AWS::SNS::TopicPolicy')
      .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[])
      .filter((statement) => statement.Effect === 'Allow' && actionsOf(statement).includes('sns:Publish'))
      .map((statement) => statement.Principal);
    expect(publishers).toContainEqual({ Service: 'events.amazonaws.com' });
    const eventBridgeKeyActions = queries
      .ofType('AWS::KMS::Key')
      .flatMap(([, key]) => key.Properties.KeyPolicy.Statement as Statement[])
      .filter((statement) =>
        [(statement.Principal as { Service?: string | string[] })?.Service].flat().includes('events.amazonaws.com'),
      )
      .flatMap(actionsOf);
    expect(eventBridgeKeyActions).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:GenerateDataKey*']));
  });
});
