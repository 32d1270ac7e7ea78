import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import * as v from 'valibot';
import { BACKGROUND_RESERVE_MS, runBeforeTimeout } from '#shared/support/request-deadline.ts';
import { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import {
  ensureRole,
  grantRoleToIamRoles,
  USERS_ERASER_ROLE,
  USERS_SANDBOX_WRITER_ROLE,
  USERS_READER_ROLE,
} from '#shared/adapters/postgres/users-schema.ts';
import { migrateUsersDatabase } from '#shared/adapters/postgres/users-migrations.ts';
import { usersDatabaseMigrationFunction } from '#shared/config/api-routes.ts';
import { loadDeploymentFunctionConfig } from '#shared/wiring/function-config.ts';
import { logger } from '#shared/observability/logger.ts';
import { traceInvocation } from '#shared/observability/tracer.ts';
import { publishRecordedMetrics, recordUsersDatabaseConflictRetry } from '#shared/observability/metrics.ts';

/**
 * The users database's deploy-time step, behind a CloudFormation custom resource (the CDK
 * Provider framework calls it and answers CloudFormation; lib/users-database-construct.ts). On
 * Create and Update it connects as DSQL's `admin` and applies the migration files not yet applied
 * (an applied file that changed stops it, naming the file); once they all are, it makes sure the
 * reader role exists with SELECT on users and the eraser role with SELECT and DELETE, and maps each
 * to its functions' IAM roles. On Delete it does nothing: the cluster and its data are retained.
 *
 * The framework calls it first for the event (onEvent), then every poll (isComplete) until it
 * answers IsComplete: each call migrates as far as its time allows and answers both fields, so one
 * handler serves both. An index build that outlasts a call leaves the schema unfinished
 * (IsComplete false); the next poll waits for the same job (users-migrations.ts).
 */

const config = loadDeploymentFunctionConfig('MigrateUsersDatabase');
const database = new PostgresUsersDatabase(config, { onConflictRetry: recordUsersDatabaseConflictRetry });

/** The custom resource's properties (CloudFormation passes every scalar as a string). */
const migrationProperties = v.object({
  /** IAM roles of the functions that read users; each is granted the reader role. */
  ReaderRoleArns: v.optional(v.array(v.string()), []),
  /** IAM roles of the functions that erase users (DELETE /v1/users/{id}); each is granted the eraser role. */
  EraserRoleArns: v.optional(v.array(v.string()), []),
  /** IAM roles of the functions that import sandbox users (POST /v1/sandbox/users); each is granted the sandbox writer role. */
  SandboxWriterRoleArns: v.optional(v.array(v.string()), []),
  /** Hash of the migration files: only there so that a new file updates the resource and runs this again. */
  MigrationsHash: v.string(),
  /** The cluster: only there so that a replaced cluster updates the resource and is migrated. */
  ClusterArn: v.optional(v.string()),
});

/** One schema per cluster: the resource's id never changes, so an Update is never a replacement. */
export const MIGRATION_PHYSICAL_ID = 'users-database-schema';

/** Read by the Provider framework: PhysicalResourceId after onEvent, IsComplete after isComplete. */
export interface MigrationResponse {
  PhysicalResourceId: string;
  IsComplete: boolean;
}

export const handler = middy<CloudFormationCustomResourceEvent, MigrationResponse, Error, Context>()
  .use(traceInvocation())
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishRecordedMetrics())
  .handler(async (event, context) => {
    if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId, IsComplete: true };
    const PhysicalResourceId = event.RequestType === 'Update' ? event.PhysicalResourceId : MIGRATION_PHYSICAL_ID;
    const { ReaderRoleArns, EraserRoleArns, SandboxWriterRoleArns } = v.parse(
      migrationProperties,
      event.ResourceProperties,
    );
    const deadline = Date.now() + context.getRemainingTimeInMillis() - usersDatabaseMigrationFunction.callReserveMs;
    const run = await runBeforeTimeout(context, BACKGROUND_RESERVE_MS, async () => {
      const migrated = await migrateUsersDatabase(database, { dialect: 'dsql', deadline });
      if (migrated.unfinished) return migrated;
      await ensureRole(database, { dialect: 'dsql', role: USERS_READER_ROLE });
      await grantRoleToIamRoles(database, USERS_READER_ROLE, ReaderRoleArns);
      await ensureRole(database, { dialect: 'dsql', role: USERS_ERASER_ROLE });
      await grantRoleToIamRoles(database, USERS_ERASER_ROLE, EraserRoleArns);
      await ensureRole(database, { dialect: 'dsql', role: USERS_SANDBOX_WRITER_ROLE });
      await grantRoleToIamRoles(database, USERS_SANDBOX_WRITER_ROLE, SandboxWriterRoleArns);
      return migrated;
    });
    const IsComplete = run.unfinished === undefined;
    logger.info(IsComplete ? 'users database migrated' : 'users database migration continues at the next poll', {
      requestType: event.RequestType,
      applied: run.applied,
      adopted: run.adopted,
      ...(run.unfinished
        ? { unfinished: run.unfinished }
        : { readerRoles: ReaderRoleArns, eraserRoles: EraserRoleArns, sandboxWriterRoles: SandboxWriterRoleArns }),
    });
    return { PhysicalResourceId, IsComplete };
  });
