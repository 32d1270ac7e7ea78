import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { INDEX_JOB_POLL_MS, usersMigrations } from '#shared/adapters/postgres/users-migrations.ts';
import { usersDatabaseMigrationFunction } from '#shared/config/api-routes.ts';
import { logger } from '#shared/observability/logger.ts';
import { lambdaContext } from '#test/support/api-event.ts';

/**
 * Stands in for the DSQL connection: records each statement, answers those the schema code reads.
 * CREATE INDEX ASYNC answers a job id and leaves the index building; sys.jobs answers `jobStatus`.
 */
const database = vi.hoisted(() => ({
  statements: [] as Array<{ text: string; values: readonly unknown[] }>,
  /** Rows of schema_migration_files. */
  applied: [] as Array<{ version: number; file_name: string; sha256: string }>,
  /** Job ids CREATE INDEX ASYNC answered, in order. */
  jobs: [] as string[],
  /** Index name -> valid; a job id -> its index. */
  indexes: new Map<string, boolean>(),
  jobIndex: new Map<string, string>(),
  indexJobs: new Map<string, string>(),
  jobStatus: (_jobId: string): { status: string; details?: string } => ({ status: 'completed' }),
  configs: [] as unknown[],
}));

vi.mock('#shared/adapters/postgres/users-database.ts', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  PostgresUsersDatabase: class {
    constructor(config: unknown) {
      database.configs.push(config);
    }
    async query(text: string, values: readonly unknown[] = []) {
      database.statements.push({ text, values });
      if (text.startsWith('SELECT version, file_name, sha256 FROM schema_migration_files')) return database.applied;
      if (text.startsWith('INSERT INTO schema_migration_files')) {
        const [version, file_name, sha256] = values as [number, string, string];
        database.applied.push({ version, file_name, sha256 });
        return [];
      }
      if (text.startsWith('SELECT i.indisvalid AS valid FROM pg_index')) {
        const valid = database.indexes.get(values[0] as string);
        return valid === undefined ? [] : [{ valid }];
      }
      const created = /^CREATE INDEX ASYNC IF NOT EXISTS (\w+)/.exec(text);
      if (created) {
        const jobId = `job-${database.jobs.length + 1}`;
        database.jobs.push(jobId);
        database.indexes.set(created[1]!, false);
        database.jobIndex.set(jobId, created[1]!);
        return [{ job_id: jobId }];
      }
      if (text.startsWith('INSERT INTO schema_migration_index_jobs')) {
        database.indexJobs.set(values[0] as string, values[1] as string);
        return [];
      }
      if (text.startsWith('SELECT job_id FROM schema_migration_index_jobs')) {
        const jobId = database.indexJobs.get(values[0] as string);
        return jobId === undefined ? [] : [{ job_id: jobId }];
      }
      if (text.startsWith('SELECT status, details FROM sys.jobs')) {
        const job = database.jobStatus(values[0] as string);
        if (job.status === 'completed') database.indexes.set(database.jobIndex.get(values[0] as string)!, true);
        return [{ status: job.status, details: job.details ?? null }];
      }
      return [];
    }
    async close() {}
  },
}));

type Response = { PhysicalResourceId: string; IsComplete: boolean };
let handler: (event: CloudFormationCustomResourceEvent, context: Context) => Promise<Response>;

const readerRoles = [
  'arn:aws:iam::123456789012:role/OnboardingReportsService-dev-QueryUserStatusRole-ABC',
  'arn:aws:iam::123456789012:role/OnboardingReportsService-dev-CreateReportJobRole-DEF',
];
const common = {
  ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:provider',
  ResponseURL: 'https://cloudformation-custom-resource-response.example/',
  StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/OnboardingReportsService-dev/1',
  RequestId: 'request-1',
  LogicalResourceId: 'UsersDatabaseMigration',
  ResourceType: 'Custom::UsersDatabaseMigration',
};
const properties = (arns: string[] = readerRoles) => ({
  ServiceToken: common.ServiceToken,
  MigrationsHash: 'abc123',
  ReaderRoleArns: arns,
});

