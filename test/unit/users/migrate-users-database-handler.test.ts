import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { USERS_MIGRATIONS } from '#shared/adapters/postgres/users-schema.ts';
import { logger } from '#shared/observability/logger.ts';
import { lambdaContext } from '#test/support/api-event.ts';

/** Stands in for the DSQL connection: records each statement, answers the two the schema code reads. */
const database = vi.hoisted(() => ({
  statements: [] as Array<{ text: string; values: readonly unknown[] }>,
  appliedVersions: [] as number[],
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
      if (text === 'SELECT version FROM schema_migrations')
        return database.appliedVersions.map((version) => ({ version }));
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
  database.appliedVersions = [];
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
    database.appliedVersions = USERS_MIGRATIONS.map((migration) => migration.version);

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
