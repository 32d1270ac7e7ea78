import { Aspects, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ServiceStack, serviceStackName } from '#lib/service-stack.ts';
import type { StackConfig } from '#lib/stack-config.ts';

/**
 * What the CDK CLI tells the app about its target: the region from `AWS_REGION` or the profile, the
 * account only when it found credentials (a pipeline that synthesizes without them knows the region alone).
 */
export interface CdkCliEnvironment {
  readonly CDK_DEFAULT_ACCOUNT?: string | undefined;
  readonly CDK_DEFAULT_REGION?: string | undefined;
}

/**
 * The stage's stacks in `app`, as `cdk synth` builds them: the service stack (and, with the edge on, its
 * web ACL stack in us-east-1), every stack checked by cdk-nag's AwsSolutions pack.
 */
export function addServiceStacks(app: App, config: StackConfig, cli: CdkCliEnvironment): ServiceStack {
  const stack = new ServiceStack(app, serviceStackName(config.stage), {
    config,
    // The edge's web ACL stack (us-east-1) is referenced across regions, which needs this stack's region at synth.
    ...(config.edgeProtection ? { env: { account: cli.CDK_DEFAULT_ACCOUNT, region: cli.CDK_DEFAULT_REGION } } : {}),
    description: 'Onboarding tokens, PDF report jobs and user status for organizations',
  });
  // Every synth runs the AwsSolutions pack; an unsuppressed finding is an error annotation.
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  return stack;
}
