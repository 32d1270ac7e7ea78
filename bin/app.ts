import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ServiceStack, serviceStackName } from '#lib/service-stack.ts';
import { readStackConfig, StackConfigError, type StackConfig } from '#lib/stack-config.ts';

const app = new App();

let config: StackConfig;
try {
  config = readStackConfig(app.node);
} catch (error) {
  if (!(error instanceof StackConfigError)) throw error;
  // The message names every bad key; a stack trace would only bury it.
  console.error(error.message);
  process.exit(1);
}

new ServiceStack(app, serviceStackName(config.stage), {
  config,
  // The edge's web ACL stack (us-east-1) is referenced across regions, which needs this stack's region at synth.
  ...(config.edgeProtection
    ? { env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION } }
    : {}),
  description: 'Onboarding tokens, PDF report jobs and user status for organizations',
});

// Every synth runs the AwsSolutions pack; an unsuppressed finding is an error annotation.
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
