import { Aws, CustomResource, Duration, Fn, Lazy, RemovalPolicy, Stack, type CfnElement } from 'aws-cdk-lib';
import { BackupPlan, BackupPlanRule, BackupResource, BackupVault } from 'aws-cdk-lib/aws-backup';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { CfnCluster } from 'aws-cdk-lib/aws-dsql';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogLevel } from 'aws-cdk-lib/aws-stepfunctions';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { NagSuppressions } from 'cdk-nag';
import { Construct, type IConstruct } from 'constructs';
// Plain data (the role names, the migration files and their checksums): importing them does not pull pg into the CDK app.
import {
  USERS_ERASER_ROLE,
  USERS_READER_ROLE,
  USERS_SANDBOX_WRITER_ROLE,
} from '#shared/adapters/postgres/users-schema.ts';
import { USERS_MIGRATIONS_FOLDER, usersMigrationsHash } from '#shared/adapters/postgres/users-migrations.ts';
import { usersDatabaseMigrationFunction } from '#shared/config/api-routes.ts';
import type { usersDatabaseEnvironment } from '#shared/config/users-database-config.ts';
import { ServiceFunction } from './service-function.ts';

/** The migration files, from the repository root, where CDK bundles from. */
export const USERS_MIGRATIONS_SOURCE = `shared/adapters/postgres/${USERS_MIGRATIONS_FOLDER}`;

const shellQuote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/**
 * After esbuild, copies the migration files into `migrations/` next to `index.js`, where the
 * bundled runner reads them (shared/adapters/postgres/users-migrations.ts `defaultMigrationsFolder`).
 */
export const copyUsersMigrations: ICommandHooks = {
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (inputDir, outputDir) => [
    `mkdir -p ${shellQuote(`${outputDir}/${USERS_MIGRATIONS_FOLDER}`)}`,
    `cp ${shellQuote(`${inputDir}/${USERS_MIGRATIONS_SOURCE}`)}/*.sql ${shellQuote(`${outputDir}/${USERS_MIGRATIONS_FOLDER}`)}/`,
  ],
};

/** DSQL's built-in role: the only one that may run DDL and create roles (`dsql:DbConnectAdmin`). */
export const DSQL_ADMIN_USER = 'admin';

/**
 * How long the Provider framework polls an unfinished migration: within the hour CloudFormation
 * gives a custom resource, so a migration that takes longer fails with the framework's "Operation
 * timed out" before CloudFormation's own timeout. An index build still running then goes on, and the
 * next deploy waits for it (docs/operate.md "Schema migrations").
 */
export const MIGRATION_TOTAL_TIMEOUT = Duration.minutes(55);
/** The pause between two polls; each poll itself waits for an index job up to its function's timeout. */
export const MIGRATION_QUERY_INTERVAL = Duration.seconds(30);

/** The migration custom resource's type, as it shows in CloudFormation. */
export const USERS_DATABASE_MIGRATION_TYPE = 'Custom::UsersDatabaseMigration';

/**
 * The values of shared/config/users-database-config.ts `usersDatabaseEnvironment` a deployed function
 * is given (the names checked by the compiler). Port (5432), database (`postgres`) and pool size (1)
 * keep their defaults.
 */
export function usersDatabaseEnvironmentFor(endpoint: string, user: string) {
  return {
    USERS_DATABASE_HOST: endpoint,
    USERS_DATABASE_USER: user,
    USERS_DATABASE_AUTH: 'dsql',
  } satisfies Partial<Record<keyof typeof usersDatabaseEnvironment, string>>;
}

export interface UsersDatabaseProps {
  /** Makes the backup vault's and plan's names unique per stage (AWS Backup names are per account and region). */
  readonly stage: string;
  /** AWS Backup schedule of the cluster's backups (context `usersBackupSchedule`); default daily at 03:00 UTC. */
  readonly backupSchedule?: string;
  /** Days each backup is kept (context `usersBackupRetentionDays`); default 35. */
  readonly backupRetentionDays?: number;
}

/**
 * The first group of the stack id's UUID: new each time the stack is created, the same at every
 * update of it.
 */
const stackCreationId = (): string => Fn.select(0, Fn.split('-', Fn.select(2, Fn.split('/', Aws.STACK_ID))));

/**
 * The backup vault's name: per stage, and per creation of the stack, since the vault is retained.
 * A fixed name would make the deploy after a `cdk destroy` (or after a failed first deploy, whose
 * rollback keeps the vault too) fail with "already exists"; a new stack instead creates its own
 * vault next to the kept one. At most 17 + 20 + 9 = 46 characters (AWS Backup allows 50).
 */
