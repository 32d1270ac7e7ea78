import { describe, expect, it } from 'vitest';
import { identityProviderConnectSources } from '#lib/dashboard-security-headers.ts';
import { parseStackConfig } from '#lib/stack-config.ts';
import { buildServiceStack, exampleContext, logicalIdOf } from './service-stack-fixture.ts';
import { wholeTemplateOf } from './template-queries.ts';

/** An external OpenID Connect issuer (the default, `identity=oidc`): what the context values become. */
const contentSecurityPolicyOf = (context: Record<string, unknown>): string => {
  const { stack } = buildServiceStack({ bundle: false, context });
  const policy = wholeTemplateOf(stack).findResources('AWS::CloudFront::ResponseHeadersPolicy');
  const [resource] = Object.values(policy) as Array<{ Properties: any }>;
  return flatten(
    resource!.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy,
  );
};

/** A CloudFormation string (plain or `Fn::Join`), with every reference shown as `{ref}`. */
function flatten(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  return join ? join[1].map(flatten).join(join[0]) : '{ref}';
}

const connectSourcesOf = (csp: string): string[] =>
  csp
    .split('; ')
    .find((directive) => directive.startsWith('connect-src '))!
    .split(' ')
    .slice(1);

describe('dashboard connect-src with an external issuer', () => {
  it('names the issuer’s origin alone when the token endpoint lives there (Auth0, Okta, Entra ID, Keycloak)', () => {
    const sources = connectSourcesOf(contentSecurityPolicyOf({}));

    expect(sources.filter((source) => !source.includes('.s3.'))).toEqual(["'self'", 'https://idp.example.org']);
  });

  it('adds the origin of a token endpoint on another host (context tokenEndpoint), and only its origin', () => {
    const sources = connectSourcesOf(
      contentSecurityPolicyOf({ tokenEndpoint: 'https://login.idp-tokens.example.net/oauth2/v2.0/token' }),
    );

    expect(sources).toContain('https://login.idp-tokens.example.net');
    expect(sources.join(' ')).not.toContain('/oauth2');
    // The one wildcard is the reports bucket's regional S3 host (pre-signed downloads).
    expect(sources.filter((source) => source.includes('*') && !source.startsWith('https://*.s3.'))).toEqual([]);
  });

  it('refuses a token endpoint that is not https', () => {
    expect(() => parseStackConfig({ ...exampleContext, tokenEndpoint: 'http://idp.example.org/token' })).toThrow(
      /tokenEndpoint must use https/,
    );
  });

  it('identityProviderConnectSources: origins, deduplicated, never a path', () => {
    expect(
      identityProviderConnectSources(
        'https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0',
        'https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/oauth2/v2.0/token',
      ),
    ).toEqual(['https://login.microsoftonline.com']);
    expect(identityProviderConnectSources('http://127.0.0.1:3001/')).toEqual(['http://127.0.0.1:3001']);
  });
});

describe('API token settings with an external issuer', () => {
  it('passes issuer, audience and key set as before, and client ids, machine clients and scope prefix when given', () => {
    const { stack } = buildServiceStack({
      bundle: false,
      context: {
        jwtClientIds: 'abc123, def456',
        machineClientIds: 'svc-backend, m2m-*',
        scopePrefix: 'onboarding-api/',
      },
    });
    const resources = wholeTemplateOf(stack).toJSON().Resources as Record<string, any>;
    const variables = resources[logicalIdOf(stack.routeFunctions.get('CreateReportJob')!)].Properties.Environment
      .Variables as Record<string, unknown>;

    expect(variables).toMatchObject({
      JWT_ISSUER: 'https://idp.example.org/',
      JWT_AUDIENCE: 'onboarding-api',
      JWKS_URL: 'https://idp.example.org/.well-known/jwks.json',
      JWT_CLIENT_IDS: 'abc123,def456',
      MACHINE_CLIENT_IDS: 'svc-backend,m2m-*',
      SCOPE_PREFIX: 'onboarding-api/',
      ORG_CLAIM: 'org_id',
    });
    expect(variables.MACHINE_CLIENTS_TABLE_NAME).toBeUndefined();
    expect(Object.keys(wholeTemplateOf(stack).findResources('AWS::Cognito::UserPool'))).toEqual([]);
  });

  it('refuses machineClientIds naming every client (a lone *) or with a * inside an id', () => {
    expect(() => parseStackConfig({ ...exampleContext, machineClientIds: '*' })).toThrow(/machineClientIds/);
    expect(() => parseStackConfig({ ...exampleContext, machineClientIds: 'a*b' })).toThrow(/machineClientIds/);
  });

  it('accepts jwtClientIds in place of jwtAudience, and asks for one of them', () => {
    const { jwtAudience: _, ...withoutAudience } = exampleContext;

    expect(parseStackConfig({ ...withoutAudience, jwtClientIds: 'abc123' }).jwtClientIds).toEqual(['abc123']);
    expect(() => parseStackConfig(withoutAudience)).toThrow(/jwtAudience: jwtAudience is required/);
  });

  it('needs no issuer, key set, audience or dashboard client with identity=cognito, and prefixes the dashboard scopes', () => {
    const { jwtIssuer: _i, jwtAudience: _a, jwksUrl: _j, dashboardClientId: _d, ...rest } = exampleContext;

    const config = parseStackConfig({ ...rest, identity: 'cognito' });

    expect(config.identity).toBe('cognito');
    expect(config.dashboardScope.split(' ')).toEqual([
      'openid',
      'onboarding-api/onboarding:write',
      'onboarding-api/onboarding:read',
      'onboarding-api/reports:write',
      'onboarding-api/reports:read',
      'onboarding-api/users:read',
      'onboarding-api/users:erase',
      'onboarding-api/webhooks:manage',
      'onboarding-api/audit:read',
    ]);
    expect(config.dashboardSandboxScope).toBe('onboarding-api/sandbox');
    expect(parseStackConfig(exampleContext).dashboardSandboxScope).toBe('sandbox');
    expect(
      parseStackConfig({ ...exampleContext, dashboardSandboxScope: 'api://x/sandbox' }).dashboardSandboxScope,
    ).toBe('api://x/sandbox');
    expect(() => parseStackConfig({ ...rest, identity: 'okta' })).toThrow(/identity must be oidc or cognito/);
    expect(() => parseStackConfig({ ...rest, identity: 'cognito', cognitoDomainPrefix: 'my-cognito-login' })).toThrow(
      /must not contain aws, amazon or cognito/,
    );
  });
});
