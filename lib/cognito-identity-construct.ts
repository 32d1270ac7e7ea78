import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AccountRecovery,
  ClientAttributes,
  CfnManagedLoginBranding,
  CfnUserPoolGroup,
  FeaturePlan,
  LambdaVersion,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  ResourceServerScope,
  StandardThreatProtectionMode,
  StringAttribute,
  UserPool,
  UserPoolClient,
  UserPoolClientIdentityProvider,
  UserPoolDomain,
  UserPoolOperation,
  UserPoolResourceServer,
} from 'aws-cdk-lib/aws-cognito';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { preTokenGenerationFunction } from '#shared/config/api-routes.ts';
import {
  COGNITO_RESOURCE_SERVER_ID,
  COGNITO_SCOPE_PREFIX,
  COGNITO_ROLE_CLAIM,
  machineClientsTable,
  ORGANIZATION_ATTRIBUTE,
} from '#shared/config/cognito-identity.ts';
import { ROLE_SCOPES, ROLES, SCOPES } from '#shared/domain/identity/staff-roles.ts';
import { SANDBOX_SCOPE } from '#shared/domain/identity/tenant.ts';
import { ServiceFunction } from './service-function.ts';
import { ServiceTable } from './service-table.ts';

export interface CognitoIdentityConstructProps {
  readonly stage: string;
  /** Managed login domain prefix; default `onboarding-{stage}-{account}` (unique per account, stage and region). */
  readonly domainPrefix?: string | undefined;
  /** Threat protection (the Plus feature plan) instead of the Essentials plan. */
  readonly advancedSecurity: boolean;
  /**
   * The dashboard's address, its sign-in callback and sign-out URL. Lazy in the stack: the dashboard's
   * distribution is built after this construct (its CSP names this pool's domain).
   */
  readonly dashboardUrl: string;
}

/**
 * `-c identity=cognito`: a Cognito user pool for staff and machine clients. Staff are invited by an
 * administrator (no self sign-up) and carry their organization in `custom:org_id`, which no app
 * client may write; they sign in through managed login with TOTP as a second factor. The dashboard
 * is a public client (authorization code + PKCE, no secret). Machine clients (client credentials)
 * are added per organization by `npm run org:add`, which records each in the MachineClients table.
 * A pre-token-generation trigger (event version 3, the one Cognito also sends for client-credentials
 * tokens) puts the organization claim into every access token. The resource server `onboarding-api`
 * carries every API scope and `sandbox`; Cognito names them `onboarding-api/<scope>` (the API's SCOPE_PREFIX).
 */
export class CognitoIdentityConstruct extends Construct {
  readonly userPool: UserPool;
  readonly domain: UserPoolDomain;
  readonly resourceServer: UserPoolResourceServer;
  readonly dashboardClient: UserPoolClient;
  readonly roleGroups: readonly CfnUserPoolGroup[];
  readonly machineClients: ServiceTable;
  readonly preTokenGeneration: ServiceFunction;

