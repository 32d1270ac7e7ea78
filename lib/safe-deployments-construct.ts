import { Duration, Lazy, Stack } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import {
  LambdaApplication,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
  TimeBasedCanaryTrafficRouting,
  type ILambdaDeploymentConfig,
} from 'aws-cdk-lib/aws-codedeploy';
import { Policy, PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { NagSuppressions } from 'cdk-nag';
import { Construct, type IConstruct } from 'constructs';
import { newVersionCheckFunction } from '#shared/config/api-routes.ts';
import type { SyntheticRequestKind } from '#shared/domain/deployments/new-version-check.ts';
import { ServiceFunction } from './service-function.ts';

export interface SafeDeploymentsProps {
  /** Every new version takes all its traffic at once, after its pre-traffic check (context `deployAllAtOnce`). */
  readonly allAtOnce: boolean;
  /** The API functions' canary: this share of traffic first (context `canaryPercent`). */
  readonly canaryPercent: number;
  /** ... for this many minutes, then the rest (context `canaryMinutes`). */
  readonly canaryMinutes: number;
  /** What an API function answers a request without a token: 401, or 403 behind the edge (its origin check first). */
  readonly expectedApiStatus: number;
  /** Another stack's CodeDeploy application to deploy in (a nested stack's groups join the parent's). @default its own */
  readonly application?: LambdaApplication;
}

/** How one function rolls out besides its kind. */
export interface RolloutOptions {
  /** The status this API function answers a request without a token with, when not the kind's. */
  readonly expectedApiStatus?: number;
  /**
   * CodeDeploy's grants on this alias in a policy apart from the others', for a function the others' configuration
   * waits for (the user pool's trigger: the API functions read the pool's ids, and the pool waits for the alias).
   */
  readonly policyOfItsOwn?: boolean;
}

export const HOOK_ENTRY = newVersionCheckFunction.entry;

/**
 * Contract §24: `cdk deploy` moves each function's `live` alias to its new version through CodeDeploy.
 *
 * One CodeDeploy application and one deployment group per function. A group runs one deployment at a time and
 * groups run in parallel, so a stack update that changes forty functions starts forty deployments that never meet
 * ("a conflicting deployment is in progress" comes from two aliases sharing a group). The alias is never
 * re-created (`ServiceFunction` makes it once, on `currentVersion`), so CloudFormation updates it, which is what
 * starts a deployment, instead of replacing it.
 *
 * Before any traffic moves, a hook of the group's kind invokes the new version with a synthetic request and fails
 * the deployment on a wrong answer; while traffic moves, the new version's alarms (its errors, its p99 duration)
 * roll it back. One hook function per kind of request, each allowed to check its own groups' versions only: its
 * declared need (`newVersionChecks`), granted through grantNewVersionChecks once every function is added.
 */
export class SafeDeploymentsConstruct extends Construct {
  readonly application: LambdaApplication;
  /** The deployment group of each function, by function. */
  readonly groups = new Map<ServiceFunction, LambdaDeploymentGroup>();
  /** The pre-traffic hook of each kind of synthetic request. */
  readonly hooks = new Map<SyntheticRequestKind, ServiceFunction>();
  /**
   * What each hook checks: its kind, each function it checks with that function's group in the order added, and
   * whether it was granted them (a function added after that would have a check its hook may not run).
   */
  private readonly checks = new Map<
    ServiceFunction,
    {
      kind: SyntheticRequestKind;
      checked: Array<{ fn: ServiceFunction; group: LambdaDeploymentGroup }>;
      granted: boolean;
    }
  >();
  private readonly props: SafeDeploymentsProps;
  /** API functions that answer a request without a token otherwise (the public document, the unmatched route). */
  private readonly apiStatusByFunction: Record<string, number> = {};

  constructor(scope: Construct, id: string, props: SafeDeploymentsProps) {
    super(scope, id);
    this.props = props;
    this.application = props.application ?? new LambdaApplication(this, 'Application');
  }

  /** Whether a new version shifts traffic over a while (canary or linear), during which its alarms can roll it back. */
  get watchesRollout(): boolean {
    return !this.props.allAtOnce;
  }

  /**
   * Puts `fn`'s `live` alias under CodeDeploy: its pre-traffic check sends a `kind` request; `alarms` (those of its
   * new version) roll it back.
   */
  add(
    fn: ServiceFunction,
    kind: SyntheticRequestKind,
    alarms: readonly IAlarm[],
    options: RolloutOptions = {},
  ): LambdaDeploymentGroup {
    const hook = this.hookFor(kind);
    const checks = this.checks.get(hook)!;
    if (checks.granted)
      throw new Error(
        `${fn.node.path} is added after ${hook.node.path} was granted its checks (grantNewVersionChecks)`,
      );
    if (options.expectedApiStatus !== undefined) this.apiStatusByFunction[fn.functionName] = options.expectedApiStatus;
    const grants = options.policyOfItsOwn
      ? this.allowDeploymentsApartOf(fn, hook)
      : [this.allowDeploymentsOf(fn, hook)];
    const group = new LambdaDeploymentGroup(this, `${fn.node.id}Deployment`, {
      application: this.application,
      alias: fn.invokedAlias,
      deploymentConfig: this.deploymentConfigFor(kind),
      alarms: [...alarms],
      autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: alarms.length > 0 },
      // Immutable as given: aws-cdk-lib would add AWSCodeDeployRoleForLambdaLimited (any alias, any alarm) and an
      // invoke of the hook's every version; the role below holds exactly what this group's deployments need.
      role: this.immutableRole,
    });
    group.addPreHook(hook);
    checks.checked.push({ fn, group });
    // The alarms move to the new version's dimension first: a deployment never starts watching the old one.
    for (const alarm of alarms) fn.invokedAlias.node.addDependency(alarm);
    // And the hook may invoke the new version, and CodeDeploy the hook, before a deployment starts.
    fn.invokedAlias.node.addDependency(hook, ...grants);
    this.groups.set(fn, group);
    return group;
  }

  /**
   * Lets `hook` (its `newVersionChecks` need) check the new versions of the functions added with it: read each
   * deployment's target in their groups alone and invoke exactly the version it deploys. Tells it its kind of
   * request, how long to wait for an answer and, for API functions, the status they answer without a token.
   */
  grantNewVersionChecks(hook: ServiceFunction): void {
    const checks = this.checks.get(hook);
    if (!checks) throw new Error(`${hook.node.path} is no pre-traffic hook of ${this.node.path}`);
    checks.granted = true;
    hook.addEnvironment('SYNTHETIC_REQUEST', checks.kind);
    hook.addEnvironment('INVOCATION_TIMEOUT_MS', String(30_000));
    if (checks.kind === 'api') {
      hook.addEnvironment('EXPECTED_API_STATUS', String(this.props.expectedApiStatus));
      // Function names are known at deploy: the JSON is rendered with them in place.
      hook.addEnvironment(
        'EXPECTED_API_STATUS_BY_FUNCTION',
        Lazy.string({ produce: () => Stack.of(this).toJsonString(this.apiStatusByFunction) }),
      );
    }
    for (const { fn, group } of checks.checked) {
      hook.addToRolePolicy(
        new PolicyStatement({
          actions: ['codedeploy:ListDeploymentTargets', 'codedeploy:GetDeploymentTarget'],
          resources: [group.deploymentGroupArn],
        }),
      );
      fn.currentVersion.grantInvoke(hook);
    }
  }

  /**
   * CodeDeploy's role in every group's deployments (one role: a stack holds at most 500 resources), what
   * AWSCodeDeployRoleForLambdaLimited allows narrowed to this stack: read and move the `live` aliases, invoke the
   * hooks, read alarm states.
   */
  private get serviceRole(): Role {
    if (this.role) return this.role;
    this.role = new Role(this, 'CodeDeployRole', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      description: 'CodeDeploy moves the live aliases of the functions',
    });
    this.role.addToPolicy(new PolicyStatement({ actions: ['cloudwatch:DescribeAlarms'], resources: ['*'] }));
    NagSuppressions.addResourceSuppressions(
      this.role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'cloudwatch:DescribeAlarms reads alarm states and configurations only; CodeDeploy reads the alarms of a deployment by name, and granting it by ARN is not documented to work',
          appliesTo: ['Resource::*'],
        },
      ],
      true,
    );
    return this.role;
  }
  private role: Role | undefined;

  private allowDeploymentsOf(fn: ServiceFunction, hook: ServiceFunction): Role {
    const role = this.serviceRole;
    role.addToPolicy(
      new PolicyStatement({
        actions: ['lambda:GetAlias', 'lambda:UpdateAlias', 'lambda:GetProvisionedConcurrencyConfig'],
        // Spelled out rather than the alias's Ref: the alias waits for this role, which would wait for the alias.
        resources: [`${fn.functionArn}:${fn.invokedAlias.aliasName}`],
      }),
    );
    if (!this.invokableHooks.has(hook)) {
      role.addToPolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [hook.functionArn] }));
      this.invokableHooks.add(hook);
    }
    return role;
  }
  private readonly invokableHooks = new Set<ServiceFunction>();

  /**
   * The grants of `allowDeploymentsOf` in a policy of `fn`'s own, and what its alias waits for: the role and that
   * policy, never the shared policy, which names every other alias.
   */
  private allowDeploymentsApartOf(fn: ServiceFunction, hook: ServiceFunction): IConstruct[] {
    const role = this.serviceRole;
    const policy = new Policy(this, `${fn.node.id}CodeDeployPolicy`, {
      roles: [role],
      statements: [
        new PolicyStatement({
          actions: ['lambda:GetAlias', 'lambda:UpdateAlias', 'lambda:GetProvisionedConcurrencyConfig'],
          resources: [`${fn.functionArn}:${fn.invokedAlias.aliasName}`],
        }),
        new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [hook.functionArn] }),
      ],
    });
    return [role.node.defaultChild!, policy];
  }

  private get immutableRole(): IRole {
    this.roleRef ??= Role.fromRoleArn(this, 'CodeDeployRoleRef', this.serviceRole.roleArn, { mutable: false });
    return this.roleRef;
  }
  private roleRef: IRole | undefined;

  private hookFor(kind: SyntheticRequestKind): ServiceFunction {
    const existing = this.hooks.get(kind);
    if (existing) return existing;
    const id = `${newVersionCheckFunction.name}${kind
      .split('-')
      .map((word) => word[0]!.toUpperCase() + word.slice(1))
      .join('')}`;
    const hook = new ServiceFunction(this, id, {
      entry: HOOK_ENTRY,
      description: `CodeDeploy pre-traffic hook: invokes each new ${kind} function version with a synthetic request`,
      timeout: Duration.minutes(1),
      // A hook is run by CodeDeploy for the deployments of others; its own change needs no rollout.
      liveAlias: false,
    });
    this.hooks.set(kind, hook);
    this.checks.set(hook, { kind, checked: [], granted: false });
    return hook;
  }

  private deploymentConfigFor(kind: SyntheticRequestKind): ILambdaDeploymentConfig {
    if (this.props.allAtOnce) return LambdaDeploymentConfig.ALL_AT_ONCE;
    if (kind !== 'api') return LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_1MINUTE;
    const { canaryPercent, canaryMinutes } = this.props;
    if (canaryPercent === 10 && canaryMinutes === 5) return LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES;
    this.canary ??= new LambdaDeploymentConfig(this, 'ApiCanary', {
      trafficRouting: new TimeBasedCanaryTrafficRouting({
        percentage: canaryPercent,
        interval: Duration.minutes(canaryMinutes),
      }),
    });
    return this.canary;
  }
  private canary: LambdaDeploymentConfig | undefined;
}
