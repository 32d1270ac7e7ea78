import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  AssetHashType,
  DefaultStackSynthesizer,
  DockerImage,
  Duration,
  Names,
  RemovalPolicy,
  Stack,
  type CfnElement,
} from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  S3OriginAccessControl,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import {
  dashboardContentSecurityPolicy,
  dashboardStaticHeaders,
  HSTS_MAX_AGE_SECONDS,
} from './dashboard-security-headers.ts';
import { repoRoot } from './repo-root.ts';

/**
 * What the BucketDeployment invalidates after each deploy: the files whose names do not change
 * between builds. Vite names everything under `assets/` by its content, so a new build brings new
 * addresses there and nothing cached is stale. `/` is separate from `/index.html`: CloudFront caches
 * the default root object under the viewer's path, `/`, and CACHING_OPTIMIZED keeps it for a day,
 * so without it a redeploy would go on serving the old page (naming the old, deleted, assets).
 * Invalidating rather than `Cache-Control: no-cache` on these files keeps one BucketDeployment
 * (metadata applies to every file of a deployment) and the managed cache policy.
 */
export const dashboardInvalidationPaths = ['/', '/index.html', '/dashboard-config.json'] as const;

/**
 * The objects of the CDK's asset bucket (`cdk bootstrap`'s) as an IAM5 finding names them, whatever the synth
 * knew of the stack's environment: partition, account and region each a token (an environment-agnostic stack)
 * or a literal (the edge gives the stack a region, and the account when the CLI found credentials).
 */
function cdkAssetsBucketObjects(stack: Stack): string {
  const qualifier = stack.synthesizer.bootstrapQualifier ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER;
  return `/^Resource::arn:(<AWS::Partition>|aws[a-z-]*):s3:::cdk-${qualifier}-assets-(<AWS::AccountId>|\\d{12})-(<AWS::Region>|[a-z]{2}(-[a-z]+)+-\\d+)\\/\\*$/`;
}

/** Longest region name to leave room for in a name (`us-isof-south-1` is 15). */
const REGION_NAME_ROOM = 20;

/**
 * A name for a CloudFront resource whose names are unique per account, not per region (response
 * headers, cache and origin request policies, origin access controls): the CDK's default name is
 * the stack's name and construct path, the same for one stage in two regions, so the second deploy
 * would fail on the name. This one is unique per stack and construct path (`Names.uniqueResourceName`)
 * and ends with the stack's region.
 */
export function regionalCloudFrontName(scope: Construct, suffix: string, maxLength: number): string {
  const base = Names.uniqueResourceName(scope, {
    maxLength: maxLength - suffix.length - REGION_NAME_ROOM - 2,
    separator: '-',
  });
  return `${base}-${suffix}-${Stack.of(scope).region}`;
}

export interface DashboardConstructProps {
  /** The HTTP API, served on the dashboard's origin under `/v1/*` (no CORS). */
  readonly httpApi: IHttpApi;
  /** Where the access logs of the dashboard's bucket go. */
  readonly accessLogsBucket: IBucket;
  /** OpenID Connect: the issuer (discovery document at `{issuer}/.well-known/openid-configuration`) and this app's client id. */
  readonly oidc: {
    issuer: string;
    clientId: string;
    scope: string;
    /** What the sandbox switch adds to `scope` (docs/dashboard.md#the-sandbox-switch). */
    sandboxScope: string;
    audience?: string | undefined;
    /** Where sign-out ends the provider's session when discovery does not say (Cognito's `/logout`). */
    endSessionEndpoint?: string | undefined;
  };
  /**
   * The identity provider's origins the page talks to (discovery, token endpoint): the CSP's
   * connect-src names exactly these (lib/dashboard-security-headers.ts, identityProviderConnectSources).
   */
  readonly identityProviderOrigins: readonly string[];
  /** The API's host when it has a custom domain (the execute-api endpoint is then disabled). */
  readonly apiOriginDomainName?: string;
  /** Headers CloudFront adds to every `/v1/*` request (the edge's origin-verify header). */
  readonly apiOriginHeaders?: Record<string, string>;
  /** The AWS WAF web ACL (CLOUDFRONT scope) in front of the distribution. */
  readonly webAclArn?: string;
}

