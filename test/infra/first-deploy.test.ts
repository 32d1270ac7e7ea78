import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Template } from 'aws-cdk-lib/assertions';
import { resolveConfig } from 'vite';
import { describe, expect, it } from 'vitest';
import { buildDashboard, dashboardInvalidationPaths } from '#lib/dashboard-construct.ts';
import { serviceStackName } from '#lib/service-stack.ts';
import { buildServiceStack, logicalIdOf } from './service-stack-fixture.ts';
import { type Resource, wholeTemplateOf } from './template-queries.ts';

/**
 * What a first `cdk deploy` in a fresh account needs (docs/deploy.md): no reserved concurrency a new
 * account cannot give, outputs under the names the docs quote, CloudFront names that do not clash
 * across regions, a dashboard that is never served stale or with its sources, and an SES identity
 * that outlives the stage that created it.
 */

const repoFile = (file: string) => new URL(`../../${file}`, import.meta.url);

const synth = (context: Record<string, unknown> = {}, env?: { account: string; region: string }) => {
  const { stack } = buildServiceStack({ bundle: false, context, ...(env ? { env } : {}) });
  const template = wholeTemplateOf(stack);
  return { stack, template, resources: template.toJSON().Resources as Record<string, Resource> };
};

const fresh = synth();

const ofType = (resources: Record<string, Resource>, type: string) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** `{Fn::Join: ['', ['a-', {Ref: 'AWS::Region'}]]}` -> `a-${AWS::Region}`; a string as it is. */
const rendered = (value: unknown): string => {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map(rendered).join(join[0]);
  const ref = (value as { Ref?: string }).Ref;
  if (ref) return `\${${ref}}`;
  return JSON.stringify(value);
};

/** The function an event source invokes: through its `live` alias (contract §24), whose FunctionName names it. */
const invokedFunctionOf = (resources: Record<string, Resource>, functionName: unknown): string | undefined => {
  const text = JSON.stringify(functionName);
  const alias = ofType(resources, 'AWS::Lambda::Alias').find(([id]) => text.includes(JSON.stringify({ Ref: id })));
  return (alias?.[1].Properties.FunctionName as { Ref?: string } | undefined)?.Ref;
};

