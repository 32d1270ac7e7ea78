import { describe, expect, it } from 'vitest';
import { queryUserStatus, type UserStatusReader } from '#shared/domain/users/query-user-status.ts';
import type { PepSanctionResult, UserRecord } from '#shared/domain/users/user-record.ts';
import type { UserStatusQuery } from '#shared/domain/users/user-status-query.ts';

const screening: PepSanctionResult = {
  status: 'Flagged',
  timestamp: '2024-05-01T10:00:00.000Z',
  pep_result: [
    { firstName: 'Jane', lastName: 'Doe', datasets: ['PEP'], addresses: [{ city: 'Oslo', countryIsoCode: 'NO' }] },
  ],
  sanction_result: [],
};

const records: Array<Partial<UserRecord>> = [
  {
    id: 'u-1',
    name: 'Jane Doe',
    email: 'jane@example.com',
    idcheck_pep_sanction_result: screening,
    created_at: '2024-01-01T00:00:00.000Z',
  },
  { id: 'u-2', email: 'joe@example.com', age: 0, is_deleted: false },
];

/** A reader that returns fixed records and remembers what it was asked. */
function fakeReader(page: { records: Array<Partial<UserRecord>>; total: number }) {
  const calls: Array<Parameters<UserStatusReader['findPage']>> = [];
  const users: UserStatusReader = {
    findPage: async (...args) => {
      calls.push(args);
      return page;
    },
  };
  return { users, calls };
}

const query = (overrides: Partial<UserStatusQuery> = {}): UserStatusQuery => ({
  filters: [],
  resultKeys: ['id'],
  limit: 50,
  offset: 0,
  ...overrides,
});

describe('queryUserStatus', () => {
  it('asks the reader for the organization, filters and window, with the requested keys as fields', async () => {
    const filters = [{ kind: 'boolean', field: 'is_deleted', value: false }] as const;
    const { users, calls } = fakeReader({ records: [], total: 0 });

    await queryUserStatus({ users })('acme', query({ filters, resultKeys: ['email', 'id'], limit: 10, offset: 20 }));

    expect(calls).toEqual([['acme', filters, { offset: 20, limit: 10, fields: ['email', 'id'] }]]);
  });

  it('returns exactly the requested keys, in request order, with null for a field the record lacks', async () => {
    const { users } = fakeReader({ records, total: 2 });

    const page = await queryUserStatus({ users })(
      'acme',
      query({ resultKeys: ['email', 'id', 'phone', 'age', 'is_deleted'] }),
    );

    expect(page.results).toEqual([
      { email: 'jane@example.com', id: 'u-1', phone: null, age: null, is_deleted: null },
      { email: 'joe@example.com', id: 'u-2', phone: null, age: 0, is_deleted: false },
    ]);
    expect(page.results.map((result) => Object.keys(result))).toEqual([
      ['email', 'id', 'phone', 'age', 'is_deleted'],
      ['email', 'id', 'phone', 'age', 'is_deleted'],
    ]);
  });

  it('drops fields the reader returned but the request did not ask for', async () => {
    const { users } = fakeReader({ records, total: 2 });

    const page = await queryUserStatus({ users })('acme', query({ resultKeys: ['id'] }));

    expect(page.results).toEqual([{ id: 'u-1' }, { id: 'u-2' }]);
  });

  it('returns idcheck_pep_sanction_result whole, nested entries included', async () => {
    const { users } = fakeReader({ records: records.slice(0, 1), total: 1 });

    const page = await queryUserStatus({ users })('acme', query({ resultKeys: ['idcheck_pep_sanction_result'] }));

    expect(page.results).toEqual([{ idcheck_pep_sanction_result: screening }]);
  });

  it('echoes limit and offset and reports the total of all matches, not the page size', async () => {
    const { users } = fakeReader({ records: records.slice(1), total: 137 });

    const page = await queryUserStatus({ users })('acme', query({ limit: 1, offset: 1 }));

    expect(page.pagination).toEqual({ limit: 1, offset: 1, total: 137 });
    expect(page.results).toHaveLength(1);
  });

  it('answers an empty page with results [] and total 0', async () => {
    const { users } = fakeReader({ records: [], total: 0 });

    expect(await queryUserStatus({ users })('acme', query())).toEqual({
      results: [],
      pagination: { limit: 50, offset: 0, total: 0 },
    });
  });
});

describe('queryUserStatus: read cost', () => {
  it('tells onRead the read units and matches of every query', async () => {
    const { users } = fakeReader({ records: [], total: 7 });
    const reads: unknown[] = [];
    const findPage = users.findPage.bind(users);
    users.findPage = async (...args) => ({ ...(await findPage(...args)), consumedReadUnits: 12.5 });

    await queryUserStatus({ users, onRead: (read) => reads.push(read) })('acme', query());

    expect(reads).toEqual([{ consumedReadUnits: 12.5, total: 7 }]);
  });
});
