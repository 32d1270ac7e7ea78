import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSandboxUserStore } from '#shared/adapters/postgres/sandbox-user-store.ts';
import { PostgresUserStatusReader } from '#shared/adapters/postgres/user-status-reader.ts';
import type { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import { InvalidInputError } from '#shared/domain/errors.ts';
import { tenantKey, type Tenant } from '#shared/domain/identity/tenant.ts';
import { importSandboxUsers, MAX_SANDBOX_USERS_PER_CALL } from '#shared/domain/sandbox/import-sandbox-users.ts';
import { SCENARIO_IDS } from '#shared/domain/sandbox/scenarios.ts';
import { searchTermsOf } from '#shared/domain/users/user-search.ts';
import { uniqueOrg } from '#test/support/api-client.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';

/**
 * POST /v1/sandbox/users' use case against the real local PostgreSQL (docs/sandbox.md "Sandbox
 * users"): every record validated as the import validates it before anything is written, all of
 * a call stored or none, under the sandbox's key beside its scenario users.
 */

let database: PostgresUsersDatabase;
let importUsers: ReturnType<typeof importSandboxUsers>;
let reader: PostgresUserStatusReader;
const tenants: Tenant[] = [];

beforeAll(() => {
  database = usersDatabaseAsAdmin();
  importUsers = importSandboxUsers({ users: new PostgresSandboxUserStore(database) });
  reader = new PostgresUserStatusReader(database);
});
afterAll(async () => {
  for (const tenant of tenants) {
    await database.query('DELETE FROM user_name_words WHERE org_id = $1', [tenantKey(tenant)]);
    await database.query('DELETE FROM users WHERE org_id = $1', [tenantKey(tenant)]);
  }
  await database.close();
});

function sandboxOf(prefix: string): Tenant {
  const tenant: Tenant = { orgId: uniqueOrg(prefix), mode: 'sandbox' };
  tenants.push(tenant);
  return tenant;
}

const record = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: `Imported ${id}`,
  created_at: '2024-05-01T10:00:00Z',
  ...extra,
});
const storedIds = async (tenant: Tenant) =>
  (await database.query<{ id: string }>('SELECT id FROM users WHERE org_id = $1 ORDER BY id', [tenantKey(tenant)])).map(
    (row) => row.id,
  );

describe('importing sandbox users', () => {
  it('stores every record under the sandbox key, listed and searched after the scenario users', async () => {
    const tenant = sandboxOf('import');

    expect(await importUsers(tenant, [record('u-1'), record('u-2', { city: 'Oslo' }), record('u-3')])).toEqual({
      imported: 3,
    });

    expect(await storedIds(tenant)).toEqual(['u-1', 'u-2', 'u-3']);
    const page = await reader.findPage(tenantKey(tenant), [], {
      offset: 0,
      limit: 50,
      fields: ['id', 'organization_id'],
    });
    expect(page.records.map((user) => user.id)).toEqual([...SCENARIO_IDS, 'u-1', 'u-2', 'u-3']);
    expect(page.records.at(-1)).toEqual({ id: 'u-3', organization_id: tenant.orgId });
    const found = await reader.findPage(
      tenantKey(tenant),
      [{ kind: 'search', text: 'imported u-2', terms: searchTermsOf('imported u-2') }],
      { offset: 0, limit: 50, fields: ['id'] },
    );
    expect(found.records).toEqual([{ id: 'u-2' }]);
    // The live data of the organization holds none of them.
    expect(await storedIds({ orgId: tenant.orgId, mode: 'live' })).toEqual([]);
  });

  it('replaces a stored user given again', async () => {
    const tenant = sandboxOf('import-replace');
    await importUsers(tenant, [record('u-1', { city: 'Oslo' })]);
    await importUsers(tenant, [record('u-1', { city: 'Bergen' })]);
    const [row] = await database.query<{ city: string }>('SELECT city FROM users WHERE org_id = $1', [
      tenantKey(tenant),
    ]);
    expect(row).toEqual({ city: 'Bergen' });
  });

  it('stores nothing of a call with one bad record, and names it', async () => {
    const tenant = sandboxOf('import-bad');
    const call = importUsers(tenant, [record('u-1'), record('u-2'), { id: 'u-3', age: 'old' }]);

    await expect(call).rejects.toBeInstanceOf(InvalidInputError);
    const problems = await call.then(
      () => [],
      (error: InvalidInputError) => error.problems,
    );
    expect(problems.map((problem) => problem.field)).toEqual(['users[2]', 'users[2]']);
    expect(problems.map((problem) => problem.hint)).toEqual([
      'users[2]: age must be a number',
      'users[2]: created_at is required',
    ]);
    expect(await storedIds(tenant)).toEqual([]);
  });

  it('refuses a scenario id, an id given twice and a record the database cannot hold, storing nothing', async () => {
    const tenant = sandboxOf('import-refused');
    const refusals = async (inputs: unknown[]) =>
      importUsers(tenant, inputs).then(
        () => [],
        (error: InvalidInputError) => error.problems.map((problem) => problem.hint),
      );

    expect(await refusals([record('u-1'), record('sbx-clear')])).toEqual([
      "users[1]: id sbx-clear: ids starting sbx- are the scenario users'",
    ]);
    expect(await refusals([record('u-1'), record('u-1')])).toEqual(['users[1]: id u-1 is also users[0]']);
    expect(await refusals([record('u-1'), record('u-2', { city: 'x'.repeat(800) })])).toEqual([
      'users[1]: city: 800 bytes; an indexed field holds at most 768',
    ]);
    expect(await storedIds(tenant)).toEqual([]);
  });

  it(`stores ${MAX_SANDBOX_USERS_PER_CALL} records in one call`, async () => {
    const tenant = sandboxOf('import-many');
    const records = Array.from({ length: MAX_SANDBOX_USERS_PER_CALL }, (_, i) =>
      record(`m-${String(i).padStart(4, '0')}`),
    );
    expect(await importUsers(tenant, records)).toEqual({ imported: MAX_SANDBOX_USERS_PER_CALL });
    expect(await storedIds(tenant)).toHaveLength(MAX_SANDBOX_USERS_PER_CALL);
  });

  it('imports into a sandbox only', async () => {
    await expect(importUsers({ orgId: uniqueOrg('live'), mode: 'live' }, [record('u-1')])).rejects.toThrow(
      /sandbox only/,
    );
  });
});
