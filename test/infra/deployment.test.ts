import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { AlarmsConstruct } from '#lib/alarms-construct.ts';
import { SERVICE_TAG, serviceStackName } from '#lib/service-stack.ts';
import { buildServiceStack } from './service-stack-fixture.ts';
import { App, Stack } from 'aws-cdk-lib';
import { wholeTemplateOf } from './template-queries.ts';

/** Physical names a template fixes (as opposed to names CloudFormation generates), by resource. */
function fixedNames(template: Template): string[] {
  const names: string[] = [];
  const nameKeys = /^(TableName|QueueName|BucketName|FunctionName|TopicName|LogGroupName|Name|RoleName|ApiName)$/;
  for (const resource of Object.values(template.toJSON().Resources as Record<string, any>)) {
    // An alias is named within its function, not in the account: every function's is `live`.
    if (resource.Type === 'AWS::Lambda::Alias') continue;
    for (const [key, value] of Object.entries(resource.Properties ?? {})) {
      if (nameKeys.test(key) && typeof value === 'string') names.push(`${resource.Type} ${value}`);
    }
    const templateName = resource.Properties?.Template?.TemplateName;
    if (typeof templateName === 'string') names.push(`${resource.Type} ${templateName}`);
  }
  return names;
}

describe('a deployment', () => {
  // Named as bin/app.ts names them, in one account and region (prod's edge needs them at synth).
  const env = { account: '123456789012', region: 'eu-west-1' };
  const dev = buildServiceStack({ bundle: false, env, context: { stage: 'dev' }, stackId: serviceStackName('dev') });
  const prod = buildServiceStack({ bundle: false, env, context: { stage: 'prod' }, stackId: serviceStackName('prod') });
  const devTemplate = wholeTemplateOf(dev.stack);
  const prodTemplate = wholeTemplateOf(prod.stack);

  it('deploys two stages side by side in one account and region: no physical name in common', () => {
    const devNames = fixedNames(devTemplate);
    const prodNames = fixedNames(prodTemplate);
    expect(devNames).toContain('AWS::SES::Template onboarding-token-v2-dev');
    expect(prodNames).toContain('AWS::SES::Template onboarding-token-v2-prod');
    expect(devNames.filter((name) => prodNames.includes(name))).toEqual([]);
  });

  it('tags every taggable resource with service and stage', () => {
    const tables = [
      ...Object.values(prodTemplate.findResources('AWS::DynamoDB::Table')),
      ...Object.values(prodTemplate.findResources('AWS::DSQL::Cluster')),
    ] as any[];
    expect(tables.length).toBeGreaterThan(1);
    for (const table of tables) {
      expect(table.Properties.Tags).toEqual(
        expect.arrayContaining([
          { Key: 'service', Value: SERVICE_TAG },
          { Key: 'stage', Value: 'prod' },
        ]),
      );
    }
  });

  it('protects every table and the users database from deletion, and retains them', () => {
    const stores = [
      ...Object.values(devTemplate.findResources('AWS::DynamoDB::Table')),
      ...Object.values(devTemplate.findResources('AWS::DSQL::Cluster')),
    ] as any[];
    expect(stores.filter((store) => store.Type === 'AWS::DSQL::Cluster')).toHaveLength(1);
    for (const store of stores) {
      expect(store.Properties.DeletionProtectionEnabled).toBe(true);
      expect(store.DeletionPolicy).toBe('Retain');
      expect(store.UpdateReplacePolicy).toBe('Retain');
    }
  });

  it('outputs what an operator needs: API URL, table names, users database, bucket, queue URLs', () => {
    const outputs = Object.keys(devTemplate.findOutputs('*'));
    // Named exactly: `users:import --database` and the README quote them.
    expect(outputs).toEqual(expect.arrayContaining(['UsersDatabaseEndpoint', 'UsersDatabaseClusterArn']));
    expect(outputs.filter((output) => output.startsWith('UsersTable'))).toEqual([]);
    // Exactly these names, no hash: the whole set is checked in first-deploy.test.ts against docs/deploy.md.
    expect(outputs).toEqual(
      expect.arrayContaining([
        'ApiUrl',
        'OnboardingTokensTableName',
        'ReportJobsTableName',
        'ReportsBucketName',
        'ReportQueueUrl',
        'ReportDeadLetterQueueUrl',
      ]),
    );
  });

  it('gives the user-status function the API’s 10 s like every route (SQL answers within it at 1,000,000 users)', () => {
    const userStatus = dev.stack.routeFunctions.get('QueryUserStatus')!;
    const resource = devTemplate.toJSON().Resources[dev.stack.getLogicalId(userStatus.node.defaultChild as never)];
    expect(resource.Properties.Timeout).toBe(10);
  });

  it('reuses an existing SES identity when told to, instead of creating one', () => {
    const reuse = wholeTemplateOf(
      buildServiceStack({ bundle: false, context: { senderIdentityExists: 'true' } }).stack,
    );
    reuse.resourceCountIs('AWS::SES::EmailIdentity', 0);
    const statements = JSON.stringify(reuse.findResources('AWS::IAM::Policy'));
    expect(statements).toContain(':identity/example.org');
  });
});

describe('the alarm topic', () => {
  it('lets CloudWatch alarms of this account publish, over TLS only', () => {
    const stack = new Stack(new App(), 'Alarms', { env: { account: '123456789012', region: 'eu-west-1' } });
    new AlarmsConstruct(stack, 'Alarms', { alarmEmail: 'ops@example.org' });
    const policies = Object.values(wholeTemplateOf(stack).findResources('AWS::SNS::TopicPolicy')) as any[];
    const statements = policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement);

    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Effect: 'Allow',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Action: 'sns:Publish',
          Condition: { StringEquals: { 'aws:SourceAccount': '123456789012' } },
        }),
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]),
    );
  });
});
