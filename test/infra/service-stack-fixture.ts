import { readFileSync } from 'node:fs';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { ServiceStack } from '../../lib/service-stack.ts';
import { readStackConfig } from '../../lib/stack-config.ts';

/** The example context from cdk.json, so the tests synthesize what `npx cdk synth` does. */
export const exampleContext = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

export interface FixtureOptions {
  /** Context values replacing or adding to cdk.json's. */
  readonly context?: Record<string, unknown>;
  /** Bundle the functions with esbuild (slower); without it assets are not built. @default true */
  readonly bundle?: boolean;
}

export function buildServiceStack(options: FixtureOptions = {}): { app: App; stack: ServiceStack } {
  const context: Record<string, unknown> = { ...exampleContext, ...options.context };
  if (options.bundle === false) context['aws:cdk:bundling-stacks'] = [];
  const app = new App({ context });
  const stack = new ServiceStack(app, 'ServiceUnderTest', { config: readStackConfig(app.node) });
  return { app, stack };
}

/** Logical id of a construct's CloudFormation resource. */
export function logicalIdOf(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}
