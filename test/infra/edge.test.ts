import { Aspects, type CfnElement, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { cfnLintFindings } from './cfn-lint-findings.ts';
import type { EdgeWebAclStack } from '#lib/edge-web-acl-stack.ts';
import type { ServiceStack } from '#lib/service-stack.ts';
import { ORIGIN_VERIFY_HEADER } from '#shared/config/origin-verify.ts';
import { standardErrorSchema } from '#shared/schemas/error-responses.ts';
import { buildServiceStack } from './service-stack-fixture.ts';
import { separateTemplatesOf, wholeTemplateOf } from './template-queries.ts';

const env = { account: '123456789012', region: 'eu-west-1' };
const DOMAIN = 'api.example.org';
const CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-0000-4000-8000-000000000000';

let prod: ServiceStack;
let webAclStack: EdgeWebAclStack;
let prodTemplate: Template;
let webAclTemplate: Template;
let nagFindings: Map<Stack, string[]>;

/** Lets vitest's worker answer its runner between long synchronous synths. */
const breathe = () => new Promise((resolve) => setImmediate(resolve));

beforeAll(async () => {
  // An alarm e-mail adds the alarm topic, so cdk-nag sees everything prod deploys.
  const built = buildServiceStack({ bundle: false, env, context: { stage: 'prod', alarmEmail: 'ops@example.org' } });
  prod = built.stack;
  webAclStack = prod.edge!.webAclStack;
  Aspects.of(built.app).add(new AwsSolutionsChecks({ verbose: true }));
  await breathe();
  // One synth of the app (both stacks) serves every assertion below.
  const assembly = built.app.synth();
  await breathe();
  // With the sandbox's nested stack in it: "every API function" is the sandbox's too.
  prodTemplate = wholeTemplateOf(prod);
  webAclTemplate = Template.fromJSON(
    assembly.getStackArtifact(webAclStack.artifactId).template as Record<string, unknown>,
  );
  nagFindings = new Map(
    [prod, webAclStack].map((stack): [Stack, string[]] => [
      stack,
      assembly
        .getStackArtifact(stack.artifactId)
        .messages.filter(
          (message) => String(message.level) !== 'info' && String(message.entry.data).startsWith('AwsSolutions-'),
        )
        .map((message) => `${message.id}: ${String(message.entry.data)}`),
    ]),
  );
});

type Rule = { Name: string; Priority: number; Statement: any; Action?: any; OverrideAction?: any };
const webAcl = () => Object.values(webAclTemplate.findResources('AWS::WAFv2::WebACL'))[0]!.Properties;
const ruleNamed = (name: string) => (webAcl().Rules as Rule[]).find((rule) => rule.Name === name)!;
const distributionConfig = (template: Template) =>
  (Object.values(template.findResources('AWS::CloudFront::Distribution'))[0] as { Properties: any }).Properties
    .DistributionConfig;
const apiOrigin = (template: Template) => {
  const config = distributionConfig(template);
  const apiBehavior = (config.CacheBehaviors as Array<{ PathPattern: string; TargetOriginId: string }>).find(
    (behavior) => behavior.PathPattern === '/v1/*',
  )!;
  return (config.Origins as Array<{ Id: string; DomainName: unknown; OriginCustomHeaders?: any[] }>).find(
    (origin) => origin.Id === apiBehavior.TargetOriginId,
  )!;
};
/** A template value as text: `{Fn::Join}` joined, `{Fn::GetAtt: [id, attr]}` as `${id.attr}`, `{Ref: id}` as `${id}`. */
const rendered = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map(rendered).join(join[0]);
  const getAtt = (value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
  if (getAtt) return `\${${getAtt.join('.')}}`;
  const ref = (value as { Ref?: string }).Ref;
  if (ref) return `\${${ref}}`;
  return JSON.stringify(value);
};
const outputOf = (template: Template, name: string) =>
  (template.toJSON().Outputs as Record<string, { Value: unknown; Description?: string } | undefined>)[name];
/** The served OpenAPI document's `servers` (functions/get-openapi-document.ts): its function's API_URL. */
const servedApiUrl = (stack: ServiceStack, template: Template) =>
  rendered(
    template.toJSON().Resources[
      stack.getLogicalId(stack.routeFunctions.get('GetOpenApiDocument')!.node.defaultChild as CfnElement)
    ].Properties.Environment.Variables.API_URL,
  );
const distributionDomain = (stack: ServiceStack) =>
  `\${${stack.getLogicalId(stack.dashboard.distribution.node.defaultChild as CfnElement)}.DomainName}`;
/** The HTTP API's `ApiEndpoint` attribute: `https://{api id}.execute-api.{region}.amazonaws.com`. */
const EXECUTE_API_URL = /^\$\{ApiHttpApi\w+\.ApiEndpoint\}\/$/;

const functionEnvironments = (template: Template) =>
  Object.values(template.findResources('AWS::Lambda::Function')).map(
    (fn) =>
      (fn as { Properties: { Description?: string; Environment?: { Variables?: Record<string, unknown> } } })
        .Properties,
  );

describe('stage=prod: the edge is on by default', () => {
  it('puts the web ACL in its own stack in us-east-1, deployed before the service stack', () => {
    expect(prod.edge).toBeDefined();
    expect(webAclStack.region).toBe('us-east-1');
    expect(webAclStack.account).toBe(env.account);
    expect(prod.dependencies).toContain(webAclStack);
    expect(webAcl()).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
  });

  it('limits each client IP and each Authorization value over 60 seconds on /v1/* (the context defaults)', () => {
    const perIp = ruleNamed('RateLimitPerIp').Statement.RateBasedStatement;
    expect(perIp).toMatchObject({ Limit: 12_000, EvaluationWindowSec: 60, AggregateKeyType: 'IP' });
    const perAuthorization = ruleNamed('RateLimitPerAuthorization').Statement.RateBasedStatement;
    expect(perAuthorization).toMatchObject({
      Limit: 6_000,
      EvaluationWindowSec: 60,
      AggregateKeyType: 'CUSTOM_KEYS',
      // `Bearer x` and `bearer  x` are one key: spaces compressed, then lower-cased (WAF applies the lowest priority first).
      CustomKeys: [
        {
          Header: {
            Name: 'authorization',
            TextTransformations: [
              { Priority: 0, Type: 'COMPRESS_WHITE_SPACE' },
              { Priority: 1, Type: 'LOWERCASE' },
            ],
          },
        },
      ],
    });
    for (const statement of [perIp, perAuthorization]) {
      expect(statement.ScopeDownStatement.ByteMatchStatement).toMatchObject({
        FieldToMatch: { UriPath: {} },
        PositionalConstraint: 'STARTS_WITH',
        SearchString: '/v1/',
      });
    }
  });

  it('answers a rate refusal with 429, Retry-After and the contract’s standard body (JSON, not CloudFront’s page)', () => {
    for (const name of ['RateLimitPerIp', 'RateLimitPerAuthorization']) {
      expect(ruleNamed(name).Action).toEqual({
        Block: {
          CustomResponse: {
            ResponseCode: 429,
            CustomResponseBodyKey: 'TooManyRequests',
            ResponseHeaders: [{ Name: 'Retry-After', Value: '60' }],
          },
        },
      });
    }
    const body = webAcl().CustomResponseBodies.TooManyRequests;
    expect(body.ContentType).toBe('APPLICATION_JSON');
    const parsed = v.parse(standardErrorSchema, JSON.parse(body.Content as string));
    expect(parsed).toMatchObject({ code: 429, error: 'TOO_MANY_REQUESTS' });
    expect(Object.keys(parsed).sort()).toEqual(['code', 'error', 'message', 'method', 'path', 'timestamp']);
  });

  it('runs two AWS managed groups in Count and blocks on their labels with a 403 in the standard body', () => {
    for (const [group, namespace] of [
      ['AWSManagedRulesAmazonIpReputationList', 'awswaf:managed:aws:amazon-ip-list:'],
      ['AWSManagedRulesKnownBadInputsRuleSet', 'awswaf:managed:aws:known-bad-inputs:'],
    ] as const) {
      const managed = ruleNamed(group);
      expect(managed.Statement).toEqual({ ManagedRuleGroupStatement: { VendorName: 'AWS', Name: group } });
      expect(managed.OverrideAction).toEqual({ Count: {} });
      const block = (webAcl().Rules as Rule[]).find((rule) => rule.Statement.LabelMatchStatement?.Key === namespace)!;
      expect(block.Statement.LabelMatchStatement.Scope).toBe('NAMESPACE');
      expect(block.Priority).toBeGreaterThan(managed.Priority);
      expect(block.Action.Block.CustomResponse).toEqual({ ResponseCode: 403, CustomResponseBodyKey: 'Forbidden' });
    }
    const forbidden = JSON.parse(webAcl().CustomResponseBodies.Forbidden.Content as string) as unknown;
    expect(v.parse(standardErrorSchema, forbidden)).toMatchObject({ code: 403, error: 'FORBIDDEN' });
  });

  it('keeps no bearer token: no rule and no default action samples requests, and a WAF log would redact Authorization', () => {
    // A sampled request keeps every header for three hours, and WAF cannot redact a sample; every /v1/* call has a token.
    const visibilityConfigs = [
      webAcl().VisibilityConfig,
      ...(webAcl().Rules as Array<{ VisibilityConfig: any }>).map((rule) => rule.VisibilityConfig),
    ];
    expect(visibilityConfigs).toHaveLength(7);
    for (const config of visibilityConfigs)
      expect(config, config.MetricName).toMatchObject({
        CloudWatchMetricsEnabled: true,
        SampledRequestsEnabled: false,
      });
    for (const logging of Object.values(webAclTemplate.findResources('AWS::WAFv2::LoggingConfiguration')))
      expect(logging.Properties.RedactedFields).toContainEqual({ SingleHeader: { Name: 'authorization' } });
  });

  it('attaches the web ACL to the distribution through a cross-region reference (the edge stack’s output)', () => {
    const webAclId = distributionConfig(prodTemplate).WebACLId as { 'Fn::GetStackOutput': Record<string, string> };
    expect(webAclId['Fn::GetStackOutput']).toMatchObject({ StackName: webAclStack.stackName, Region: 'us-east-1' });
    const outputName = webAclId['Fn::GetStackOutput'].OutputName!;
    const webAclLogicalId = webAclStack.getLogicalId(webAclStack.webAcl);
    expect(webAclTemplate.toJSON().Outputs[outputName].Value).toEqual({ 'Fn::GetAtt': [webAclLogicalId, 'Arn'] });
  });

  it('sends the origin-verify header (the secret’s current value, resolved at deploy) to the API origin only', () => {
    const origin = apiOrigin(prodTemplate);
    expect(origin.OriginCustomHeaders).toHaveLength(1);
    const header = origin.OriginCustomHeaders![0] as { HeaderName: string; HeaderValue: unknown };
    expect(header.HeaderName).toBe(ORIGIN_VERIFY_HEADER);
    expect(JSON.stringify(header.HeaderValue)).toMatch(/\{\{resolve:secretsmanager:.*:SecretString:current::\}\}/);
    const others = (distributionConfig(prodTemplate).Origins as Array<{ Id: string; OriginCustomHeaders?: unknown }>)
      .filter((o) => o.Id !== origin.Id)
      .map((o) => o.OriginCustomHeaders);
    expect(others.every((headers) => headers === undefined)).toBe(true);
    prodTemplate.hasOutput('OriginVerifySecretArn', { Value: Match.anyValue() });
    prodTemplate.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ GenerateStringKey: 'current', SecretStringTemplate: '{}' }),
    });
  });

  it('gives every API function (and the fallback) the accepted values, and no other function', () => {
    const environments = functionEnvironments(prodTemplate);
    const api = environments.filter((fn) => /^(GET|POST|PUT|DELETE|PATCH) \/|unmatched/.test(fn.Description ?? ''));
    expect(api.length).toBeGreaterThan(15);
    for (const fn of api) {
      expect(JSON.stringify(fn.Environment?.Variables?.ORIGIN_VERIFY_SECRETS), fn.Description).toMatch(
        /\{\{resolve:secretsmanager:.*:SecretString:::\}\}/,
      );
    }
    const others = environments.filter((fn) => !api.includes(fn));
    for (const fn of others) expect(fn.Environment?.Variables?.ORIGIN_VERIFY_SECRETS, fn.Description).toBeUndefined();
  });

  it('pins the secret’s version in both places after a rotation (-c originVerifySecretVersion)', () => {
    const version = '0d1e2f3a-4b5c-4d6e-8f70-81920a3b4c5d';
    const { stack } = buildServiceStack({
      bundle: false,
      env,
      context: { stage: 'prod', originVerifySecretVersion: version },
      stackId: 'RotatedUnderTest',
    });
    const template = wholeTemplateOf(stack);
    expect(JSON.stringify(apiOrigin(template).OriginCustomHeaders)).toContain(`:SecretString:current::${version}}}`);
    const env0 = functionEnvironments(template).find((fn) => fn.Environment?.Variables?.ORIGIN_VERIFY_SECRETS);
    expect(JSON.stringify(env0?.Environment?.Variables?.ORIGIN_VERIFY_SECRETS)).toContain(
      `:SecretString:::${version}}}`,
    );
  });

  it('outputs the edge’s address as ApiUrl, and the execute-api origin as ApiOriginUrl, named as not for clients', () => {
    expect(rendered(outputOf(prodTemplate, 'ApiUrl')?.Value)).toBe(`https://${distributionDomain(prod)}/`);
    expect(outputOf(prodTemplate, 'ApiUrl')?.Description).toMatch(/clients/);
    const origin = outputOf(prodTemplate, 'ApiOriginUrl');
    expect(rendered(origin?.Value)).toMatch(EXECUTE_API_URL);
    expect(origin?.Description).toMatch(/not for clients/);
  });

  it('serves the OpenAPI document with the edge’s address as its server', () => {
    expect(servedApiUrl(prod, prodTemplate)).toBe(`https://${distributionDomain(prod)}`);
  });

  it('passes cdk-nag with no unsuppressed error or warning, in both stacks', () => {
    expect([...nagFindings.keys()]).toHaveLength(2);
    for (const [stack, findings] of nagFindings) expect(findings, stack.stackName).toEqual([]);
  });

  it('passes cfn-lint with no error and no warning, in both stacks', async () => {
    // Both templates in one run; each finding's line names its file.
    expect(await cfnLintFindings({ ...separateTemplatesOf(prod), 'web-acl': webAclTemplate })).toEqual({
      findings: [],
      stderr: '',
    });
  }, 180_000);
});

