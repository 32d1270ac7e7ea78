import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '#lib/service-stack.ts';
import { buildServiceStack, logicalIdOf } from './service-stack-fixture.ts';
import { wholeTemplateOf } from './template-queries.ts';

let stack: ServiceStack;
let template: Template;

beforeAll(() => {
  ({ stack } = buildServiceStack({ bundle: false }));
  template = wholeTemplateOf(stack);
});

const resourcesOfType = (type: string) => Object.values(template.findResources(type)) as Array<{ Properties: any }>;
const distributionConfig = () => resourcesOfType('AWS::CloudFront::Distribution')[0]!.Properties.DistributionConfig;
const securityHeaders = () =>
  resourcesOfType('AWS::CloudFront::ResponseHeadersPolicy')[0]!.Properties.ResponseHeadersPolicyConfig;
const join = (value: unknown): string =>
  typeof value === 'string' ? value : JSON.stringify(value).replace(/\\"/g, '"');

describe('dashboard hosting', () => {
  it('keeps the built app in a private, encrypted, TLS-only bucket that only the distribution reads (origin access control)', () => {
    const bucketId = logicalIdOf(stack.dashboard.bucket);
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: Match.anyValue(),
    });
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    const policy = resourcesOfType('AWS::S3::BucketPolicy').find(
      (p) => JSON.stringify(p.Properties.Bucket) === JSON.stringify({ Ref: bucketId }),
    )!;
    const statements = policy.Properties.PolicyDocument.Statement as Array<Record<string, any>>;
    const read = statements.find((s) => s.Principal?.Service === 'cloudfront.amazonaws.com')!;
    expect(read.Action).toBe('s3:GetObject');
    expect(JSON.stringify(read.Condition)).toContain('AWS:SourceArn');
    expect(
      statements.some((s) => s.Effect === 'Deny' && JSON.stringify(s.Condition).includes('aws:SecureTransport')),
    ).toBe(true);
    const origins = distributionConfig().Origins as Array<Record<string, any>>;
    expect(origins.find((o) => o.S3OriginConfig)?.OriginAccessControlId).toBeDefined();
  });

  it('serves index.html at / over HTTPS and routes /v1/* to the HTTP API on the same origin, uncached, every method', () => {
    const config = distributionConfig();
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    const [api] = config.CacheBehaviors as Array<Record<string, any>>;
    expect(config.CacheBehaviors).toHaveLength(1);
    expect(api!.PathPattern).toBe('/v1/*');
    expect(api!.AllowedMethods).toEqual(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']);
    expect(api!.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad'); // Managed-CachingDisabled
    expect(api!.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac'); // AllViewerExceptHostHeader
    const apiOrigin = (config.Origins as Array<Record<string, any>>).find((o) => o.Id === api!.TargetOriginId)!;
    expect(join(apiOrigin.DomainName)).toContain(logicalIdOf(stack.api.httpApi));
    expect(apiOrigin.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
  });

  it('sends a CSP without inline scripts, HSTS and frame-ancestors none on every answer', () => {
    const headers = securityHeaders().SecurityHeadersConfig;
    const csp = join(headers.ContentSecurityPolicy.ContentSecurityPolicy);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'self'");
    // The page may fetch reports from the bucket (verified downloads) and talk to the issuer (OIDC).
    expect(csp).toContain('https://*.s3.');
    expect(csp).toContain('https://idp.example.org');
    expect(headers.StrictTransportSecurity).toMatchObject({
      AccessControlMaxAgeSec: 63_072_000,
      IncludeSubdomains: true,
      Override: true,
    });
    expect(headers.FrameOptions).toMatchObject({ FrameOption: 'DENY' });
    const config = distributionConfig();
    const policyId = { Ref: logicalIdOf(stack.dashboard.responseHeadersPolicy) };
    expect(config.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual(policyId);
    expect(config.CacheBehaviors[0].ResponseHeadersPolicyId).toEqual(policyId);
  });

  it('deploys the built app with an OIDC configuration (issuer, client id from context) and invalidates the entry points', () => {
    const [deployment] = resourcesOfType('Custom::CDKBucketDeployment');
    expect(deployment!.Properties.DestinationBucketName).toEqual({ Ref: logicalIdOf(stack.dashboard.bucket) });
    // `/` too: CloudFront caches the default root object under it (first-deploy.test.ts).
    expect(deployment!.Properties.DistributionPaths).toEqual(['/', '/index.html', '/dashboard-config.json']);
    expect(deployment!.Properties.SourceObjectKeys).toHaveLength(2);
    expect(stack.dashboard.signInConfig).toEqual({
      signIn: 'oidc',
      issuer: 'https://idp.example.org/',
      clientId: 'onboarding-dashboard',
      scope:
        'openid onboarding:write onboarding:read reports:write reports:read users:read users:erase webhooks:manage audit:read',
      sandboxScope: 'sandbox',
    });
  });

  it('lets only the dashboard origin read reports from the browser (CORS GET on the reports bucket)', () => {
    const bucket = template.toJSON().Resources[logicalIdOf(stack.reports.bucket)].Properties;
    expect(bucket.CorsConfiguration.CorsRules).toEqual([
      {
        AllowedMethods: ['GET', 'HEAD'],
        AllowedOrigins: [
          {
            'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalIdOf(stack.dashboard.distribution), 'DomainName'] }]],
          },
        ],
        MaxAge: 600,
      },
    ]);
  });

  it('names the dashboard URL in the stack outputs', () => {
    template.hasOutput('DashboardUrl', {
      Value: {
        'Fn::Join': [
          '',
          ['https://', { 'Fn::GetAtt': [logicalIdOf(stack.dashboard.distribution), 'DomainName'] }, '/'],
        ],
      },
    });
  });
});
