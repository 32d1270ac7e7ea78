import { CfnOutput, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogField, AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiMapping,
  DomainName,
  HttpApi,
  HttpMethod,
  SecurityPolicy,
  HttpRoute,
  HttpRouteKey,
  LogGroupLogDestination,
  type HttpStage,
  type ThrottleSettings,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { ApiRoute } from '#shared/config/api-routes.ts';

export interface ApiConstructProps {
  /** Answers every path or method no route matches (the `$default` route). */
  readonly fallback: IFunction;
  /** @default 1,000 requests per second, bursts of 2,000 */
  readonly throttle?: ThrottleSettings;
  /** @default one month */
  readonly accessLogRetention?: RetentionDays;
  /** Serves the API on this domain (a regional API Gateway domain) and disables the execute-api endpoint. */
  readonly customDomain?: { readonly domainName: string; readonly certificateArn: string };
}

/** One line per request: enough to trace a request id and find slow or failing routes, no personal data. */
export const accessLogFormat = AccessLogFormat.custom(
  JSON.stringify({
    requestId: AccessLogField.contextRequestId(),
    requestTime: AccessLogField.contextRequestTime(),
    httpMethod: AccessLogField.contextHttpMethod(),
    path: AccessLogField.contextPath(),
    routeKey: '$context.routeKey',
    status: AccessLogField.contextStatus(),
    latency: '$context.responseLatency',
    integrationLatency: AccessLogField.contextIntegrationLatency(),
    integrationError: '$context.integrationErrorMessage',
    responseLength: AccessLogField.contextResponseLength(),
  }),
);

/**
 * Authentication is not done by API Gateway: each function verifies the JWT with `jose`, because
 * the contract fixes the exact 401/403 bodies, which a gateway authorizer cannot produce.
 * (AwsSolutions-COG4 only inspects REST API methods, so HTTP API routes need no suppression for it.)
 */
const inLambdaAuthSuppressions = [
  {
    id: 'AwsSolutions-APIG4',
    reason:
      'Authorization is enforced inside the function: the JWT is verified with jose (issuer, audience, JWKS, scopes) so the contract’s exact 401/403 bodies can be returned; an API Gateway authorizer would answer with its own body.',
  },
];

/** Public routes (the OpenAPI document) need no authorization at all. */
const publicRouteSuppressions = [
  {
    id: 'AwsSolutions-APIG4',
    reason:
      'A public route by design: it serves the API’s OpenAPI document, which is bundled into its function; the function reads no data and has no permission beyond its own logs.',
  },
];

/** The HTTP API: `$default` stage with access logs and throttling, one Lambda per route, a fallback. */
export class ApiConstruct extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;
  /** The custom domain, when one is given. */
  readonly domainName?: DomainName;
  /**
   * The API's own address, without a final `/`: its custom domain, else the execute-api endpoint. Behind the edge
   * it is the origin, which clients must not call (lib/service-stack.ts outputs both).
   */
  readonly origin: string;

  constructor(scope: Construct, id: string, props: ApiConstructProps) {
    super(scope, id);
    this.httpApi = new HttpApi(this, 'HttpApi', {
      // The stack's name carries the stage, so two stages' APIs are told apart in the console.
      apiName: `${Stack.of(this).stackName}-api`,
      description: 'Onboarding tokens, report jobs and user status',
      createDefaultStage: false,
      // With its own domain, the API answers there alone: nobody can reach it around the domain's settings.
      disableExecuteApiEndpoint: props.customDomain !== undefined,
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 1_000, burstLimit: 2_000 },
      accessLogSettings: { destination: new LogGroupLogDestination(this.accessLogs), format: accessLogFormat },
    });

    if (props.customDomain) {
      this.domainName = new DomainName(this, 'DomainName', {
        domainName: props.customDomain.domainName,
        certificate: Certificate.fromCertificateArn(this, 'Certificate', props.customDomain.certificateArn),
        securityPolicy: SecurityPolicy.TLS_1_2,
      });
      new ApiMapping(this, 'ApiMapping', { api: this.httpApi, domainName: this.domainName, stage: this.stage });
      new CfnOutput(this, 'ApiDomainTarget', {
        value: this.domainName.regionalDomainName,
        description: `Point ${props.customDomain.domainName} here (a CNAME, or a Route 53 alias)`,
      }).overrideLogicalId('ApiDomainTarget');
    }

    // Without it API Gateway answers unmatched requests with its own `{"message":"Not Found"}`.
    const fallbackRoute = new HttpRoute(this, 'DefaultRoute', {
      httpApi: this.httpApi,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration('DefaultIntegration', props.fallback),
    });
    NagSuppressions.addResourceSuppressions(fallbackRoute, [
      {
        id: 'AwsSolutions-APIG4',
        reason:
          'The $default route only answers unmatched paths and methods with the contract’s 404/405 body; it reads no data.',
      },
    ]);

    this.origin = props.customDomain ? `https://${props.customDomain.domainName}` : this.httpApi.apiEndpoint;
  }

  /**
   * Routes `route.method route.path` to `fn`; the function itself authenticates the caller, unless the route is public.
   * The route and its integration are made in `scope` when given (a nested stack's routes stay in that stack).
   */
  addRoute(route: ApiRoute, fn: IFunction, scope?: Construct): HttpRoute[] {
    const integration = new HttpLambdaIntegration(`${route.name}Integration`, fn);
    const routes = scope
      ? [
          new HttpRoute(scope, `${route.name}Route`, {
            httpApi: this.httpApi,
            routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
            integration,
          }),
        ]
      : this.httpApi.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration });
    const suppressions = route.public ? publicRouteSuppressions : inLambdaAuthSuppressions;
    for (const httpRoute of routes) NagSuppressions.addResourceSuppressions(httpRoute, suppressions);
    return routes;
  }
}
