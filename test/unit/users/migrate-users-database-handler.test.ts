import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { usersMigrations } from '#shared/adapters/postgres/users-migrations.ts';
import { logger } from '#shared/observability/logger.ts';
import { lambdaContext } from '#test/support/api-event.ts';

/** Stands in for the DSQL connection: records each statement, answers those the schema code reads. */
const database = vi.hoisted(() => ({
  statements: [] as Array<{ text: string; values: readonly unknown[] }>,
  /** Rows of schema_migration_files. */
  applied: [] as Array<{ version: number; file_name: string; sha256: string }>,
  /** Job ids CREATE INDEX ASYNC answered, in order, and the ones waited for. */
  jobs: [] as string[],
  waited: [] as unknown[],
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
      if (text.startsWith('CREATE INDEX ASYNC')) {
        const jobId = `job-${database.jobs.length + 1}`;
        database.jobs.push(jobId);
        return [{ job_id: jobId }];
      }
      if (text.startsWith('SELECT sys.wait_for_job(')) {
        database.waited.push(values[0]);
        return [{ succeeded: true }];
      }
      return [];
    }
    async close() {}
  },
}));

type Response = { PhysicalResourceId: string; Data?: { AppliedVersions: string } };
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
  database.waited = [];
  vi.spyOn(logger, 'info').mockImplementation(() => undefined);
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
    const response = await handler(
      { ...common, RequestType: 'Create', ResourceProperties: properties() },
      lambdaContext(),
    );

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
    expect(response).toEqual({
      PhysicalResourceId: 'users-database-schema',
      Data: { AppliedVersions: USERS_MIGRATIONS.map((migration) => migration.version).join(',') },
    });
  });

  it('waits for each index job before the next statement, so a DROP follows the build of its replacement', async () => {
    await handler({ ...common, RequestType: 'Create', ResourceProperties: properties() }, lambdaContext());

    const indexStatements = USERS_MIGRATIONS.flatMap((migration) => migration.statements).filter((statement) =>
      statement.startsWith('CREATE INDEX ASYNC'),
    );
    expect(database.jobs).toHaveLength(indexStatements.length);
    expect(database.waited).toEqual(database.jobs);
    for (const [index, statement] of indexStatements.entries()) {
      // Right after the CREATE INDEX ASYNC comes the wait for its job, then anything else.
      const at = texts().indexOf(statement);
      expect(texts()[at + 1]).toBe('SELECT sys.wait_for_job($1) AS succeeded');
      expect(database.statements[at + 1]!.values).toEqual([`job-${index + 1}`]);
    }
    const dropCountry = texts().indexOf('DROP INDEX IF EXISTS users_by_country');
    const waitForScores = texts().indexOf(
      'CREATE INDEX ASYNC IF NOT EXISTS users_by_country_scores ON users (org_id, country, selfie_liveness_score, fmc_score)',
    );
    expect(dropCountry).toBeGreaterThan(waitForScores + 1);
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
        lambdaContext(),
      ),
    ).rejects.toThrow(`applied migration ${USERS_MIGRATIONS[1]!.file} was changed`);
    expect(texts().filter((text) => !text.includes('schema_migration_files'))).toEqual([]);
  });

  it('creates the eraser role with SELECT and DELETE on users and maps it to the erasing roles alone', async () => {
    const eraserRole = 'arn:aws:iam::123456789012:role/OnboardingReportsService-dev-EraseUserRole-GHI';

    await handler(
      {
        ...common,
        RequestType: 'Create',
        ResourceProperties: { ...properties(), EraserRoleArns: [eraserRole] },
      },
      lambdaContext(),
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
      lambdaContext(),
    );

    for (const statement of USERS_MIGRATIONS.flatMap((migration) => migration.statements)) {
      expect(texts()).not.toContain(statement);
    }
    expect(texts().filter((text) => text.startsWith('AWS IAM GRANT'))).toEqual([
      `AWS IAM GRANT users_reader TO '${readerRoles[1]}'`,
    ]);
    expect(response).toEqual({ PhysicalResourceId: 'users-database-schema', Data: { AppliedVersions: '' } });
  });

  it('on Delete touches nothing: the retained cluster keeps its schema and grants', async () => {
    const response = await handler(
      {
        ...common,
        RequestType: 'Delete',
        PhysicalResourceId: 'users-database-schema',
        ResourceProperties: properties(),
      },
      lambdaContext(),
    );

    expect(database.statements).toEqual([]);
    expect(response).toEqual({ PhysicalResourceId: 'users-database-schema' });
  });

  it('fails the deployment, granting nothing, when a reader is not an IAM role ARN', async () => {
    await expect(
      handler(
        {
          ...common,
          RequestType: 'Create',
          ResourceProperties: properties(["arn:aws:iam::123456789012:role/x'; DROP TABLE users; --"]),
        },
        lambdaContext(),
      ),
    ).rejects.toThrow(/not an IAM role ARN/);
    expect(texts().filter((text) => text.startsWith('AWS IAM GRANT'))).toEqual([]);
  });

  it('fails when the properties lack the migrations hash (a resource not made by the construct)', async () => {
    await expect(
      handler(
        { ...common, RequestType: 'Create', ResourceProperties: { ServiceToken: common.ServiceToken } },
        lambdaContext(),
      ),
    ).rejects.toThrow();
    expect(database.statements).toEqual([]);
  });
});