export const usersBackupVaultName = (stage: string): string => `onboarding-users-${stage}-${stackCreationId()}`;
/** The backup plan's name, per stage: the plan goes with the stack, so a stage's name is free again after it. */
export const usersBackupPlanName = (stage: string): string => `onboarding-users-${stage}`;

/** The AWS managed policies AWS Backup's own role takes to back up and restore the supported resources, DSQL clusters among them. */
export const AWS_BACKUP_SERVICE_POLICIES = [
  'service-role/AWSBackupServiceRolePolicyForBackup',
  'service-role/AWSBackupServiceRolePolicyForRestores',
] as const;

/**
 * The users database: one single-Region Aurora DSQL cluster (IAM authentication, no VPC, no
 * password), protected from deletion and retained with its data when the stack goes.
 *
 * Its schema is applied at deploy time by `MigrateUsersDatabase` behind a custom resource: it
 * connects as `admin`, runs the migrations, creates the `users_reader` role and maps it to the
 * IAM role of every function given `grantReadUsers` (DSQL's `AWS IAM GRANT`), and `users_eraser`
 * (SELECT and DELETE) to the erasure's (`grantEraseUsers`). Those functions may only
 * `dsql:DbConnect` (never DbConnectAdmin), so in the database they can only do what their role may.
 *
 * DSQL keeps no point-in-time history of its own: an AWS Backup plan backs the cluster up on a
 * schedule into a vault of its own, retained with the stack's data (docs/operate.md "Backups and
 * restoring"); a backup job that fails pages the operator (AlarmsConstruct.addBackupJobFailuresRule).
 */
export class UsersDatabaseConstruct extends Construct {
  readonly cluster: CfnCluster;
  /** The cluster's endpoint, `<cluster identifier>.dsql.<region>.on.aws`. */
  readonly endpoint: string;
  /** The cluster's identifier: the `ClusterId` dimension of its CloudWatch metrics. */
  readonly clusterIdentifier: string;
  readonly clusterArn: string;
  /** Deploy-time only: applies the schema and grants (the one holder of `dsql:DbConnectAdmin`). */
  readonly migrationFunction: ServiceFunction;
  /** The CDK Provider framework (its own small function) that calls `migrationFunction` for CloudFormation. */
  readonly migrationProvider: Provider;
  readonly migration: CustomResource;
  /** Backs the cluster up (AWS Backup) into `backupVault`. */
  readonly backupPlan: BackupPlan;
  readonly backupVault: BackupVault;
  /** What AWS Backup acts as, backing up and restoring (docs/operate.md "Backups and restoring"). */
  readonly backupRole: Role;
  private readonly readerRoles: IRole[] = [];
  private readonly eraserRoles: IRole[] = [];
  private readonly sandboxWriterRoles: IRole[] = [];

