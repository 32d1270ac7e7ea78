import { readFileSync } from 'node:fs';
import { App, type CfnElement, type Environment, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { addServiceStacks, type CdkCliEnvironment } from '#bin/service-app.ts';
import { ServiceStack } from '#lib/service-stack.ts';
import { readStackConfig } from '#lib/stack-config.ts';

/**
 * cdk.json's context (the defaults) plus the values a deployment must give itself, as a first
 * deploy passes them with `-c` (README, "Deploy"): cdk.json holds no placeholders for those.
 */
export const exampleContext: Record<string, unknown> = {
  ...(
    JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
      context: Record<string, unknown>;
    }
  ).context,
  jwtIssuer: 'https://idp.example.org/',
  jwtAudience: 'onboarding-api',
  jwksUrl: 'https://idp.example.org/.well-known/jwks.json',
  senderEmail: 'no-reply@example.org',
  dashboardClientId: 'onboarding-dashboard',
};

export interface FixtureOptions {
  /** Context values replacing or adding to cdk.json's. */
  readonly context?: Record<string, unknown>;
  /** Bundle the functions with esbuild (slower); without it assets are not built. @default true */
  readonly bundle?: boolean;
  /** The stack's id (its name); the tests' own unless they synthesize as bin/app.ts does. */
  readonly stackId?: string;
  /** Account and region; the tests' stacks are environment-agnostic unless given. */
  readonly env?: Environment;
  /** Where `app.synth()` writes the cloud assembly; the CDK's temporary folder unless given. */
  readonly outdir?: string;
}

export function buildServiceStack(options: FixtureOptions = {}): { app: App; stack: ServiceStack } {
  const context: Record<string, unknown> = { ...exampleContext, ...options.context };
  if (options.bundle === false) context['aws:cdk:bundling-stacks'] = [];
  const app = new App({ context, ...(options.outdir ? { outdir: options.outdir } : {}) });
  const stack = new ServiceStack(app, options.stackId ?? 'ServiceUnderTest', {
    config: readStackConfig(app.node),
    ...(options.env ? { env: options.env } : {}),
  });
  return { app, stack };
}

/**
 * The app exactly as `cdk synth` builds it (bin/app.ts): the stage's stacks named by stage, cdk-nag on every one,
 * the environment from what the CDK CLI passes (`cli`), the functions not bundled.
 */
export function buildServiceAppAsCdkSynth(options: { context?: Record<string, unknown>; cli: CdkCliEnvironment }): {
  app: App;
  stack: ServiceStack;
} {
  const app = new App({ context: { ...exampleContext, ...options.context, 'aws:cdk:bundling-stacks': [] } });
  return { app, stack: addServiceStacks(app, readStackConfig(app.node), options.cli) };
}

/** Logical id of a construct's CloudFormation resource. */
export function logicalIdOf(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}