describe('other stages: the edge is off unless asked for', () => {
  it('builds no web ACL stack, sends no header and gives no function the variable', () => {
    const { app, stack } = buildServiceStack({ bundle: false });
    const template = wholeTemplateOf(stack);
    expect(stack.edge).toBeUndefined();
    expect(app.node.children.filter((child) => child !== stack && (child as Stack).templateFile)).toEqual([]);
    expect(distributionConfig(template).WebACLId).toBeUndefined();
    expect(apiOrigin(template).OriginCustomHeaders).toBeUndefined();
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    for (const fn of functionEnvironments(template))
      expect(fn.Environment?.Variables?.ORIGIN_VERIFY_SECRETS).toBeUndefined();
  });

  it('outputs the execute-api address as ApiUrl and serves the OpenAPI document with it; no ApiOriginUrl', () => {
    const { stack } = buildServiceStack({ bundle: false });
    const template = wholeTemplateOf(stack);
    expect(rendered(outputOf(template, 'ApiUrl')?.Value)).toMatch(EXECUTE_API_URL);
    expect(outputOf(template, 'ApiOriginUrl')).toBeUndefined();
    expect(`${servedApiUrl(stack, template)}/`).toMatch(EXECUTE_API_URL);
  });

  it('turns on with -c edgeProtection=true, and off for prod with -c edgeProtection=false', () => {
    expect(buildServiceStack({ bundle: false, env, context: { edgeProtection: 'true' } }).stack.edge).toBeDefined();
    expect(
      buildServiceStack({ bundle: false, env, context: { stage: 'prod', edgeProtection: 'false' } }).stack.edge,
    ).toBeUndefined();
  });

  it('stops the synth with a clear message when the edge is on and the stack has no region', () => {
    expect(() => buildServiceStack({ bundle: false, context: { stage: 'prod' } })).toThrow(
      /edgeProtection needs the stack’s region/,
    );
  });
});