  constructor(scope: Construct, id: string, props: UsersDatabaseProps) {
    super(scope, id);
    this.cluster = new CfnCluster(this, 'Cluster', { deletionProtectionEnabled: true });
    // Users outlive a mistaken `cdk destroy` or a replacement, as the DynamoDB tables do.
    this.cluster.applyRemovalPolicy(RemovalPolicy.RETAIN);
    this.endpoint = this.cluster.attrEndpoint;
    this.clusterIdentifier = this.cluster.attrIdentifier;
    this.clusterArn = this.cluster.attrResourceArn;

    ({ plan: this.backupPlan, vault: this.backupVault, role: this.backupRole } = this.backUp(props));

    this.migrationFunction = new ServiceFunction(this, usersDatabaseMigrationFunction.name, {
      entry: usersDatabaseMigrationFunction.entry,
      description: 'Deploy time: migrates the users database and grants its reader role to the reading functions',
      // Each call waits for the index it builds up to its timeout, then leaves the rest to the next poll.
      timeout: Duration.seconds(usersDatabaseMigrationFunction.timeoutSeconds),
      commandHooks: copyUsersMigrations,
      // Run by CloudFormation during the deploy (its custom resource), never by traffic. Its grant and connection
      // settings are its declared need (`usersDatabase:migrate`, grantMigrate).
      liveAlias: false,
    });

    // The framework functions get what every function of the service gets: a log group with a
    // retention and a role that may write to it, instead of AWSLambdaBasicExecutionRole.
    const providerLogs = new LogGroup(this, 'MigrationProviderLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const providerRole = new Role(this, 'MigrationProviderRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'Execution role of the users database migration provider framework',
    });
    // The polls' framework functions take a role of their own: the first one starts the waiter, whose
    // polls call them, so one role for all would make the policies depend on each other in a circle.
    const pollRole = new Role(this, 'MigrationPollRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'Execution role of the users database migration provider framework polls',
    });
    providerLogs.grantWrite(providerRole);
    providerLogs.grantWrite(pollRole);
    // The migration function is called for the event (onEvent) and then polled (isComplete) until it
    // says the schema is complete: an index build may outlast one call (functions/migrate-users-database.ts).
    this.migrationProvider = new Provider(this, 'MigrationProvider', {
      onEventHandler: this.migrationFunction,
      isCompleteHandler: this.migrationFunction,
      queryInterval: MIGRATION_QUERY_INTERVAL,
      totalTimeout: MIGRATION_TOTAL_TIMEOUT,
      logGroup: providerLogs,
      frameworkOnEventRole: providerRole,
      frameworkCompleteAndTimeoutRole: pollRole,
      // The polls' executions, without their input: it holds CloudFormation's presigned response URL.
      disableWaiterStateMachineLogging: false,
      waiterStateMachineLogOptions: { destination: providerLogs, level: LogLevel.ALL, includeExecutionData: false },
    });
    this.suppressProviderFindings([providerRole, pollRole]);

    this.migration = new CustomResource(this, 'Migration', {
      serviceToken: this.migrationProvider.serviceToken,
      resourceType: USERS_DATABASE_MIGRATION_TYPE,
      // CloudFormation's longest wait for a custom resource, which the polls fit in.
      serviceTimeout: Duration.hours(1),
      properties: {
        // The files' names and checksums: a new file updates the resource, so the deploy applies it.
        MigrationsHash: usersMigrationsHash(),
        // A replaced cluster (a new ARN) updates the resource, so its empty database is migrated too.
        ClusterArn: this.clusterArn,
        // Resolved at synth, after every grantReadUsers: a GetAtt of each role, so CloudFormation
        // creates the roles before the grant, and a new reading role re-runs it.
        ReaderRoleArns: Lazy.list({ produce: () => this.readerRoles.map((role) => role.roleArn) }),
        // The same for grantEraseUsers: mapped to users_eraser.
        EraserRoleArns: Lazy.list({ produce: () => this.eraserRoles.map((role) => role.roleArn) }),
        // And for grantWriteSandboxUsers: mapped to users_sandbox_writer.
        SandboxWriterRoleArns: Lazy.list({ produce: () => this.sandboxWriterRoles.map((role) => role.roleArn) }),
      },
    });
  }

  /**
   * Lets `fn` (the migration, its `usersDatabase:migrate` need) connect as DSQL's `admin`: `dsql:DbConnectAdmin` on
   * this cluster only, the one function given it, and the connection settings in its environment.
   */
  grantMigrate(fn: LambdaFunction): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['dsql:DbConnectAdmin'], resources: [this.clusterArn] }));
    for (const [name, value] of Object.entries(usersDatabaseEnvironmentFor(this.endpoint, DSQL_ADMIN_USER))) {
      fn.addEnvironment(name, value);
    }
  }

  /**
   * Lets `fn` connect as `users_reader` (SELECT on users): `dsql:DbConnect` on this cluster only,
   * the connection settings in its environment, its role mapped to the database role by the
   * migration, which runs before the function is created or updated.
   */
  grantReadUsers(fn: LambdaFunction): void {
    const role = fn.role;
    if (!role) throw new Error(`${fn.node.path} has no role to grant users database access to`);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['dsql:DbConnect'], resources: [this.clusterArn] }));
    for (const [name, value] of Object.entries(usersDatabaseEnvironmentFor(this.endpoint, USERS_READER_ROLE))) {
      fn.addEnvironment(name, value);
    }
    this.readerRoles.push(role);
    // New code that reads a new schema is deployed after the migration that creates it.
    this.waitForMigration(fn);
  }

  /**
   * Lets `fn` (the erasure) connect as `users_eraser` (SELECT and DELETE on users): `dsql:DbConnect`
   * on this cluster only, its role mapped by the migration. Its role name comes in
   * USERS_ERASER_DATABASE_USER, not USERS_DATABASE_USER (shared/config/users-database-config.ts
   * `usersEraserDatabaseEnvironment`), so that locally, where every function shares one
   * environment, it still logs in as the eraser and the others as the reader.
   */
  grantEraseUsers(fn: LambdaFunction): void {
    const role = fn.role;
    if (!role) throw new Error(`${fn.node.path} has no role to grant users database access to`);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['dsql:DbConnect'], resources: [this.clusterArn] }));
    const { USERS_DATABASE_USER: _reader, ...connection } = usersDatabaseEnvironmentFor(
      this.endpoint,
      USERS_ERASER_ROLE,
    );
    for (const [name, value] of Object.entries({ ...connection, USERS_ERASER_DATABASE_USER: USERS_ERASER_ROLE })) {
      fn.addEnvironment(name, value);
    }
    this.eraserRoles.push(role);
    this.waitForMigration(fn);
  }

  /**
   * Lets `fn` (POST /v1/sandbox/users) connect as `users_sandbox_writer` (it writes users and their
   * search words): `dsql:DbConnect` on this cluster only, its role mapped by the migration, its role
   * name in USERS_SANDBOX_WRITER_DATABASE_USER for the reason grantEraseUsers gives.
   */
  grantWriteSandboxUsers(fn: LambdaFunction): void {
    const role = fn.role;
    if (!role) throw new Error(`${fn.node.path} has no role to grant users database access to`);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['dsql:DbConnect'], resources: [this.clusterArn] }));
    const { USERS_DATABASE_USER: _reader, ...connection } = usersDatabaseEnvironmentFor(
      this.endpoint,
      USERS_SANDBOX_WRITER_ROLE,
    );
    const environment = { ...connection, USERS_SANDBOX_WRITER_DATABASE_USER: USERS_SANDBOX_WRITER_ROLE };
    for (const [name, value] of Object.entries(environment)) fn.addEnvironment(name, value);
    this.sandboxWriterRoles.push(role);
    this.waitForMigration(fn);
  }

  /**
   * A function of this stack is created after the migration that maps its role. One in a nested stack cannot wait for
   * it (the migration names its role, so it waits for the nested stack): the migration maps it later in the same
   * deploy, before which only the pre-traffic check's token-less request, which reaches no statement, calls it.
   */
  private waitForMigration(fn: LambdaFunction): void {
    if (Stack.of(fn) === Stack.of(this)) fn.node.addDependency(this.migration);
  }

  private backUp(props: UsersDatabaseProps): { plan: BackupPlan; vault: BackupVault; role: Role } {
    // The recovery points outlive the stack, as the cluster does.
    const vault = new BackupVault(this, 'BackupVault', {
      backupVaultName: usersBackupVaultName(props.stage),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const plan = new BackupPlan(this, 'BackupPlan', {
      backupPlanName: usersBackupPlanName(props.stage),
      backupVault: vault,
    });
    plan.addRule(
      new BackupPlanRule({
        ruleName: 'UsersDatabase',
        scheduleExpression: Schedule.expression(props.backupSchedule ?? 'cron(0 3 * * ? *)'),
        deleteAfter: Duration.days(props.backupRetentionDays ?? 35),
      }),
    );
    const backupRole = new Role(this, 'BackupRole', {
      assumedBy: new ServicePrincipal('backup.amazonaws.com'),
      description: 'AWS Backup: backs up and restores the users database (DSQL cluster)',
      managedPolicies: AWS_BACKUP_SERVICE_POLICIES.map((name) => ManagedPolicy.fromAwsManagedPolicyName(name)),
    });
    plan.addSelection('Cluster', { resources: [BackupResource.fromArn(this.clusterArn)], role: backupRole });
    NagSuppressions.addResourceSuppressions(backupRole, [
      {
        id: 'AwsSolutions-IAM4',
        reason:
          'AWS Backup assumes this role only; its two service-role policies are what AWS Backup documents for each resource type it backs up and restores, DSQL clusters included, and AWS keeps them current.',
        appliesTo: AWS_BACKUP_SERVICE_POLICIES.map((name) => `Policy::arn:<AWS::Partition>:iam::aws:policy/${name}`),
      },
    ]);
    return { plan, vault, role: backupRole };
  }

  private suppressProviderFindings(frameworkRoles: Role[]): void {
    const arnOf = (construct: IConstruct) =>
      `<${Stack.of(this).getLogicalId(construct.node.defaultChild as CfnElement)}.Arn>`;
    NagSuppressions.addResourceSuppressions(
      frameworkRoles,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'The CDK Provider framework invokes the migration function by ARN; lambda:InvokeFunction is granted on that one function and its versions (Arn:*), nothing wider.',
          appliesTo: [`Resource::${arnOf(this.migrationFunction)}:*`],
        },
      ],
      true,
    );
    const waiter = this.migrationProvider.node.findChild('waiter-state-machine');
    const framework = (name: string) => arnOf(this.migrationProvider.node.findChild(name));
    NagSuppressions.addResourceSuppressions(
      waiter,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            "The Provider framework's waiter invokes its own isComplete and onTimeout functions by ARN; lambda:InvokeFunction is granted on those two functions and their versions (Arn:*), nothing wider.",
          appliesTo: [
            `Resource::${framework('framework-isComplete')}:*`,
            `Resource::${framework('framework-onTimeout')}:*`,
          ],
        },
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'Step Functions sets up its log delivery with the logs:*LogDelivery and resource policy actions, which take no resource ARN (the CloudWatch Logs documentation grants them on *).',
          appliesTo: ['Resource::*'],
        },
        {
          id: 'AwsSolutions-SF2',
          reason:
            'The waiter only polls the migration function during a deploy, one task a poll: each execution is in the provider log group, and the migration function itself is traced.',
        },
      ],
      true,
    );
  }
}