describe('Lambda concurrency', () => {
  const reservations = (resources: Record<string, Resource>) =>
    Object.fromEntries(
      ofType(resources, 'AWS::Lambda::Function')
        .filter(([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined)
        .map(([id, fn]) => [id, fn.Properties.ReservedConcurrentExecutions]),
    );
  const maximumConcurrencyOf = (resources: Record<string, Resource>, functionId: string) => {
    const mappings = ofType(resources, 'AWS::Lambda::EventSourceMapping').filter(
      ([, mapping]) => invokedFunctionOf(resources, mapping.Properties.FunctionName) === functionId,
    );
    expect(mappings).toHaveLength(1);
    return mappings[0]![1].Properties.ScalingConfig?.MaximumConcurrency as number | undefined;
  };

  it('reserves none on any function by default: Lambda keeps 100 unreserved, and a new account may have 10 in all', () => {
    expect(ofType(fresh.resources, 'AWS::Lambda::Function').length).toBeGreaterThan(10);
    expect(reservations(fresh.resources)).toEqual({});
  });

  /** Every queue consumer with the most it runs at once by design (its event source's maximum concurrency). */
  const queueConsumers = (stack: (typeof fresh)['stack']) => [
    { fn: stack.reports.worker, maximum: 5 },
    { fn: stack.reports.deadLetterHandler, maximum: 2 },
    { fn: stack.webhooks.delivery, maximum: 10 },
    { fn: stack.webhooks.slowDelivery, maximum: 5 },
    { fn: stack.sandboxWipes.consumer, maximum: 2 },
  ];

  it('reserves the reservedConcurrency context value (given with -c, a string) for the report worker and both webhook delivery lanes, and for no other function', () => {
    const reserved = synth({ reservedConcurrency: '8' });
    expect(reservations(reserved.resources)).toEqual({
      [logicalIdOf(reserved.stack.reports.worker)]: 8,
      [logicalIdOf(reserved.stack.webhooks.delivery)]: 8,
      [logicalIdOf(reserved.stack.webhooks.slowDelivery)]: 8,
    });
    // Above the worker's and the slow lane's bound: they still run at most 5 at once.
    expect(maximumConcurrencyOf(reserved.resources, logicalIdOf(reserved.stack.reports.worker))).toBe(5);
    expect(maximumConcurrencyOf(reserved.resources, logicalIdOf(reserved.stack.webhooks.slowDelivery))).toBe(5);
    // Below the fast lane's 10: lowered to the reservation.
    expect(maximumConcurrencyOf(reserved.resources, logicalIdOf(reserved.stack.webhooks.delivery))).toBe(8);
  });

  it('bounds every queue consumer by its event source’s maximum concurrency, with or without a reservation, never above it', () => {
    for (const { stack, resources } of [fresh, synth({ reservedConcurrency: 3 })]) {
      // Every event source of the stack is a queue consumer listed here: none runs unbounded.
      expect(
        ofType(resources, 'AWS::Lambda::EventSourceMapping')
          .map(([, mapping]) => invokedFunctionOf(resources, mapping.Properties.FunctionName))
          .sort(),
      ).toEqual(
        queueConsumers(stack)
          .map(({ fn }) => logicalIdOf(fn))
          .sort(),
      );
      for (const { fn, maximum: designed } of queueConsumers(stack)) {
        const maximum = maximumConcurrencyOf(resources, logicalIdOf(fn));
        const reservation = resources[logicalIdOf(fn)]!.Properties.ReservedConcurrentExecutions as number | undefined;
        // 2 is the lowest maximum an SQS event source takes.
        expect(maximum, fn.node.path).toBeGreaterThanOrEqual(2);
        // A maximum above the reservation would have the poller's extra invocations throttled back to the queue.
        expect(maximum, fn.node.path).toBe(Math.min(designed, reservation ?? designed));
      }
    }
    // The reservation of 3 lowers the worker's and both lanes' maximum to 3; the dead-letter handler reserves none.
    const three = synth({ reservedConcurrency: 3 });
    for (const fn of [three.stack.reports.worker, three.stack.webhooks.delivery, three.stack.webhooks.slowDelivery])
      expect(maximumConcurrencyOf(three.resources, logicalIdOf(fn)), fn.node.path).toBe(3);
    expect(maximumConcurrencyOf(three.resources, logicalIdOf(three.stack.reports.deadLetterHandler))).toBe(2);
  });
});

describe('stack outputs', () => {
  const tables = ['OnboardingTokens', 'ReportJobs', 'Idempotency', 'Webhooks', 'AuditEvents', 'RequestBudgets'];
  const expectedOutputs = [
    'ApiUrl',
    'DashboardUrl',
    ...tables.map((table) => `${table}TableName`),
    'UsersDatabaseEndpoint',
    'UsersDatabaseClusterArn',
    'UsersDatabaseBackupVaultName',
    'UsersDatabaseBackupRoleArn',
    'ReportsBucketName',
    'ReportQueueUrl',
    'ReportDeadLetterQueueUrl',
    'WebhookQueueUrl',
    'WebhookSlowQueueUrl',
    'WebhookDeadLetterQueueUrl',
  ];
  const dkim = ['MailDkimRecord1', 'MailDkimRecord2', 'MailDkimRecord3'];
  const outputKeys = (template: Template) => Object.keys(template.findOutputs('*')).sort();

  it('are exactly these keys, unhashed, with the DKIM records of a domain identity the stack creates', () => {
    expect(outputKeys(fresh.template)).toEqual([...expectedOutputs, ...dkim].sort());
    expect(Object.keys(fresh.stack.data.tables).sort()).toEqual([...tables].sort());
  });

  it('leave the DKIM records out when the identity exists already or is an address', () => {
    expect(outputKeys(synth({ senderIdentityExists: 'true' }).template)).toEqual([...expectedOutputs].sort());
    expect(outputKeys(synth({ senderIdentity: 'no-reply@example.org' }).template)).toEqual([...expectedOutputs].sort());
  });

  it('are the outputs docs/deploy.md lists, name for name', () => {
    const deployDoc = readFileSync(repoFile('docs/deploy.md'), 'utf8');
    const section = /^## Stack outputs\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(deployDoc)?.[1];
    expect(section, 'docs/deploy.md has a "## Stack outputs" section').toBeDefined();
    const documented = [...section!.matchAll(/^\| `([A-Za-z0-9]+)`/gm)].map((match) => match[1]!);
    // Every output a stage can have: the operations dashboard's with -c operationsDashboard (default for prod).
    expect(documented.sort()).toEqual(outputKeys(synth({ operationsDashboard: 'true' }).template));
    expect(outputKeys(fresh.template)).not.toContain('OperationsDashboardUrl');
  });
});

describe('CloudFront names (unique per account, not per region)', () => {
  /** Every name CloudFront keeps account-wide: policies and origin access controls. */
  const cloudFrontNames = (resources: Record<string, Resource>) =>
    Object.entries(resources).flatMap(([id, resource]) => {
      const config = {
        'AWS::CloudFront::CachePolicy': resource.Properties?.CachePolicyConfig,
        'AWS::CloudFront::OriginRequestPolicy': resource.Properties?.OriginRequestPolicyConfig,
        'AWS::CloudFront::ResponseHeadersPolicy': resource.Properties?.ResponseHeadersPolicyConfig,
        'AWS::CloudFront::OriginAccessControl': resource.Properties?.OriginAccessControlConfig,
      }[resource.Type] as { Name?: unknown } | undefined;
      return config ? [{ id, type: resource.Type, name: config.Name }] : [];
    });

  it('carry the region in every cache, origin request and response headers policy and origin access control', () => {
    const names = cloudFrontNames(fresh.resources);
    expect(names.map(({ type }) => type).sort()).toEqual([
      'AWS::CloudFront::OriginAccessControl',
      'AWS::CloudFront::ResponseHeadersPolicy',
    ]);
    for (const { id, name } of names) expect(rendered(name), id).toContain('${AWS::Region}');
  });

  it('differ for one stage in two regions of one account, and fit CloudFront’s limits for the longest stage name', () => {
    const stage = 'a'.repeat(20);
    const inRegion = (region: string) =>
      cloudFrontNames(
        wholeTemplateOf(
          buildServiceStack({
            bundle: false,
            context: { stage },
            stackId: serviceStackName(stage),
            env: { account: '123456789012', region },
          }).stack,
        ).toJSON().Resources,
      );
    const ireland = inRegion('eu-west-1');
    const isof = inRegion('us-isof-south-1');
    const limits: Record<string, number> = {
      'AWS::CloudFront::OriginAccessControl': 64,
      'AWS::CloudFront::ResponseHeadersPolicy': 128,
    };
    for (const { type, name } of [...ireland, ...isof]) {
      expect(typeof name).toBe('string');
      expect((name as string).length, name as string).toBeLessThanOrEqual(limits[type]!);
      expect(name as string).toMatch(/^[A-Za-z0-9_-]+$/);
    }
    expect(ireland.map(({ name }) => name).every((name) => (name as string).endsWith('-eu-west-1'))).toBe(true);
    const irelandNames = ireland.map(({ name }) => name);
    expect(isof.filter(({ name }) => irelandNames.includes(name))).toEqual([]);
  });
});

describe('the dashboard deployment', () => {
  const deployment = () => {
    const deployments = ofType(fresh.resources, 'Custom::CDKBucketDeployment');
    expect(deployments).toHaveLength(1);
    return deployments[0]![1].Properties;
  };

  it('invalidates / as well as /index.html and the runtime configuration, so a redeploy never serves a stale page', () => {
    // CloudFront caches the default root object under `/`, apart from `/index.html`.
    expect(
      fresh.resources[logicalIdOf(fresh.stack.dashboard.distribution)]!.Properties.DistributionConfig,
    ).toMatchObject({ DefaultRootObject: 'index.html' });
    expect([...deployment().DistributionPaths].sort()).toEqual(['/', '/dashboard-config.json', '/index.html']);
    expect(deployment().DistributionId).toEqual({ Ref: logicalIdOf(fresh.stack.dashboard.distribution) });
  });

  it('web/vite.config.ts emits no source maps for the build CDK deploys', async () => {
    const config = await resolveConfig(
      { configFile: fileURLToPath(repoFile('web/vite.config.ts')), logLevel: 'silent' },
      'build',
      'production',
    );
    expect(config.build.sourcemap).toBe(false);
  });

  it('builds the dashboard without any .map file, and every file whose name is not content-hashed is invalidated', () => {
    const outDir = mkdtempSync(path.join(tmpdir(), 'dashboard-build-'));
    try {
      buildDashboard(outDir);
      const files = readdirSync(outDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.includes('.'));
      expect(files).toContain('index.html');
      expect(files.some((file) => file.endsWith('.js'))).toBe(true);
      expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
      // Vite names what it puts under assets/ by content; anything else keeps its address between builds.
      const unhashed = files.filter((file) => !file.startsWith('assets/')).map((file) => `/${file}`);
      for (const file of unhashed) expect(dashboardInvalidationPaths, file).toContain(file);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  });
});

describe('the SES identity', () => {
  it('is retained when the stage that created it is destroyed or replaces it (another stage may send through it)', () => {
    const identities = ofType(fresh.resources, 'AWS::SES::EmailIdentity');
    expect(identities).toHaveLength(1);
    // RetainExceptOnCreate: retained on stack deletion and removal from the template; deleted only if
    // the deploy that created it rolls back, so a failed first deploy can simply be retried.
    expect(identities[0]![1]).toMatchObject({ DeletionPolicy: 'RetainExceptOnCreate', UpdateReplacePolicy: 'Retain' });
  });
});
