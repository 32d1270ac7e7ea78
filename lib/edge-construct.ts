import { CfnOutput, SecretValue, Stack, Token } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { ORIGIN_VERIFY_HEADER } from '#shared/config/origin-verify.ts';
import { EdgeWebAclStack } from './edge-web-acl-stack.ts';
import type { ServiceFunction } from './service-function.ts';

export interface EdgeConstructProps {
  /** Requests one client IP may send to `/v1/*` in any 60 seconds (context `edgeRateLimitPerIp`). */
  readonly rateLimitPerIp: number;
  /** Requests one `Authorization` value may send in any 60 seconds (context `edgeRateLimitPerAuthorization`). */
  readonly rateLimitPerAuthorization: number;
  /** The secret's version to deploy after a rotation (context `originVerifySecretVersion`); default AWSCURRENT. */
  readonly originVerifySecretVersion?: string;
}

/**
 * The edge of `-c edgeProtection=true`: the web ACL (its own stack in us-east-1, deployed first by the
 * same `cdk deploy`), and the origin-verify secret CloudFront sends to the API and the functions
 * accept (shared/http/origin-verify.ts). The dashboard's distribution, which already serves `/v1/*`
 * on its origin, is the API's CloudFront: one origin for the page and the API, no CORS.
 */
export class EdgeConstruct extends Construct {
  readonly webAclStack: EdgeWebAclStack;
  /** `{"current": ..., "previous": ...}`: CloudFront sends `current`, the functions accept both. */
  readonly originVerifySecret: Secret;
  /** The web ACL's ARN, read in this stack's region through a cross-region reference. */
  readonly webAclArn: string;
  /** What CloudFront adds to every request it forwards to the API. */
  readonly apiOriginHeaders: Record<string, string>;
  /** `ORIGIN_VERIFY_SECRETS`: the secret's JSON, resolved at deploy. */
  readonly functionEnvironment: Record<string, string>;

  constructor(scope: Construct, id: string, props: EdgeConstructProps) {
    super(scope, id);
    const stack = Stack.of(this);
    if (Token.isUnresolved(stack.region)) {
      throw new Error(
        'edgeProtection needs the stack’s region at synth (the web ACL lives in us-east-1 and is referenced across ' +
          'regions): deploy with a region configured (AWS_REGION or the profile’s), or -c edgeProtection=false',
      );
    }
    const app = stack.node.scope;
    if (!app) throw new Error('the service stack must belong to an app');
    this.webAclStack = new EdgeWebAclStack(app, `${stack.stackName}-edge`, {
      env: { ...(Token.isUnresolved(stack.account) ? {} : { account: stack.account }), region: 'us-east-1' },
      crossRegionReferences: true,
      description: `AWS WAF web ACL of ${stack.stackName}'s CloudFront distribution (CLOUDFRONT scope: us-east-1)`,
      rateLimitPerIp: props.rateLimitPerIp,
      rateLimitPerAuthorization: props.rateLimitPerAuthorization,
    });
    stack.addStackDependency(this.webAclStack, 'the distribution uses the web ACL');
    this.webAclArn = this.webAclStack.webAcl.attrArn;

    this.originVerifySecret = new Secret(this, 'OriginVerifySecret', {
      description: `Origin-verify header values of ${stack.stackName}: {"current", "previous"} (docs/deploy.md)`,
      generateSecretString: {
        secretStringTemplate: '{}',
        generateStringKey: 'current',
        excludePunctuation: true,
        passwordLength: 64,
      },
    });
    new CfnOutput(this, 'OriginVerifySecretArn', {
      value: this.originVerifySecret.secretArn,
      description: 'Secrets Manager secret of the origin-verify header: rotate it as docs/deploy.md says',
    }).overrideLogicalId('OriginVerifySecretArn');
    NagSuppressions.addResourceSuppressions(this.originVerifySecret, [
      {
        id: 'AwsSolutions-SMG4',
        reason:
          'Rotated by the operator in two steps (new value in current, old in previous, then cdk deploy with its version id) because CloudFront only sends a new value once the distribution is redeployed; a rotation Lambda would change it under CloudFront and refuse every call until then.',
      },
    ]);
    // Resolved by CloudFormation at deploy: a changed version id in the template is what makes CloudFront and the
    // functions pick a rotated value up; neither reads Secrets Manager at run time.
    const version = props.originVerifySecretVersion ? { versionId: props.originVerifySecretVersion } : {};
    this.apiOriginHeaders = {
      [ORIGIN_VERIFY_HEADER]: SecretValue.secretsManager(this.originVerifySecret.secretArn, {
        jsonField: 'current',
        ...version,
      }).unsafeUnwrap(),
    };
    this.functionEnvironment = {
      ORIGIN_VERIFY_SECRETS: SecretValue.secretsManager(this.originVerifySecret.secretArn, version).unsafeUnwrap(),
    };
  }

  /** Makes `fn` refuse requests that did not come through the distribution. */
  guard(fn: ServiceFunction): void {
    for (const [name, value] of Object.entries(this.functionEnvironment)) fn.addEnvironment(name, value);
  }
}
