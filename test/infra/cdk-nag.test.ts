import { Aspects, type App, type CfnElement } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxFoldersFinding } from '#lib/sandbox-wipe-construct.ts';
import type { ServiceStack } from '#lib/service-stack.ts';
import { buildServiceAppAsCdkSynth, buildServiceStack } from './service-stack-fixture.ts';
import { separateTemplatesOf, wholeTemplateOf } from './template-queries.ts';

type Finding = ReturnType<Annotations['findError']>[number];

const readable = (findings: Finding[]) =>
  findings.map((finding) => `${finding.id}: ${String(finding.entry.data)}`).join('\n');

let stack: ServiceStack;

beforeAll(() => {
  // The rules read the template, not the bundles: skip esbuild. An alarm e-mail adds the
  // alarm topic and its key, so they are checked too.
  ({ stack } = buildServiceStack({ bundle: false, context: { alarmEmail: 'ops@example.com' } }));
  Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
});

describe('cdk-nag AwsSolutions', () => {
  it('reports no unsuppressed error', () => {
    const errors = Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(errors, readable(errors)).toEqual([]);
  });

  it('reports no unsuppressed warning', () => {
    const warnings = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(warnings, readable(warnings)).toEqual([]);
  });

  it('checked the stack: the alarm topic exists and every suppression carries a reason', () => {
    const resources = Object.values(wholeTemplateOf(stack).toJSON().Resources as Record<string, any>);
    expect(resources.some((resource) => resource.Type === 'AWS::SNS::Topic')).toBe(true);
    const suppressions = resources.flatMap((resource) => resource.Metadata?.cdk_nag?.rules_to_suppress ?? []) as Array<{
      id: string;
      reason: string;
    }>;
    expect(suppressions.length).toBeGreaterThan(0);
    for (const suppression of suppressions) expect(suppression.reason.length, suppression.id).toBeGreaterThan(40);
  });

  it('suppresses IAM5 only for the reports/ object prefix of the reports bucket, X-Ray and the deploy-time functions’ versions, never for a whole policy', () => {
    // The CDK's own BucketDeployment handler (deploy time only) is checked in the next test.
    const resources = Object.entries(wholeTemplateOf(stack).toJSON().Resources as Record<string, any>)
      .filter(([logicalId]) => !logicalId.startsWith('CustomCDKBucketDeployment'))
      .map(([, resource]) => resource);
    const iam5 = resources
      .flatMap((resource) => resource.Metadata?.cdk_nag?.rules_to_suppress ?? [])
      .filter((suppression: { id: string }) => suppression.id === 'AwsSolutions-IAM5') as Array<{
      applies_to?: unknown[];
    }>;
    expect(iam5.length).toBeGreaterThan(0);
    const bucketArn = `<${stack.getLogicalId(stack.reports.bucket.node.defaultChild as CfnElement)}.Arn>`;
    const migrationFunctionArn = `<${stack.getLogicalId(stack.usersDatabase.migrationFunction.node.defaultChild as CfnElement)}.Arn>`;
    const certificatePublisherArn = `<${stack.getLogicalId(stack.reportSigning.publisherFunction.node.defaultChild as CfnElement)}.Arn>`;
    const migrationFrameworkArn = (name: string) =>
      `<${stack.getLogicalId(stack.usersDatabase.migrationProvider.node.findChild(name).node.defaultChild as CfnElement)}.Arn>`;
    // Besides X-Ray's `*` on every function role (and Step Functions' log delivery), the Provider frameworks' invoke
    // of the migration function and the certificate publisher (checked in service-stack.test.ts: X-Ray actions only,
    // lambda:InvokeFunction only), and the migration's waiter invoking its own two framework functions.
    for (const suppression of iam5)
      expect([
        [`Resource::${bucketArn}/reports/*`],
        // The sandbox wipe's DeleteObject on the sandboxes' report folders (lib/sandbox-wipe-construct.ts), in the
        // sandbox's nested stack, where the bucket's ARN is a parameter.
        [sandboxFoldersFinding(stack.reports.bucket)],
        ['Resource::*'],
        [`Resource::${migrationFunctionArn}:*`],
        [`Resource::${certificatePublisherArn}:*`],
        [
          `Resource::${migrationFrameworkArn('framework-isComplete')}:*`,
          `Resource::${migrationFrameworkArn('framework-onTimeout')}:*`,
        ],
      ]).toContainEqual(suppression.applies_to);
  });

  it('suppresses IAM4, IAM5 and L1 of the dashboard’s BucketDeployment handler for the exact grants aws-cdk-lib makes', () => {
    const helpers = Object.entries(Template.fromStack(stack).toJSON().Resources as Record<string, any>).filter(
      ([logicalId]) => logicalId.startsWith('CustomCDKBucketDeployment'),
    );
    expect(helpers.length).toBeGreaterThan(0);
    const iam5 = helpers
      .flatMap(([, resource]) => resource.Metadata?.cdk_nag?.rules_to_suppress ?? [])
      .filter((suppression: { id: string }) => suppression.id === 'AwsSolutions-IAM5') as Array<{
      applies_to: Array<string | { regex: string }>;
    }>;
    expect(iam5.length).toBeGreaterThan(0);
    const assetsBucketArn = `<${stack.getLogicalId(stack.dashboard.bucket.node.defaultChild as CfnElement)}.Arn>`;
    for (const suppression of iam5) {
      const findings = suppression.applies_to.filter((entry) => typeof entry === 'string');
      expect(findings).toContain(`Resource::${assetsBucketArn}/*`);
      expect(findings).not.toContain('Action::*');
      expect(findings.filter((entry) => entry.includes('reports'))).toEqual([]);
      // One pattern: the CDK asset bucket's objects, with account, region and partition as tokens or literals.
      const patterns = suppression.applies_to.filter((entry) => typeof entry !== 'string');
      expect(patterns).toHaveLength(1);
      const [, source, flags] = /^\/(.*)\/(\w*)$/.exec(patterns[0]!.regex)!;
      const assetObjects = new RegExp(source!, flags);
      for (const finding of [
        'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
        'Resource::arn:aws:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-eu-west-1/*',
        'Resource::arn:aws:s3:::cdk-hnb659fds-assets-123456789012-us-isof-south-1/*',
      ])
        expect(assetObjects.test(finding), finding).toBe(true);
      for (const finding of [
        'Resource::arn:aws:s3:::cdk-hnb659fds-assets-123456789012-eu-west-1/reports/*',
        'Resource::arn:aws:s3:::another-bucket/*',
        'Resource::arn:aws:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-eu-west-1',
      ])
        expect(assetObjects.test(finding), finding).toBe(false);
    }
  });

  it('suppresses SQS3 only on the dead-letter queues and S1 only on the access-log bucket', () => {
    const template = wholeTemplateOf(stack).toJSON().Resources as Record<string, any>;
    const suppressedOn = (rule: string) =>
      Object.entries(template)
        .filter(([, resource]) =>
          (resource.Metadata?.cdk_nag?.rules_to_suppress ?? []).some((s: { id: string }) => s.id === rule),
        )
        .map(([id]) => id);
    const idOf = (construct: { node: { defaultChild?: unknown } }) =>
      stack.getLogicalId(construct.node.defaultChild as CfnElement);
    expect(suppressedOn('AwsSolutions-SQS3').sort()).toEqual(
      [
        idOf(stack.reports.deadLetterQueue),
        idOf(stack.webhooks.deadLetterQueue),
        idOf(stack.mail.eventDeadLetterQueue),
        idOf(stack.sandboxWipes.deadLetterQueue),
      ].sort(),
    );
    expect(suppressedOn('AwsSolutions-S1')).toEqual([idOf(stack.reports.accessLogsBucket)]);
  });

  it('suppresses the sandbox wipe’s IAM5 for the sandboxes’ report folders of the reports bucket alone', () => {
    const [, source] = /^\/(.*)\/(\w*)$/.exec(sandboxFoldersFinding(stack.reports.bucket).regex)!;
    const finding = new RegExp(source!);
    const bucketId = stack.getLogicalId(stack.reports.bucket.node.defaultChild as CfnElement);
    const nested = Object.keys(separateTemplatesOf(stack).Sandbox!.toJSON().Parameters as Record<string, unknown>);
    const bucketParameter = nested.find(
      (name) => name.startsWith('referenceto') && name.includes(bucketId.slice(0, -8)) && name.endsWith('Arn'),
    );
    expect(bucketParameter).toBeDefined();
    for (const arn of [`<${bucketParameter}>`, `<${bucketId}.Arn>`])
      expect(finding.test(`Resource::${arn}/reports/*~sandbox/*`), arn).toBe(true);
    for (const wider of [
      `Resource::<${bucketParameter}>/reports/*`,
      `Resource::<${bucketParameter}>/*`,
      `Resource::<OtherBucket.Arn>/reports/*~sandbox/*`,
    ])
      expect(finding.test(wider), wider).toBe(false);
  });
});

