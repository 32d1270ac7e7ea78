import { NestedStack, type NestedStackProps } from 'aws-cdk-lib';
import type { LambdaApplication } from 'aws-cdk-lib/aws-codedeploy';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { ApiRoute } from '#shared/config/api-routes.ts';
import { AlarmsConstruct } from './alarms-construct.ts';
import type { ApiConstruct } from './api-construct.ts';
import type { DataConstruct } from './data-construct.ts';
import { SafeDeploymentsConstruct, type SafeDeploymentsProps } from './safe-deployments-construct.ts';
import { SandboxWipeConstruct } from './sandbox-wipe-construct.ts';
import type { ServiceFunction } from './service-function.ts';
import type { UsersDatabaseConstruct } from './users-database-construct.ts';

export interface SandboxStackProps extends NestedStackProps {
  readonly api: ApiConstruct;
  readonly data: DataConstruct;
  readonly reportsBucket: IBucket;
  readonly usersDatabase: UsersDatabaseConstruct;
  /** The parent's alarm topic; none when the stage has no alarm e-mail. */
  readonly alarmTopic: ITopic | undefined;
  /** How the parent's functions roll out, and its CodeDeploy application, which the sandbox's groups join. */
  readonly rollout: Omit<SafeDeploymentsProps, 'application'> & { readonly application: LambdaApplication };
}

/**
 * The sandbox (contract §23, docs/sandbox.md) in a nested stack of its own: its routes' functions, their routes and
 * integrations, their alarms and deployment groups, and the wipe's queues and consumer. A stack holds at most 500
 * resources and a route costs about ten: the parent stays under the limit (docs/architecture.md, "Stacks").
 *
 * Everything here that names a sandbox function lives here too: a parent resource naming one would make the parent
 * wait for this stack, which itself waits for the parent's tables, API and topic. So the routes, the alarms and the
 * CodeDeploy groups (with their own pre-traffic hooks and role) are made here, and grants are on the functions' roles.
 * The route functions themselves are built by ServiceStack, as every other route's, in this scope.
 */
export class SandboxStack extends NestedStack {
  readonly wipes: SandboxWipeConstruct;
  readonly alarms: AlarmsConstruct;
  readonly deployments: SafeDeploymentsConstruct;
  private readonly api: ApiConstruct;

  constructor(scope: Construct, id: string, props: SandboxStackProps) {
    super(scope, id, props);
    this.api = props.api;
    // Construct ids apart from the parent's (SandboxAlarms, SandboxDeployments): no logical id is in both templates.
    this.wipes = new SandboxWipeConstruct(this, 'SandboxWipes', {
      onboardingTokens: props.data.tables.OnboardingTokens,
      reportJobs: props.data.tables.ReportJobs,
      webhooks: props.data.tables.Webhooks,
      reportsBucket: props.reportsBucket,
      usersDatabase: props.usersDatabase,
    });
    this.alarms = new AlarmsConstruct(this, 'SandboxAlarms', {
      ...(props.alarmTopic ? { notifiedTopic: props.alarmTopic } : {}),
      // A route function's failure is a 5XX answer, which the parent's API alarm pages for.
      functions: [this.wipes.consumer],
    });
    // A wipe whose runs kept failing: the sandbox's next DELETE /v1/sandbox sends it again, but nothing else will.
    this.alarms.addDeadLetterQueueAlarm(this.wipes.deadLetterQueue);
    this.deployments = new SafeDeploymentsConstruct(this, 'SandboxDeployments', props.rollout);
  }

  /** Routes `route` to `fn` (a function of this stack) through the parent's HTTP API, the route made here. */
  addRoute(route: ApiRoute, fn: ServiceFunction): void {
    this.api.addRoute(route, fn.invokedAlias, this);
  }
}