describe('a custom domain (-c apiDomainName -c apiCertificateArn)', () => {
  it('serves the API on the domain, disables the execute-api endpoint and makes the domain the edge’s origin', () => {
    const { stack } = buildServiceStack({
      bundle: false,
      env,
      context: { stage: 'prod', apiDomainName: DOMAIN, apiCertificateArn: CERTIFICATE },
      stackId: 'DomainUnderTest',
    });
    const template = wholeTemplateOf(stack);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { DisableExecuteApiEndpoint: true });
    template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: DOMAIN,
      DomainNameConfigurations: [Match.objectLike({ CertificateArn: CERTIFICATE, EndpointType: 'REGIONAL' })],
    });
    template.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    expect(apiOrigin(template).DomainName).toBe(DOMAIN);
    // The domain is the edge's origin: clients call the distribution, which the functions alone accept calls from.
    expect(rendered(outputOf(template, 'ApiUrl')?.Value)).toBe(`https://${distributionDomain(stack)}/`);
    expect(outputOf(template, 'ApiOriginUrl')?.Value).toBe(`https://${DOMAIN}/`);
    expect(servedApiUrl(stack, template)).toBe(`https://${distributionDomain(stack)}`);
  });

  it('is ApiUrl and the served OpenAPI document’s server with the edge off', () => {
    const { stack } = buildServiceStack({
      bundle: false,
      context: { apiDomainName: DOMAIN, apiCertificateArn: CERTIFICATE },
    });
    const template = wholeTemplateOf(stack);
    expect(outputOf(template, 'ApiUrl')?.Value).toBe(`https://${DOMAIN}/`);
    expect(outputOf(template, 'ApiOriginUrl')).toBeUndefined();
    expect(servedApiUrl(stack, template)).toBe(`https://${DOMAIN}`);
  });

  it('keeps the execute-api endpoint without a domain', () => {
    const template = wholeTemplateOf(buildServiceStack({ bundle: false }).stack);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { DisableExecuteApiEndpoint: false });
    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
  });
});