/**
 * The organization dashboard in AWS: the built single-page app (web/, Vite) in a private bucket
 * read by CloudFront through origin access control, `/v1/*` routed to the HTTP API on the same
 * origin, and security headers (CSP without inline scripts, HSTS, frame-ancestors 'none') on
 * every answer. `dashboardUrl` is the address staff open.
 */
export class DashboardConstruct extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly responseHeadersPolicy: ResponseHeadersPolicy;
  /** The edge's web ACL guards the distribution (`-c edgeProtection`). */
  readonly hasWebAcl: boolean;
  /** `dashboard-config.json`, deployed beside the app: how it signs staff in. */
  readonly signInConfig: Record<string, string>;

  constructor(scope: Construct, id: string, props: DashboardConstructProps) {
    super(scope, id);
    const region = Stack.of(this).region;
    this.hasWebAcl = props.webAclArn !== undefined;
    // Access logs go to the reports' log bucket, which takes deliveries by bucket policy (no ACLs).
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);

    this.bucket = new Bucket(this, 'AssetsBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'dashboard-bucket/',
      // Kept on `cdk destroy` like every bucket of the stack (BucketDeployment leaves its files in it).
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.responseHeadersPolicy = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      responseHeadersPolicyName: regionalCloudFrontName(this, 'headers', 128),
      comment: 'Dashboard: CSP without inline scripts, HSTS, no framing',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          override: true,
          contentSecurityPolicy: dashboardContentSecurityPolicy({
            // Pre-signed addresses are virtual-hosted (`{bucket}.s3.{region}.amazonaws.com`). Naming the
            // reports bucket itself would be a dependency cycle (its CORS rule names this distribution).
            connectSources: [`https://*.s3.${region}.amazonaws.com`, ...props.identityProviderOrigins],
          }),
        },
        strictTransportSecurity: {
          override: true,
          accessControlMaxAge: Duration.seconds(HSTS_MAX_AGE_SECONDS),
          includeSubdomains: true,
          preload: true,
        },
        frameOptions: { override: true, frameOption: HeadersFrameOption.DENY },
        contentTypeOptions: { override: true },
        referrerPolicy: { override: true, referrerPolicy: HeadersReferrerPolicy.NO_REFERRER },
      },
      customHeadersBehavior: {
        customHeaders: [
          { header: 'Permissions-Policy', value: dashboardStaticHeaders['permissions-policy'], override: true },
          {
            header: 'Cross-Origin-Opener-Policy',
            value: dashboardStaticHeaders['cross-origin-opener-policy'],
            override: true,
          },
        ],
      },
    });

    const originAccessControl = new S3OriginAccessControl(this, 'OriginAccessControl', {
      originAccessControlName: regionalCloudFrontName(this, 'oac', 64),
      description: 'The dashboard distribution reads the dashboard bucket',
    });
    const apiOrigin = new HttpOrigin(
      props.apiOriginDomainName ?? `${props.httpApi.apiId}.execute-api.${region}.amazonaws.com`,
      {
        protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
        ...(props.apiOriginHeaders ? { customHeaders: props.apiOriginHeaders } : {}),
      },
    );
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Organization dashboard and /v1/* API',
      ...(props.webAclArn ? { webAclId: props.webAclArn } : {}),
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket, { originAccessControl }),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.responseHeadersPolicy,
        compress: true,
      },
      additionalBehaviors: {
        // The API on the same origin: never cached, every header but Host (API Gateway routes on its own host) passed on.
        '/v1/*': {
          origin: apiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: this.responseHeadersPolicy,
          compress: true,
        },
      },
    });

    this.signInConfig = {
      signIn: 'oidc',
      issuer: props.oidc.issuer,
      clientId: props.oidc.clientId,
      scope: props.oidc.scope,
      sandboxScope: props.oidc.sandboxScope,
      ...(props.oidc.audience ? { audience: props.oidc.audience } : {}),
      ...(props.oidc.endSessionEndpoint ? { endSessionEndpoint: props.oidc.endSessionEndpoint } : {}),
    };
    new BucketDeployment(this, 'Assets', {
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: [...dashboardInvalidationPaths],
      memoryLimit: 512,
      sources: [
        Source.asset(join(repoRoot, 'web'), {
          exclude: ['dist', 'node_modules'],
          // The build also takes in client/: hash what it produced (Vite names files by content).
          assetHashType: AssetHashType.OUTPUT,
          bundling: {
            // Built on this machine with the project's own Vite; the image is never pulled.
            image: DockerImage.fromRegistry('none'),
            local: {
              tryBundle: (outputDir) => {
                buildDashboard(outputDir);
                return true;
              },
            },
          },
        }),
        Source.jsonData('dashboard-config.json', this.signInConfig),
      ],
    });
  }

  /** The address staff open: `https://{distribution domain}/`. */
  get dashboardUrl(): string {
    return `https://${this.distribution.distributionDomainName}/`;
  }

  /** The origin the page runs on, for CORS rules (the reports bucket's). */
  get origin(): string {
    return `https://${this.distribution.distributionDomainName}`;
  }

  /** Suppresses cdk-nag findings that do not fit a dashboard of this shape, each with its reason. */
  static suppressNagFindings(scope: DashboardConstruct): void {
    const stack = Stack.of(scope);
    // The CDK's BucketDeployment handler: one singleton per stack, running only while a deploy uploads the app.
    const assetsBucketArn = `<${stack.getLogicalId(scope.bucket.node.defaultChild as CfnElement)}.Arn>`;
    for (const helper of stack.node.children.filter((child) =>
      child.node.id.startsWith('Custom::CDKBucketDeployment'),
    )) {
      NagSuppressions.addResourceSuppressions(
        helper,
        [
          {
            id: 'AwsSolutions-L1',
            reason:
              'The BucketDeployment handler is aws-cdk-lib’s own (Python, with the AWS CLI layer); its runtime moves with the library and it runs only during deploys.',
          },
          {
            id: 'AwsSolutions-IAM4',
            reason: 'aws-cdk-lib gives its BucketDeployment handler the basic execution role to write its own logs.',
            appliesTo: ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'],
          },
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'aws-cdk-lib grants its BucketDeployment handler reads of the CDK asset bucket, writes to the dashboard bucket (any key: the build names its files) and CloudFront invalidations (not resource-scoped by the CDK).',
            appliesTo: [
              'Action::s3:GetObject*',
              'Action::s3:GetBucket*',
              'Action::s3:List*',
              'Action::s3:DeleteObject*',
              'Action::s3:Abort*',
              { regex: cdkAssetsBucketObjects(stack) },
              `Resource::${assetsBucketArn}/*`,
              'Resource::*',
            ],
          },
        ],
        true,
      );
    }
    NagSuppressions.addResourceSuppressionsByPath(stack, `${scope.node.path}/Distribution/Resource`, [
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Staff of an organization sign in from anywhere; access is decided by OpenID Connect, not by country.',
      },
      ...(scope.hasWebAcl
        ? []
        : [
            {
              id: 'AwsSolutions-CFR2',
              reason:
                'The edge is off (-c edgeProtection=false, the default outside prod): /v1/* is guarded by the stage throttle, the token checks and each organization’s request budget; prod attaches the web ACL of lib/edge-web-acl-stack.ts.',
            },
          ]),
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Every /v1/* call is logged by the HTTP API stage (JSON access log with request id); CloudFront standard logs need an ACL-enabled bucket, which this stack does not keep. The assets bucket has S3 access logs.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The default *.cloudfront.net certificate is used (no custom domain in this stack): CloudFront then allows TLSv1 for the viewer side whatever minimumProtocolVersion says.',
      },
    ]);
  }
}

/**
 * `vite build` of web/ into `outDir`, with the Vite and Node.js of this project. Stops the synth if
 * the build left a source map: CloudFront serves every file of the bucket to anyone (web/vite.config.ts emits none).
 */
export function buildDashboard(outDir: string): void {
  execFileSync(
    process.execPath,
    [
      join(repoRoot, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      join(repoRoot, 'web/vite.config.ts'),
      '--outDir',
      outDir,
      '--emptyOutDir',
    ],
    { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const maps = readdirSync(outDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.map'));
  if (maps.length > 0) {
    throw new Error(`The dashboard build emitted source maps (${maps.join(', ')}): they must not be deployed`);
  }
}