/**
 * Synthesizes `app` and returns every AwsSolutions error or warning of its stacks, and what the synth threw: an
 * unsuppressed finding fails the synth, and the findings stay on the construct tree for the message.
 */
function synthesizedNagFindings(app: App): { findings: string[]; synthError: unknown } {
  let synthError: unknown;
  try {
    app.synth();
  } catch (error) {
    synthError = error;
  }
  const findings = app.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => ['aws:cdk:error', 'aws:cdk:warning'].includes(entry.type))
      .filter((entry) => String(entry.data).startsWith('AwsSolutions-'))
      .map((entry) => `${construct.node.path}: ${String(entry.data).split(': ')[0]}`),
  );
  return { findings, synthError };
}

describe('cdk-nag on stage=prod as `cdk synth` builds it (bin/app.ts), in every environment the CLI may know', () => {
  // The edge (prod's default) makes the stacks environment-specific: the CLI's region always, its account only
  // when it found credentials; a pipeline synthesizing without them (or AWS_REGION alone) knows the region alone.
  it.each([
    ['the region alone (no credentials)', { CDK_DEFAULT_REGION: 'eu-west-1' }],
    ['the region alone, us-east-1 (the web ACL stack’s own region)', { CDK_DEFAULT_REGION: 'us-east-1' }],
    ['the account and the region', { CDK_DEFAULT_ACCOUNT: '123456789012', CDK_DEFAULT_REGION: 'eu-west-1' }],
  ])('reports no unsuppressed error or warning in either stack, knowing %s', (_, cli) => {
    const { app, stack } = buildServiceAppAsCdkSynth({ context: { stage: 'prod' }, cli });
    expect(stack.edge).toBeDefined();
    expect(stack.region).toBe(cli.CDK_DEFAULT_REGION);
    const { findings, synthError } = synthesizedNagFindings(app);
    expect(findings).toEqual([]);
    expect(synthError).toBeUndefined();
  });
});
