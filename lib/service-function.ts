import { DEFAULT_API_TIMEOUT_SECONDS } from '#shared/config/api-routes.ts';
import path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import {
  Alias,
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { lambdaBundlingWith } from './bundling.ts';
import { repoRoot } from './repo-root.ts';

export const serviceName = 'onboarding-reports-service';

export interface ServiceFunctionProps {
  /** Entry file relative to the repository root, e.g. `functions/create-onboarding-token.ts`. */
  readonly entry: string;
  readonly description?: string;
  /** @default 10 seconds */
  readonly timeout?: Duration;
  /** @default 1024 MB (on ARM64 this also buys CPU, which shortens cold starts) */
  readonly memorySize?: number;
  readonly environment?: Readonly<Record<string, string>>;
  /** @default ApplicationLogLevel.INFO */
  readonly applicationLogLevel?: ApplicationLogLevel;
  /** @default one month */
  readonly logRetention?: RetentionDays;
  /** @default none: the function draws on the account's unreserved concurrency */
  readonly reservedConcurrentExecutions?: number;
  /** Shell commands around the esbuild step, e.g. to copy data files next to the bundle. */
  readonly commandHooks?: ICommandHooks;
  /**
   * @default Tracing.ACTIVE: a trace per invocation (below a second apart per function, Lambda samples every one).
   * PASS_THROUGH records a trace only for an invocation that arrives traced, which none of these does: the
   * every-minute schedules (43,800 traces a month each, nearly all of runs that found nothing to do), the webhook
   * delivery lanes and the API's GET routes, whose traces would cost more than the rest of what they do
   * (docs/cost.md). Their logs and metrics say what each invocation did.
   */
  readonly tracing?: Tracing;
  /** Where Lambda puts an asynchronous invocation's event once its retries are spent. @default none: dropped */
  readonly deadLetterQueue?: IQueue;
  /**
   * @default true: callers invoke the `live` alias, which CodeDeploy moves to each new version (lib/safe-deployments-construct.ts).
   * False for what CloudFormation itself invokes during the deploy (custom resource handlers) and for the deployments'
   * own hooks: a rollout of those could not be watched by anything but the deploy that runs them.
   */
  readonly liveAlias?: boolean;
}

/** The alias every caller of a function invokes (contract §24). */
export const LIVE_ALIAS = 'live';

/**
 * Every Lambda of the service: Node.js 22 on ARM64, one ESM bundle built with `lib/bundling.ts`,
 * JSON logs into its own log group with a retention, and its own role that may write to that log
 * group and nothing else until a grant (`bindTable`, `grantSend...`) adds a permission.
 */
export class ServiceFunction extends NodejsFunction {
  /**
   * The alias API routes, event sources and schedules invoke, on the version `currentVersion` publishes (a new one
   * whenever code or configuration changes). Created once under a fixed id: the alias is updated in place, never
   * replaced, so CodeDeploy shifts its traffic instead of CloudFormation re-creating it.
   */
  readonly live: Alias | undefined;
  /** The function's timeout (the near-timeout alarms' threshold is 80% of it). */
  readonly timeoutDuration: Duration;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    // Created next to the function (they must exist before `super`): an explicit log group gets a
    // retention and no `logs:CreateLogGroup` on `*`; a custom role replaces the managed
    // AWSLambdaBasicExecutionRole (which grants logging on every log group).
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${id}`,
    });
    logGroup.grantWrite(role);

    super(scope, id, {
      entry: path.join(repoRoot, props.entry),
      handler: 'handler',
      projectRoot: repoRoot,
      depsLockFilePath: path.join(repoRoot, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      bundling: lambdaBundlingWith(props.commandHooks),
      timeout: props.timeout ?? Duration.seconds(DEFAULT_API_TIMEOUT_SECONDS),
      memorySize: props.memorySize ?? 1024,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      deadLetterQueue: props.deadLetterQueue,
      description: props.description,
      role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: props.applicationLogLevel ?? ApplicationLogLevel.INFO,
      // INFO keeps the platform's START, REPORT and INIT lines the README's Logs Insights queries read.
      systemLogLevelV2: SystemLogLevel.INFO,
      // X-Ray: a segment per invocation, subsegments per AWS SDK call (shared/observability/tracer.ts).
      tracing: props.tracing ?? Tracing.ACTIVE,
      environment: {
        POWERTOOLS_SERVICE_NAME: serviceName,
        // Error messages stay out of traces: they can quote request data.
        POWERTOOLS_TRACER_CAPTURE_ERROR: 'false',
        // Stack traces in CloudWatch name TypeScript file:line (the map is deployed beside the bundle).
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
    });
    this.timeoutDuration = props.timeout ?? Duration.seconds(DEFAULT_API_TIMEOUT_SECONDS);
    this.live =
      props.liveAlias === false
        ? undefined
        : new Alias(this, 'Live', { aliasName: LIVE_ALIAS, version: this.currentVersion });
    NagSuppressions.addResourceSuppressions(
      role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions',
          appliesTo: ['Resource::*'],
        },
      ],
      true,
    );
  }

  /** The alias, for what must invoke it; throws for a function that has none. */
  get invokedAlias(): Alias {
    if (!this.live) throw new Error(`${this.node.path} has no ${LIVE_ALIAS} alias`);
    return this.live;
  }

  /**
   * One of Lambda's metrics of the version `live` points to after this deploy, as run through the alias
   * (dimensions FunctionName, Resource and ExecutedVersion): during a rollout it counts the new version's
   * invocations alone, so an alarm on it neither fires for the old version nor hides the new one's failures.
   */
  metricOfLiveVersion(metricName: 'Errors' | 'Duration' | 'Throttles', options: MetricOptions = {}): Metric {
    return new Metric({
      namespace: 'AWS/Lambda',
      metricName,
      dimensionsMap: {
        FunctionName: this.functionName,
        Resource: `${this.functionName}:${this.invokedAlias.aliasName}`,
        ExecutedVersion: this.currentVersion.version,
      },
      ...options,
    });
  }
}
