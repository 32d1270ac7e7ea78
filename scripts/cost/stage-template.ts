import { buildServiceStack } from '#test/infra/service-stack-fixture.ts';
import type { CloudFormationTemplate } from './idle-cost.ts';

/**
 * The template of one stage as `cdk synth` makes it with these context values (on top of cdk.json's
 * and the example issuer and sender the infra tests use), without bundling the functions: the
 * idle cost reads resources and their settings, not code.
 */
export function synthesizeStage(context: Record<string, unknown>): CloudFormationTemplate {
  const { app, stack } = buildServiceStack({ bundle: false, context });
  return app.synth().getStackByName(stack.stackName).template as CloudFormationTemplate;
}