  constructor(scope: Construct, id: string, props: CognitoIdentityConstructProps) {
    super(scope, id);

    this.machineClients = new ServiceTable(this, machineClientsTable);
    // What it reaches and the claim it writes are its declared needs (`machineClients:lookup`, `organizationClaim`).
    this.preTokenGeneration = new ServiceFunction(this, preTokenGenerationFunction.name, {
      entry: preTokenGenerationFunction.entry,
      description: 'Cognito pre-token-generation: puts the organization claim into access tokens',
      // Cognito waits at most 5 s for a trigger.
      timeout: Duration.seconds(5),
    });

    this.userPool = new UserPool(this, 'UserPool', {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      // Written by administrators only (AdminCreateUser in org:add): no app client has it in its write attributes.
      customAttributes: { [ORGANIZATION_ATTRIBUTE]: new StringAttribute({ minLen: 1, maxLen: 64, mutable: true }) },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(7),
      },
      mfa: Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // Access token customisation (V2/V3 trigger events) needs Essentials; threat protection needs Plus.
      featurePlan: props.advancedSecurity ? FeaturePlan.PLUS : FeaturePlan.ESSENTIALS,
      ...(props.advancedSecurity ? { standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION } : {}),
      // No dashboard address here: the pool would depend on the distribution, whose CSP names the pool's domain.
      userInvitation: {
        emailSubject: 'Your organization dashboard account',
        emailBody:
          "You have been invited to your organization's dashboard. Sign in with {username} and the temporary " +
          'password {####}, then choose your own password and set up an authenticator app.',
      },
      deletionProtection: true,
      // Staff accounts outlive a mistaken `cdk destroy`, like the tables.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Cognito invokes the live alias, which CodeDeploy moves to each new version (lib/safe-deployments-construct.ts);
    // its invoke permission for cognito-idp is the alias's too.
    this.userPool.addTrigger(
      UserPoolOperation.PRE_TOKEN_GENERATION_CONFIG,
      this.preTokenGeneration.invokedAlias,
      LambdaVersion.V3_0,
    );

    this.resourceServer = this.userPool.addResourceServer('Api', {
      identifier: COGNITO_RESOURCE_SERVER_ID,
      userPoolResourceServerName: 'Onboarding and reports API',
      // `sandbox`: every token of an organization's sandbox client (org:add), and the dashboard's sandbox switch.
      scopes: [...SCOPES, SANDBOX_SCOPE].map(
        (scopeName) => new ResourceServerScope({ scopeName, scopeDescription: `API scope ${scopeName}` }),
      ),
    });

    // One group per staff role (contract §20): the trigger grants a member their role's scopes alone,
    // and Cognito names the groups in `cognito:groups`, the API's ROLE_CLAIM. Membership is an
    // administrator's call (AdminAddUserToGroup: org:add, staff:role); no app client can change it.
    this.roleGroups = ROLES.map(
      (role) =>
        new CfnUserPoolGroup(this, `RoleGroup${role[0]!.toUpperCase()}${role.slice(1)}`, {
          userPoolId: this.userPool.userPoolId,
          groupName: role,
          description: `Staff role ${role}: ${ROLE_SCOPES[role].join(' ')}`,
        }),
    );

    this.domain = this.userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: props.domainPrefix ?? `onboarding-${props.stage}-${Aws.ACCOUNT_ID}` },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });

    this.dashboardClient = this.userPool.addClient('DashboardClient', {
      userPoolClientName: 'dashboard',
      generateSecret: false,
      // Managed login only: the page never handles a password.
      authFlows: {},
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [
          OAuthScope.OPENID,
          OAuthScope.EMAIL,
          // `sandbox` only when the dashboard's sandbox switch asks for it; the trigger keeps it for role groups.
          ...[...SCOPES.filter((scope) => scope !== 'onboarding:redeem'), SANDBOX_SCOPE].map((scope) =>
            OAuthScope.resourceServer(
              this.resourceServer,
              new ResourceServerScope({ scopeName: scope, scopeDescription: `API scope ${scope}` }),
            ),
          ),
        ],
        callbackUrls: [props.dashboardUrl],
        logoutUrls: [props.dashboardUrl],
      },
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.hours(12),
      readAttributes: new ClientAttributes()
        .withStandardAttributes({ email: true, emailVerified: true })
        .withCustomAttributes(ORGANIZATION_ATTRIBUTE),
      // Staff may not change their own organization: only e-mail (a required attribute must stay writable).
      writeAttributes: new ClientAttributes().withStandardAttributes({ email: true }),
    });
    // Managed login (version 2) shows a client's pages only once the client has a style: Cognito's own.
    new CfnManagedLoginBranding(this, 'DashboardLoginStyle', {
      userPoolId: this.userPool.userPoolId,
      clientId: this.dashboardClient.userPoolClientId,
      useCognitoProvidedValues: true,
    });

    if (!props.advancedSecurity) {
      NagSuppressions.addResourceSuppressions(this.userPool, [
        {
          id: 'AwsSolutions-COG3',
          reason:
            'Threat protection needs the Plus feature plan (billed per active user); staff sign in with a password and a required TOTP factor. Turn it on with -c cognitoAdvancedSecurity=true.',
        },
      ]);
    }
  }

  /** `iss` of the pool's tokens: `https://cognito-idp.{region}.amazonaws.com/{userPoolId}`. */
  get issuer(): string {
    return this.userPool.userPoolProviderUrl;
  }

  get jwksUrl(): string {
    return `${this.issuer}/.well-known/jwks.json`;
  }

  /** Managed login's origin, `https://{prefix}.auth.{region}.amazoncognito.com`: the token endpoint lives there. */
  get loginOrigin(): string {
    return this.domain.baseUrl();
  }

  get tokenEndpoint(): string {
    return `${this.loginOrigin}/oauth2/token`;
  }

  /** Where the dashboard ends the managed login session (`client_id` and `logout_uri` as parameters). */
  get logoutEndpoint(): string {
    return `${this.loginOrigin}/logout`;
  }

  /** The API's token settings for this pool (shared/config/auth-config.ts). */
  get apiAuthEnvironment(): Record<string, string> {
    return {
      JWT_ISSUER: this.issuer,
      JWKS_URL: this.jwksUrl,
      JWT_CLIENT_IDS: this.dashboardClient.userPoolClientId,
      SCOPE_PREFIX: COGNITO_SCOPE_PREFIX,
      ROLE_CLAIM: COGNITO_ROLE_CLAIM,
    };
  }

  /**
   * Lets a function tell which organization a machine client acts for: GetItem on the MachineClients
   * table alone, and its name in MACHINE_CLIENTS_TABLE_NAME (the trigger's `machineClients:lookup` need, and every
   * authenticated route's).
   */
  grantClientLookup(fn: LambdaFunction): void {
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['dynamodb:GetItem'], resources: [this.machineClients.tableArn] }),
    );
    fn.addEnvironment(machineClientsTable.envVar, this.machineClients.tableName);
  }
}