const texts = () => database.statements.map((statement) => statement.text);
const USERS_MIGRATIONS = usersMigrations();
const recordsOf = (migrations = USERS_MIGRATIONS) =>
  migrations.map(({ version, file, sha256 }) => ({ version, file_name: file, sha256 }));

beforeAll(async () => {
  Object.assign(process.env, {
    AWS_REGION: 'eu-west-1',
    USERS_DATABASE_HOST: 'abcdefghijklmnopqrstuvwxyz.dsql.eu-west-1.on.aws',
    USERS_DATABASE_USER: 'admin',
    USERS_DATABASE_AUTH: 'dsql',
  });
  ({ handler } = (await import('#functions/migrate-users-database.ts')) as unknown as {
    handler: typeof handler;
  });
});

beforeEach(() => {
  database.statements.length = 0;
  database.applied = [];
  database.jobs = [];
  database.indexes.clear();
  database.jobIndex.clear();
  database.indexJobs.clear();
  database.jobStatus = () => ({ status: 'completed' });
  vi.spyOn(logger, 'info').mockImplementation(() => undefined);
});

/** A call with the whole function timeout ahead of it (Lambda's 15 minutes). */
const fullCall = () => lambdaContext({ remainingTimeInMillis: 900_000 });
/** A call with time for one read of sys.jobs left before its reserve. */
const callNearItsEnd = () =>
  lambdaContext({ remainingTimeInMillis: usersDatabaseMigrationFunction.callReserveMs + INDEX_JOB_POLL_MS - 1 });
const CREATE_COUNTRY_SCORES =
  'CREATE INDEX ASYNC IF NOT EXISTS users_by_country_scores ON users (org_id, country, selfie_liveness_score, fmc_score)';
const update = (PhysicalResourceId = 'users-database-schema') => ({
  ...common,
  RequestType: 'Update' as const,
  PhysicalResourceId,
  ResourceProperties: properties(),
  OldResourceProperties: properties(),
});

