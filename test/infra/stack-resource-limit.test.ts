import { type App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '#lib/service-stack.ts';
import { apiRoutes } from '#shared/config/api-routes.ts';
import { buildServiceStack } from './service-stack-fixture.ts';
import { nestedStacksOf } from './template-queries.ts';

/**
 * CloudFormation takes at most 500 resources a stack, and the CDK refuses to synthesize more. Each stack stays 50
 * under it, so a few routes (about ten resources each) can be added before the next split (docs/architecture.md,
 * "Stacks").
 */
const MAX_RESOURCES = 450;

/** The edge (stage=prod) references its us-east-1 web ACL across regions: it needs a region at synth. */
const env = { account: '111111111111', region: 'eu-west-1' };

describe.each([
  ['stage=dev', { stage: 'dev' }],
  ['stage=dev, identity=cognito', { stage: 'dev', identity: 'cognito' }],
  ['stage=prod (the edge)', { stage: 'prod' }],
  ['stage=prod (the edge), identity=cognito', { stage: 'prod', identity: 'cognito' }],
])('every stack of %s', (_, context) => {
  let stack: ServiceStack;
  let stacks: Stack[];
  beforeAll(() => {
    // The CDK's own check off, so that a stack over the limit is counted here rather than failing the synth.
    let app: App;
    ({ app, stack } = buildServiceStack({
      bundle: false,
      env,
      context: { alarmEmail: 'ops@example.org', ...context, '@aws-cdk/core:stackResourceLimit': 0 },
    }));
    stacks = app.node.findAll().filter((node): node is Stack => Stack.isStack(node));
  });

  it(`holds at most ${MAX_RESOURCES} resources, the nested stacks’ and the edge’s web ACL stack’s included`, () => {
    // The service stack, its nested stacks, and with the edge its web ACL's stack.
    expect(stacks).toHaveLength(1 + nestedStacksOf(stack).length + (stack.edge ? 1 : 0));
    for (const each of stacks)
      expect(Object.keys(Template.fromStack(each).toJSON().Resources).length, each.node.path).toBeLessThanOrEqual(
        MAX_RESOURCES,
      );
  });

  it('has the sandbox in a nested stack of its own: every sandboxOnly route’s function and the wipe, nothing else', () => {
    expect(nestedStacksOf(stack).map((nested) => nested.node.id)).toEqual(['Sandbox']);
    expect(apiRoutes.filter((route) => route.sandboxOnly).length).toBeGreaterThan(5);
    for (const route of apiRoutes)
      expect(Stack.of(stack.routeFunctions.get(route.name)!) === stack.sandbox, route.name).toBe(
        route.sandboxOnly === true,
      );
    expect(Stack.of(stack.sandboxWipes.consumer)).toBe(stack.sandbox);
  });
});
