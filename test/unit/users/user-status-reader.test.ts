import { describe, expect, it } from 'vitest';
import { PostgresUserStatusReader } from '#shared/adapters/postgres/user-status-reader.ts';
import { buildUserStatusStatements } from '#shared/adapters/postgres/user-status-sql.ts';
import type { SqlRunner } from '#shared/adapters/postgres/users-database.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import type { UserField, UserFilter } from '#shared/domain/users/user-status-query.ts';

interface Statement {
  text: string;
  values: readonly unknown[];
}

/** Records every statement and answers them in turn from `replies` (rows, or an error to throw). */
class FakeDatabase implements Pick<SqlRunner, 'query'> {
  readonly statements: Statement[] = [];
  constructor(private readonly replies: Array<unknown[] | Error>) {}

  async query<TRow extends object = Record<string, unknown>>(
    text: string,
    values: readonly unknown[] = [],
  ): Promise<TRow[]> {
    this.statements.push({ text, values: [...values] });
    const reply = this.replies.shift();
    if (reply === undefined) throw new Error(`unexpected statement: ${text}`);
    if (reply instanceof Error) throw reply;
    return reply as TRow[];
  }
}

const filters: UserFilter[] = [{ kind: 'equals', field: 'country', values: ['Peru'] }];
const fields: UserField[] = ['id', 'created_at'];
const rowsOf = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: `u-${i}`, created_at: '2024-01-01T00:00:00.000Z' }));

describe('PostgresUserStatusReader', () => {
  it('answers a short non-empty page with total = offset + rows, without a count query', async () => {
    const database = new FakeDatabase([rowsOf(3)]);
    const reader = new PostgresUserStatusReader(database);

    const page = await reader.findPage('acme', filters, { offset: 20, limit: 10, fields });

    expect(page).toEqual({ records: rowsOf(3), total: 23, accessPath: 'sql:page' });
    const expected = buildUserStatusStatements('acme', filters, { offset: 20, limit: 10, fields });
    expect(database.statements).toEqual([expected.page]);
  });

  it('runs the count when the page is full, since more may match', async () => {
    const database = new FakeDatabase([rowsOf(2), [{ total: 57 }]]);
    const reader = new PostgresUserStatusReader(database);

    const page = await reader.findPage('acme', filters, { offset: 0, limit: 2, fields });

    expect(page).toEqual({ records: rowsOf(2), total: 57, accessPath: 'sql:page+count' });
    const expected = buildUserStatusStatements('acme', filters, { offset: 0, limit: 2, fields });
    expect(database.statements).toEqual([expected.page, expected.count]);
  });

  it('runs the count for an empty page past the end, so total still counts every match', async () => {
    const database = new FakeDatabase([[], [{ total: 7 }]]);
    const reader = new PostgresUserStatusReader(database);

    const page = await reader.findPage('acme', filters, { offset: 40, limit: 10, fields });

    expect(page).toEqual({ records: [], total: 7, accessPath: 'sql:page+count' });
    expect(database.statements[1]!.text).toMatch(/^SELECT count\(\*\)::integer AS total FROM users WHERE org_id = \$1/);
    expect(database.statements[1]!.values).toEqual(['acme', 'Peru']);
  });

  it('answers total 0 for an organization with no match', async () => {
    const database = new FakeDatabase([[], [{ total: 0 }]]);

    const page = await new PostgresUserStatusReader(database).findPage('acme', filters, {
      offset: 0,
      limit: 10,
      fields,
    });

    expect(page).toMatchObject({ records: [], total: 0 });
  });

  it('maps rows back to records: NULL columns are absent fields, the screening result is parsed from its JSON text', async () => {
    const screening = {
      status: 'Flagged',
      timestamp: '2024-01-01T00:00:00.000Z',
      pep_result: [{ firstName: 'Ana', notes: ['a\u0000b'] }],
      sanction_result: [],
    };
    const database = new FakeDatabase([
      [
        {
          id: 'u-1',
          email: null,
          age: 31,
          is_deleted: false,
          selfie_liveness_score: 0,
          idcheck_pep_sanction_result: JSON.stringify(screening),
        },
        {
          id: 'u-2',
          email: 'jane@example.com',
          age: null,
          is_deleted: null,
          selfie_liveness_score: null,
          idcheck_pep_sanction_result: null,
        },
      ],
    ]);

    const page = await new PostgresUserStatusReader(database).findPage('acme', [], {
      offset: 0,
      limit: 10,
      fields: ['id', 'email', 'age', 'is_deleted', 'selfie_liveness_score', 'idcheck_pep_sanction_result'],
    });

    expect(page.records).toEqual([
      { id: 'u-1', age: 31, is_deleted: false, selfie_liveness_score: 0, idcheck_pep_sanction_result: screening },
      { id: 'u-2', email: 'jane@example.com' },
    ]);
    expect(page.records[1]).not.toHaveProperty('age');
  });

  it('lets a DependencyUnavailableError from the database through unchanged', async () => {
    const failure = new DependencyUnavailableError('users database', { retryAfterSeconds: 3 });
    const database = new FakeDatabase([failure]);

    await expect(
      new PostgresUserStatusReader(database).findPage('acme', filters, { offset: 0, limit: 10, fields }),
    ).rejects.toBe(failure);
  });
});
