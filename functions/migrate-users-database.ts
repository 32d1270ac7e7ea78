import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import * as v from 'valibot';
import { BACKGROUND_RESERVE_MS, runBeforeTimeout } from '#shared/adapters/request-deadline.ts';
import { PostgresUsersDatabase, usersDatabaseEnvironment } from '#shared/adapters/postgres/users-database.ts';
import {
  ensureRole,
  grantRoleToIamRoles,
  USERS_ERASER_ROLE,
  USERS_READER_ROLE,
} from '#shared/adapters/postgres/users-schema.ts';
import { migrateUsersDatabase } from '#shared/adapters/postgres/users-migrations.ts';
import { loadConfig } from '#shared/config/load-config.ts';
import { logger } from '#shared/observability/logger.ts';
import { traceInvocation } from '#shared/observability/tracer.ts';
import { publishRecordedMetrics, recordUsersDatabaseConflictRetry } from '#shared/observability/metrics.ts';

/**
 * The users database's deploy-time step, behind a CloudFormation custom resource (the CDK
 * Provider framework calls it and answers CloudFormation; lib/users-database-construct.ts). On
 * Create and Update it connects as DSQL's `admin`, applies the migration files not yet applied
 * (waiting for each index it builds; an applied file that changed stops it, naming the file), makes
 * sure the reader role exists with SELECT on users and the eraser role with SELECT and DELETE, and
 * maps each to its functions' IAM roles. On Delete it does nothing: the cluster and its data are retained.
 */

const config = loadConfig(v.object(usersDatabaseEnvironment));
const database = new PostgresUsersDatabase(config, { onConflictRetry: recordUsersDatabaseConflictRetry });

/** The custom resource's properties (CloudFormation passes every scalar as a string). */
const migrationProperties = v.object({
  /** IAM roles of the functions that read users; each is granted the reader role. */
  ReaderRoleArns: v.optional(v.array(v.string()), []),
  /** IAM roles of the functions that erase users (DELETE /v1/users/{id}); each is granted the eraser role. */
  EraserRoleArns: v.optional(v.array(v.string()), []),
  /** Hash of the migration files: only there so that a new file updates the resource and runs this again. */
  MigrationsHash: v.string(),
  /** The cluster: only there so that a replaced cluster updates the resource and is migrated. */
  ClusterArn: v.optional(v.string()),
});

/** One schema per cluster: the resource's id never changes, so an Update is never a replacement. */
export const MIGRATION_PHYSICAL_ID = 'users-database-schema';

export interface MigrationResponse {
  PhysicalResourceId: string;
  Data?: { AppliedVersions: string };
}

export const handler = middy<CloudFormationCustomResourceEvent, MigrationResponse, Error, Context>()
  .use(traceInvocation())
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishRecordedMetrics())
  .handler(async (event, context) => {
    if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
    const { ReaderRoleArns, EraserRoleArns } = v.parse(migrationProperties, event.ResourceProperties);
    const applied = await runBeforeTimeout(context, BACKGROUND_RESERVE_MS, async () => {
      const versions = await migrateUsersDatabase(database, { dialect: 'dsql' });
      await ensureRole(database, { dialect: 'dsql', role: USERS_READER_ROLE });
      await grantRoleToIamRoles(database, USERS_READER_ROLE, ReaderRoleArns);
      await ensureRole(database, { dialect: 'dsql', role: USERS_ERASER_ROLE });
      await grantRoleToIamRoles(database, USERS_ERASER_ROLE, EraserRoleArns);
      return versions;
    });
    logger.info('users database migrated', {
      requestType: event.RequestType,
      applied,
      readerRoles: ReaderRoleArns,
      eraserRoles: EraserRoleArns,
    });
    return {
      PhysicalResourceId: event.RequestType === 'Update' ? event.PhysicalResourceId : MIGRATION_PHYSICAL_ID,
      Data: { AppliedVersions: applied.join(',') },
    };
  });
