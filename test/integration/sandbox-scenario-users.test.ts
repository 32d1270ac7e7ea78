import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresUserDirectory } from '#shared/adapters/postgres/user-directory.ts';
import { PostgresUserStatusReader } from '#shared/adapters/postgres/user-status-reader.ts';
import { PostgresUserWriter } from '#shared/adapters/postgres/user-writer.ts';
import type { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import { tenantKey } from '#shared/domain/identity/tenant.ts';
import { SCENARIO_IDS, scenarioUser } from '#shared/domain/sandbox/scenarios.ts';
import { parseUserRecord } from '#shared/domain/users/user-record-schema.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { searchTermsOf } from '#shared/domain/users/user-search.ts';
import type { UserField, UserFilter } from '#shared/domain/users/user-status-query.ts';
import { uniqueOrg } from '#test/support/api-client.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';

/**
 * Scenario users against the real local PostgreSQL, through the reader and directory the API and
 * the worker use: in a sandbox key they are filtered, searched and paged with the stored users in
 * one statement per step, as if stored; in the organization's live key they do not exist.
 */

const orgId = uniqueOrg('scenarios');
const sandboxKey = tenantKey({ orgId, mode: 'sandbox' });
const liveKey = tenantKey({ orgId, mode: 'live' });
const today = new Date();

/** Stored users of both modes: created after the scenario users, some sharing their cities and results. */
function storedUsers(organization: string): UserRecord[] {
  return Array.from({ length: 12 }, (_, index) => {
    const parsed = parseUserRecord(organization, {
      id: `stored-${String(index).padStart(2, '0')}`,
      name: index % 3 === 0 ? `Viktor Stored ${index}` : `Ada Stored ${index}`,
      email: `stored-${index}@example.com`,
      city: index % 2 === 0 ? 'London' : 'Leeds',
      age: 20 + index,
      high_level_result: index % 4 === 0 ? 'REFER' : 'PASSED',
      data_sharing_agreed: index % 2 === 0,
      created_at: new Date(Date.UTC(2024, 0, 1, 0, 0, index)).toISOString(),
    });
    if (!parsed.success) throw new Error(parsed.problems.join('; '));
    return parsed.record;
  });
}

describe('scenario users in the users database', () => {
  let database: PostgresUsersDatabase;
  let statements = 0;
  let reader: PostgresUserStatusReader;
  const stored = storedUsers(orgId);
  const scenarios = SCENARIO_IDS.map((id) => scenarioUser(id, orgId, today));

  beforeAll(async () => {
    database = usersDatabaseAsAdmin();
    for (const key of [sandboxKey, liveKey]) {
      const writer = new PostgresUserWriter({ database, orgId: key });
      for (const [index, record] of stored.entries()) await writer.put(record, index);
      await writer.close();
    }
    const counting = {
      query: (text: string, values?: unknown[]) => {
        statements += 1;
        return database.query(text, values);
      },
    } as Pick<PostgresUsersDatabase, 'query'>;
    reader = new PostgresUserStatusReader(counting, () => today);
  });
  afterAll(async () => {
    await database.query('DELETE FROM user_name_words WHERE org_id = $1 OR org_id = $2', [sandboxKey, liveKey]);
    await database.query('DELETE FROM users WHERE org_id = $1 OR org_id = $2', [sandboxKey, liveKey]);
    await database.close();
  });

  const page = (key: string, filters: UserFilter[], offset = 0, limit = 100, fields: UserField[] = ['id']) =>
    reader.findPage(key, filters, { offset, limit, fields });
  const ids = (records: Array<Partial<UserRecord>>) => records.map((record) => record.id);

  it('lists every scenario user first in a sandbox key, then the stored users, and counts them all', async () => {
    const found = await page(sandboxKey, []);
    expect(ids(found.records)).toEqual([...SCENARIO_IDS, ...stored.map((user) => user.id)]);
    expect(found.total).toBe(SCENARIO_IDS.length + stored.length);
  });

  it('holds no scenario user in the live key', async () => {
    const found = await page(liveKey, []);
    expect(ids(found.records)).toEqual(stored.map((user) => user.id));
    expect((await page(liveKey, [{ kind: 'equals', field: 'id', values: ['sbx-clear'] }])).total).toBe(0);
    expect((await page(liveKey, [{ kind: 'search', text: 'sbx-pep', terms: searchTermsOf('sbx-pep') }])).total).toBe(0);
    expect(await new PostgresUserDirectory(database).find(liveKey, 'sbx-clear')).toBeUndefined();
  });

  it('filters scenario and stored users alike: equality, booleans, ranges and their combination', async () => {
    const refer = await page(sandboxKey, [{ kind: 'equals', field: 'high_level_result', values: ['REFER'] }]);
    const expectedRefer = [...scenarios, ...stored].filter((user) => user.high_level_result === 'REFER');
    expect(ids(refer.records)).toEqual(ids(expectedRefer));
    expect(ids(refer.records)).toContain('sbx-sanctions');

    const minors = await page(sandboxKey, [{ kind: 'range', field: 'age', valueType: 'number', bounds: { lt: 18 } }]);
    expect(ids(minors.records)).toEqual(['sbx-minor']);

    const londonSharing = await page(sandboxKey, [
      { kind: 'equals', field: 'city', values: ['London'] },
      { kind: 'boolean', field: 'data_sharing_agreed', value: true },
    ]);
    const expected = [...scenarios, ...stored].filter((user) => user.city === 'London' && user.data_sharing_agreed);
    expect(ids(londonSharing.records)).toEqual(ids(expected));
    expect(ids(londonSharing.records)).toContain('sbx-clear');

    const bornAfter = await page(sandboxKey, [
      { kind: 'range', field: 'dob', valueType: 'date', bounds: { gte: scenarioUser('sbx-minor', orgId, today).dob! } },
    ]);
    expect(ids(bornAfter.records)).toEqual(['sbx-minor']);
  });

  it('finds scenario users by search (name words in every script, e-mail start, exact id) beside stored ones', async () => {
    const search = (text: string) => page(sandboxKey, [{ kind: 'search', text, terms: searchTermsOf(text) }]);
    expect(ids((await search('viktor')).records)).toEqual([
      'sbx-sanctions',
      ...stored.filter((user) => user.name!.startsWith('Viktor')).map((user) => user.id),
    ]);
    expect(ids((await search('ليلى')).records)).toEqual(['sbx-scripts']);
    expect(ids((await search('paula.pep')).records)).toEqual(['sbx-pep']);
    expect(ids((await search('sbx-slow')).records)).toEqual(['sbx-slow']);
  });

  it('pages across the scenario users and the stored ones, counting every match', async () => {
    const all = [...SCENARIO_IDS, ...stored.map((user) => user.id)];
    for (const [offset, limit] of [
      [0, 3],
      [5, 4],
      [6, 2],
      [17, 5],
      [30, 5],
    ] as const) {
      const found = await page(sandboxKey, [], offset, limit);
      expect(ids(found.records)).toEqual(all.slice(offset, offset + limit));
      expect(found.total).toBe(all.length);
    }
  });

  it('returns the selected fields of a scenario user as stored ones are returned', async () => {
    const found = await page(sandboxKey, [{ kind: 'equals', field: 'id', values: ['sbx-pep', 'sbx-minor'] }], 0, 10, [
      'id',
      'guardian_name',
      'age',
      'data_sharing_agreed',
      'idcheck_pep_sanction_result',
    ]);
    expect(found.records).toEqual([
      {
        id: 'sbx-minor',
        guardian_name: 'Grace Minor',
        age: 12,
        data_sharing_agreed: true,
        idcheck_pep_sanction_result: scenarioUser('sbx-minor', orgId, today).idcheck_pep_sanction_result,
      },
      {
        id: 'sbx-pep',
        age: 57,
        data_sharing_agreed: true,
        idcheck_pep_sanction_result: scenarioUser('sbx-pep', orgId, today).idcheck_pep_sanction_result,
      },
    ]);
  });

  it('runs no statement more for a sandbox key than for a live one', async () => {
    const countStatements = async (key: string, filters: UserFilter[], offset: number, limit: number) => {
      statements = 0;
      await page(key, filters, offset, limit);
      return statements;
    };
    const cases: Array<[UserFilter[], number, number]> = [
      [[], 0, 100],
      [[], 0, 2],
      [[{ kind: 'search', text: 'stored', terms: searchTermsOf('stored') }], 0, 5],
      [[{ kind: 'equals', field: 'city', values: ['London'] }], 1, 1],
    ];
    for (const [filters, offset, limit] of cases) {
      expect(await countStatements(sandboxKey, filters, offset, limit)).toBe(
        await countStatements(liveKey, filters, offset, limit),
      );
    }
  });

  it('finds a scenario user by id in a sandbox key without a statement (report creation and the worker)', async () => {
    statements = 0;
    const directory = new PostgresUserDirectory(
      {
        query: () => {
          statements += 1;
          return Promise.resolve([]);
        },
      },
      () => today,
    );
    expect(await directory.find(sandboxKey, 'sbx-scripts')).toEqual(scenarioUser('sbx-scripts', orgId, today));
    expect(statements).toBe(0);
    expect((await new PostgresUserDirectory(database).find(sandboxKey, 'stored-01'))?.id).toBe('stored-01');
  });
});
