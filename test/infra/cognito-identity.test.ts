import { Aspects } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { cfnLintFindings } from './cfn-lint-findings.ts';
import { ROLES, SCOPES } from '#shared/domain/identity/staff-roles.ts';
import type { ServiceStack } from '#lib/service-stack.ts';
import { buildServiceStack, logicalIdOf } from './service-stack-fixture.ts';
import { separateTemplatesOf, wholeTemplateOf } from './template-queries.ts';

type Resource = { Type: string; Properties?: Record<string, any>; Metadata?: Record<string, any> };

let stack: ServiceStack;
let template: Template;
let resources: Record<string, Resource>;

/** The OIDC values of the fixture's context do not apply with identity=cognito: they are ignored. */
beforeAll(() => {
  ({ stack } = buildServiceStack({ bundle: false, context: { identity: 'cognito', alarmEmail: 'ops@example.org' } }));
  Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
  template = wholeTemplateOf(stack);
  resources = template.toJSON().Resources as Record<string, Resource>;
});

const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const only = (type: string): [string, Resource] => {
  const found = ofType(type);
  expect(found, type).toHaveLength(1);
  return found[0]!;
};

describe('-c identity=cognito', () => {
  it('creates an invitation-only user pool with a required TOTP factor, the org attribute, the Essentials plan', () => {
    const [, pool] = only('AWS::Cognito::UserPool');

    expect(pool.Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      UserPoolTier: 'ESSENTIALS',
      DeletionProtection: 'ACTIVE',
      Schema: expect.arrayContaining([
        expect.objectContaining({ Name: 'org_id', AttributeDataType: 'String', Mutable: true }),
      ]),
    });
    expect(pool.Properties?.UserPoolAddOns).toBeUndefined();
  });

  it('runs the pre-token-generation trigger’s live alias with the V3_0 event (sign-ins and client credentials)', () => {
    const [, pool] = only('AWS::Cognito::UserPool');
    const triggerId = logicalIdOf(stack.identity!.preTokenGeneration);

    expect(pool.Properties?.LambdaConfig).toEqual({
      PreTokenGenerationConfig: {
        LambdaArn: { Ref: logicalIdOf(stack.identity!.preTokenGeneration.invokedAlias) },
        LambdaVersion: 'V3_0',
      },
    });
    expect(resources[triggerId]?.Properties?.Environment?.Variables).toMatchObject({
      ORG_CLAIM: 'org_id',
      MACHINE_CLIENTS_TABLE_NAME: { Ref: logicalIdOf(stack.identity!.machineClients) },
    });
  });

  it('gives the trigger GetItem on the MachineClients table and nothing else of it', () => {
    const policies = ofType('AWS::IAM::Policy').filter(([, policy]) =>
      (policy.Properties?.Roles as Array<{ Ref: string }>).some((role) =>
        role.Ref.startsWith('IdentityPreTokenGenerationRole'),
      ),
    );
    const statements = policies.flatMap(([, policy]) => policy.Properties?.PolicyDocument.Statement as any[]);
    const dynamo = statements.filter((statement) => JSON.stringify(statement.Action).includes('dynamodb'));

    expect(dynamo).toEqual([
      expect.objectContaining({
        Action: 'dynamodb:GetItem',
        Resource: { 'Fn::GetAtt': [logicalIdOf(stack.identity!.machineClients), 'Arn'] },
      }),
    ]);
  });

  it('has a resource server with every scope of the contract, and sandbox for the sandbox clients', () => {
    const [, server] = only('AWS::Cognito::UserPoolResourceServer');

    expect(server.Properties?.Identifier).toBe('onboarding-api');
    expect((server.Properties?.Scopes as Array<{ ScopeName: string }>).map((s) => s.ScopeName).sort()).toEqual(
      [...SCOPES, 'sandbox'].sort(),
    );
  });

  it('makes the dashboard a public PKCE client with the dashboard URL as callback and sign-out URL', () => {
    const [, client] = only('AWS::Cognito::UserPoolClient');
    const distributionId = logicalIdOf(stack.dashboard.distribution);
    const dashboardUrl = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']] };

    expect(client.Properties).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      CallbackURLs: [dashboardUrl],
      LogoutURLs: [dashboardUrl],
      SupportedIdentityProviders: ['COGNITO'],
      WriteAttributes: ['email'],
    });
    expect(client.Properties?.AllowedOAuthScopes).toEqual(
      expect.arrayContaining(['openid', expect.objectContaining({ 'Fn::Join': expect.anything() })]),
    );
    expect(JSON.stringify(client.Properties?.AllowedOAuthScopes)).toContain('/reports:read');
    expect(JSON.stringify(client.Properties?.AllowedOAuthScopes)).not.toContain('onboarding:redeem');
    // The dashboard's sandbox switch asks for `sandbox` (the pre-token trigger keeps it for staff in a role group).
    expect(JSON.stringify(client.Properties?.AllowedOAuthScopes)).toContain('/sandbox');
  });

  it('has one group per staff role in the pool, and nothing else grouped', () => {
    const poolId = logicalIdOf(stack.identity!.userPool);
    const groups = ofType('AWS::Cognito::UserPoolGroup').map(([, group]) => group.Properties!);

    expect(groups.map((group) => group.GroupName).sort()).toEqual([...ROLES].sort());
    for (const group of groups) {
      expect(group.UserPoolId).toEqual({ Ref: poolId });
      expect(group.RoleArn, 'a role group grants scopes, no AWS credentials').toBeUndefined();
    }
  });

  it('lets no app client write the organization attribute (the role is a group, which no client can change)', () => {
    for (const [id, client] of ofType('AWS::Cognito::UserPoolClient')) {
      // Without WriteAttributes, Cognito lets a client write every mutable attribute.
      expect(client.Properties?.WriteAttributes, id).toBeDefined();
      expect(client.Properties?.WriteAttributes, id).not.toContain('custom:org_id');
    }
  });

  it('serves managed login (version 2) on a Cognito domain, with a style for the dashboard client', () => {
    const [, domain] = only('AWS::Cognito::UserPoolDomain');
    const [, style] = only('AWS::Cognito::ManagedLoginBranding');

    expect(domain.Properties).toMatchObject({
      ManagedLoginVersion: 2,
      Domain: { 'Fn::Join': ['', ['onboarding-dev-', { Ref: 'AWS::AccountId' }]] },
    });
    expect(style.Properties).toMatchObject({ UseCognitoProvidedValues: true });
  });

  it('gives every API function the pool’s issuer, key set, allowed client ids and scope prefix, and no audience', () => {
    const poolId = logicalIdOf(stack.identity!.userPool);
    for (const [name, fn] of stack.routeFunctions) {
      const variables = resources[logicalIdOf(fn)]?.Properties?.Environment?.Variables as Record<string, unknown>;
      if (name === 'GetOpenApiDocument') continue;
      expect(variables, name).toMatchObject({
        JWT_ISSUER: { 'Fn::GetAtt': [poolId, 'ProviderURL'] },
        JWKS_URL: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [poolId, 'ProviderURL'] }, '/.well-known/jwks.json']] },
        JWT_CLIENT_IDS: { Ref: logicalIdOf(stack.identity!.dashboardClient) },
        SCOPE_PREFIX: 'onboarding-api/',
        MACHINE_CLIENTS_TABLE_NAME: { Ref: logicalIdOf(stack.identity!.machineClients) },
        ORG_CLAIM: 'org_id',
        ROLE_CLAIM: 'cognito:groups',
      });
      expect(variables.JWT_AUDIENCE, name).toBeUndefined();
    }
  });

  it('lets the dashboard connect to the pool’s issuer host and its managed login domain, nothing wider', () => {
    const [, policy] = only('AWS::CloudFront::ResponseHeadersPolicy');
    const csp = JSON.stringify(
      policy.Properties?.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy,
    );

    expect(csp).toContain('https://cognito-idp.');
    expect(csp).toContain('.auth.');
    expect(csp).toContain('.amazoncognito.com');
    expect(csp).not.toMatch(/\*\.auth\.|\*\.amazoncognito|idp\.example\.org/);
  });

  it('writes the pool into the dashboard’s sign-in configuration, with its logout endpoint', () => {
    const signIn = stack.dashboard.signInConfig;

    expect(stack.resolve(signIn.issuer)).toEqual({
      'Fn::GetAtt': [logicalIdOf(stack.identity!.userPool), 'ProviderURL'],
    });
    expect(stack.resolve(signIn.clientId)).toEqual({ Ref: logicalIdOf(stack.identity!.dashboardClient) });
    expect(signIn.scope?.split(' ')).toContain('onboarding-api/users:erase');
    expect(signIn.sandboxScope).toBe('onboarding-api/sandbox');
    expect(JSON.stringify(stack.resolve(signIn.endSessionEndpoint))).toContain('/logout');
  });

  it('outputs what org:add needs', () => {
    for (const output of [
      'UserPoolId',
      'MachineClientsTableName',
      'TokenEndpoint',
      'TokenIssuer',
      'DashboardClientId',
    ]) {
      template.hasOutput(output, {});
    }
  });

  it('passes cdk-nag: no unsuppressed error or warning, threat protection off is suppressed with a reason', () => {
    const findings = [
      ...Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*')),
      ...Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*')),
    ];
    expect(findings.map((f) => `${f.id}: ${String(f.entry.data)}`)).toEqual([]);
    const [, pool] = only('AWS::Cognito::UserPool');
    expect(pool.Metadata?.cdk_nag?.rules_to_suppress).toEqual([expect.objectContaining({ id: 'AwsSolutions-COG3' })]);
  });
});

describe('-c identity=cognito in cfn-lint', () => {
  it('has no error and no warning (the rules cfn-lint-findings.ts turns off, each with its reason)', async () => {
    expect(await cfnLintFindings(separateTemplatesOf(stack))).toEqual({ findings: [], stderr: '' });
  }, 120_000);
});

describe('-c identity=cognito -c cognitoAdvancedSecurity=true', () => {
  it('takes the Plus plan with full threat protection, and suppresses nothing about it', () => {
    const { stack: secured } = buildServiceStack({
      bundle: false,
      context: { identity: 'cognito', cognitoAdvancedSecurity: 'true', cognitoDomainPrefix: 'acme-staff' },
    });
    const pools = wholeTemplateOf(secured).findResources('AWS::Cognito::UserPool');
    const [pool] = Object.values(pools) as Resource[];

    expect(pool?.Properties).toMatchObject({
      UserPoolTier: 'PLUS',
      UserPoolAddOns: { AdvancedSecurityMode: 'ENFORCED' },
    });
    expect(pool?.Metadata?.cdk_nag).toBeUndefined();
    wholeTemplateOf(secured).hasResourceProperties('AWS::Cognito::UserPoolDomain', { Domain: 'acme-staff' });
  });
});
