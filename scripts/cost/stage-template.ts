import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildServiceStack } from '#test/infra/service-stack-fixture.ts';
import type { CloudFormationTemplate, TemplateResource } from './idle-cost.ts';

/**
 * The resources of one stage as `cdk synth` makes them with these context values (on top of cdk.json's
 * and the example issuer and sender the infra tests use), without bundling the functions: the
 * idle cost reads resources and their settings, not code. Every stack the stage deploys counts:
 * with `edgeProtection` (the default for `stage=prod`) the web ACL lives in a second stack, in
 * us-east-1, and the nested stacks' resources count too. A logical id two stacks share (CDK's
 * metadata) is kept under `<stack>/<id>`.
 */
/**
 * The edge needs a region at synth (its web ACL is referenced across regions); which one does not
 * change what an idle stage runs, and docs/cost.md's prices are one region's anyway.
 */
const SYNTH_ENVIRONMENT = { account: '123456789012', region: 'eu-west-1' };

export function synthesizeStage(context: Record<string, unknown>): CloudFormationTemplate {
  const { app } = buildServiceStack({ bundle: false, context, env: SYNTH_ENVIRONMENT });
  const resources: Record<string, TemplateResource> = {};
  const assembly = app.synth();
  // The nested stacks' templates (the sandbox's, lib/sandbox-stack.ts) are files of the assembly, not stacks of it.
  const nestedTemplates = readdirSync(assembly.directory)
    .filter((file) => file.endsWith('.nested.template.json'))
    .map((file) => ({
      name: file,
      template: JSON.parse(readFileSync(path.join(assembly.directory, file), 'utf8')) as CloudFormationTemplate,
    }));
  for (const { name, template } of [
    ...assembly.stacks.map((stack) => ({ name: stack.stackName, template: stack.template as CloudFormationTemplate })),
    ...nestedTemplates,
  ]) {
    for (const [id, resource] of Object.entries(template.Resources ?? {}))
      resources[id in resources ? `${name}/${id}` : id] = resource;
  }
  return { Resources: resources };
}