describe('the users database migration custom resource', () => {
  it('connects to the cluster as admin with IAM tokens, once per container', () => {
    expect(database.configs).toEqual([
      expect.objectContaining({
        USERS_DATABASE_HOST: 'abcdefghijklmnopqrstuvwxyz.dsql.eu-west-1.on.aws',
        USERS_DATABASE_USER: 'admin',
        USERS_DATABASE_AUTH: 'dsql',
      }),
    ]);
  });

  it('on Create applies every migration in DSQL form, creates the reader role and maps it to each reading role', async () => {
    const response = await handler({ ...common, RequestType: 'Create', ResourceProperties: properties() }, fullCall());

    const migrationStatements = USERS_MIGRATIONS.flatMap((migration) => migration.statements);
    expect(texts()).toEqual(expect.arrayContaining(migrationStatements));
    expect(migrationStatements.some((statement) => statement.startsWith('CREATE INDEX ASYNC'))).toBe(true);
    const order = [
      texts().indexOf(migrationStatements.at(-1)!),
      texts().indexOf('CREATE ROLE users_reader WITH LOGIN'),
      texts().indexOf('GRANT SELECT ON users, user_name_words TO users_reader'),
      texts().indexOf(`AWS IAM GRANT users_reader TO '${readerRoles[0]}'`),
      texts().indexOf(`AWS IAM GRANT users_reader TO '${readerRoles[1]}'`),
    ];
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(response).toEqual({ PhysicalResourceId: 'users-database-schema', IsComplete: true });
  });

  it('waits for each index job before the next statement, so a DROP follows the build of its replacement', async () => {
    await handler({ ...common, RequestType: 'Create', ResourceProperties: properties() }, fullCall());

    const indexStatements = USERS_MIGRATIONS.flatMap((migration) => migration.statements).filter((statement) =>
      statement.startsWith('CREATE INDEX ASYNC'),
    );
    expect(database.jobs).toHaveLength(indexStatements.length);
    for (const [index, statement] of indexStatements.entries()) {
      // Right after the CREATE INDEX ASYNC: its job recorded, then read in sys.jobs, then anything else.
      const at = texts().indexOf(statement);
      expect(texts()[at + 1]).toMatch(/^INSERT INTO schema_migration_index_jobs/);
      expect(texts()[at + 2]).toBe('SELECT status, details FROM sys.jobs WHERE job_id = $1');
      expect(database.statements[at + 2]!.values).toEqual([`job-${index + 1}`]);
    }
    expect(texts().indexOf('DROP INDEX IF EXISTS users_by_country')).toBeGreaterThan(
      texts().indexOf(CREATE_COUNTRY_SCORES) + 2,
    );
  });

  it('answers not complete, granting nothing, while an index job still runs at the end of a call; the next poll waits for the same job and completes', async () => {
    database.applied = recordsOf(USERS_MIGRATIONS.slice(0, 2));
    database.jobStatus = () => ({ status: 'processing' });

    const first = await handler(update(), callNearItsEnd());

    expect(first).toEqual({ PhysicalResourceId: 'users-database-schema', IsComplete: false });
    expect(database.jobs).toEqual(['job-1']);
    expect(texts()).not.toContain('DROP INDEX IF EXISTS users_by_country');
    expect(texts().filter((text) => text.startsWith('AWS IAM GRANT') || text.startsWith('CREATE ROLE'))).toEqual([]);
    expect(database.applied.map((record) => record.version)).toEqual([1, 2]);
    expect(logger.info).toHaveBeenCalledWith(
      'users database migration continues at the next poll',
      expect.objectContaining({
        unfinished: {
          file: USERS_MIGRATIONS[2]!.file,
          building: { index: 'users_by_country_scores', jobId: 'job-1' },
        },
      }),
    );

    // The Provider framework polls again: the build is done by then.
    database.jobStatus = () => ({ status: 'completed' });
    const next = await handler(update(), fullCall());

    expect(next).toEqual({ PhysicalResourceId: 'users-database-schema', IsComplete: true });
    expect(texts().filter((text) => text === CREATE_COUNTRY_SCORES)).toHaveLength(1);
    expect(database.applied.map((record) => record.version)).toEqual(USERS_MIGRATIONS.map(({ version }) => version));
    expect(texts()).toContain(`AWS IAM GRANT users_reader TO '${readerRoles[0]}'`);
  });

  it('fails the deployment with the job’s reason and what to do when an index job fails', async () => {
    database.applied = recordsOf(USERS_MIGRATIONS.slice(0, 2));
    database.jobStatus = () => ({ status: 'failed', details: 'the build ran out of resources' });

    await expect(handler(update(), fullCall())).rejects.toThrow(
      `migration ${USERS_MIGRATIONS[2]!.file} failed at statement 1 (${CREATE_COUNTRY_SCORES}): ` +
        'index job job-1 building users_by_country_scores failed: the build ran out of resources; ' +
        'drop the index (DROP INDEX users_by_country_scores) and deploy again to build it anew',
    );
    expect(texts()).not.toContain('DROP INDEX IF EXISTS users_by_country');
    expect(texts().filter((text) => text.startsWith('AWS IAM GRANT'))).toEqual([]);
  });

  it('fails the deployment naming the file, and applies nothing, when an applied migration file was changed', async () => {
    const [first, ...rest] = recordsOf();
    database.applied = [first!, { ...rest[0]!, sha256: '0'.repeat(64) }];

    await expect(
      handler(
        {
          ...common,
          RequestType: 'Update',
          PhysicalResourceId: 'users-database-schema',
          ResourceProperties: properties(),
          OldResourceProperties: properties(),
        },
        fullCall(),
      ),
    ).rejects.toThrow(`applied migration ${USERS_MIGRATIONS[1]!.file} was changed`);
    // Only the bookkeeping: its tables made sure of and read, the previous runner's table looked for.
    expect(texts().filter((text) => !/schema_migration|pg_tables/.test(text))).toEqual([]);
  });

  it('creates the eraser role with SELECT and DELETE on users and maps it to the erasing roles alone', async () => {
    const eraserRole = 'arn:aws:iam::123456789012:role/OnboardingReportsService-dev-EraseUserRole-GHI';

    await handler(
      {
        ...common,
        RequestType: 'Create',
        ResourceProperties: { ...properties(), EraserRoleArns: [eraserRole] },
      },
      fullCall(),
    );

    const order = [
      texts().indexOf('CREATE ROLE users_eraser WITH LOGIN'),
      texts().indexOf('GRANT SELECT, DELETE ON users, user_name_words TO users_eraser'),
      texts().indexOf(`AWS IAM GRANT users_eraser TO '${eraserRole}'`),
    ];
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(texts().filter((text) => text.startsWith('AWS IAM GRANT'))).toEqual([
      ...readerRoles.map((arn) => `AWS IAM GRANT users_reader TO '${arn}'`),
      `AWS IAM GRANT users_eraser TO '${eraserRole}'`,
    ]);
    expect(texts()).not.toContain('GRANT SELECT, DELETE ON users TO users_reader');
  });

  it('creates the sandbox writer role (it writes users and their words) and maps it to the sandbox importers alone', async () => {
    const writerRole = 'arn:aws:iam::123456789012:role/OnboardingReportsService-dev-ImportSandboxUsersRole-JKL';

    await handler(
      {
        ...common,
        RequestType: 'Create',
        ResourceProperties: { ...properties(), SandboxWriterRoleArns: [writerRole] },
      },
      fullCall(),
    );

    const order = [
      texts().indexOf('CREATE ROLE users_sandbox_writer WITH LOGIN'),
      texts().indexOf('GRANT SELECT, INSERT, UPDATE, DELETE ON users, user_name_words TO users_sandbox_writer'),
      texts().indexOf(`AWS IAM GRANT users_sandbox_writer TO '${writerRole}'`),
    ];
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(texts().filter((text) => text.startsWith('AWS IAM GRANT'))).toEqual([
      ...readerRoles.map((arn) => `AWS IAM GRANT users_reader TO '${arn}'`),
      `AWS IAM GRANT users_sandbox_writer TO '${writerRole}'`,
    ]);
  });

  it('on Update applies only what is new, grants again, and keeps the resource’s id (no replacement)', async () => {
    database.applied = recordsOf();

    const response = await handler(
      {
        ...common,
        RequestType: 'Update',
        PhysicalResourceId: 'users-database-schema',
        ResourceProperties: properties(readerRoles.slice(1)),
        OldResourceProperties: properties(),
      },
      fullCall(),
    );

    for (const statement of USERS_MIGRATIONS.flatMap((migration) => migration.statements)) {
      expect(texts()).not.toContain(statement);
    }
    expect(texts().filter((text) => text.startsWith('AWS IAM GRANT'))).toEqual([
      `AWS IAM GRANT users_reader TO '${readerRoles[1]}'`,
    ]);
    expect(response).toEqual({ PhysicalResourceId: 'users-database-schema', IsComplete: true });
  });

  it('on Delete touches nothing: the retained cluster keeps its schema and grants', async () => {
    const response = await handler(
      {
        ...common,
        RequestType: 'Delete',
        PhysicalResourceId: 'users-database-schema',
        ResourceProperties: properties(),
      },
      fullCall(),
    );

    expect(database.statements).toEqual([]);
    expect(response).toEqual({ PhysicalResourceId: 'users-database-schema', IsComplete: true });
  });

  it('fails the deployment, granting nothing, when a reader is not an IAM role ARN', async () => {
    await expect(
      handler(
        {
          ...common,
          RequestType: 'Create',
          ResourceProperties: properties(["arn:aws:iam::123456789012:role/x'; DROP TABLE users; --"]),
        },
        fullCall(),
      ),
    ).rejects.toThrow(/not an IAM role ARN/);
    expect(texts().filter((text) => text.startsWith('AWS IAM GRANT'))).toEqual([]);
  });

  it('fails when the properties lack the migrations hash (a resource not made by the construct)', async () => {
    await expect(
      handler(
        { ...common, RequestType: 'Create', ResourceProperties: { ServiceToken: common.ServiceToken } },
        fullCall(),
      ),
    ).rejects.toThrow();
    expect(database.statements).toEqual([]);
  });
});
