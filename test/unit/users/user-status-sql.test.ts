import { describe, expect, it } from 'vitest';
import { buildUserStatusStatements, type SqlStatement } from '#shared/adapters/postgres/user-status-sql.ts';
import type { RangeOperator, UserField, UserFilter } from '#shared/domain/users/user-status-query.ts';
import { userStatusRequestSchema } from '#shared/schemas/user-status-schemas.ts';
import { parseInput } from '#shared/http/validation.ts';

const window = { offset: 0, limit: 50, fields: ['id'] as readonly UserField[] };

/** The WHERE clause of the count statement (the page's inner SELECT uses the same). */
const whereOf = (count: SqlStatement): string =>
  count.text.replace(/^SELECT count\(\*\)::integer AS total FROM users WHERE /, '');

/** The conditions after the organization's, and the values they bind (org, limit and offset left out). */
function conditionOf(filter: UserFilter): { sql: string; values: unknown[] } {
  const { count } = buildUserStatusStatements('acme', [filter], window);
  const where = whereOf(count);
  expect(where.startsWith('org_id = $1 AND ')).toBe(true);
  return { sql: where.slice('org_id = $1 AND '.length), values: count.values.slice(1) };
}

describe('buildUserStatusStatements', () => {
  it('binds the organization as $1 and makes it the first condition of both statements', () => {
    const { page, count } = buildUserStatusStatements(
      'acme',
      [
        { kind: 'equals', field: 'city', values: ['Lima'] },
        { kind: 'boolean', field: 'is_deleted', value: false },
      ],
      window,
    );

    expect(page.values[0]).toBe('acme');
    expect(count.values[0]).toBe('acme');
    expect(whereOf(count)).toBe('org_id = $1 AND city = $2 AND is_deleted = $3');
    expect(page.text).toContain('SELECT id FROM users WHERE org_id = $1 AND city = $2 AND is_deleted = $3 ORDER BY');
    // The outer join is held to the organization too.
    expect(page.text).toMatch(/\) page ON u\.org_id = \$1 AND u\.id = page\.id ORDER BY u\.created_at, u\.id$/);
  });

  it('without filters, selects the whole organization', () => {
    const { count } = buildUserStatusStatements('acme', [], window);

    expect(count).toEqual({ text: 'SELECT count(*)::integer AS total FROM users WHERE org_id = $1', values: ['acme'] });
  });

  it('matches a single string value with =', () => {
    expect(conditionOf({ kind: 'equals', field: 'last_name', values: ['García'] })).toEqual({
      sql: 'last_name = $2',
      values: ['García'],
    });
  });

  it('matches several string values with IN, each value once', () => {
    expect(conditionOf({ kind: 'equals', field: 'country', values: ['Peru', 'Chile', 'Peru'] })).toEqual({
      sql: 'country IN ($2, $3)',
      values: ['Peru', 'Chile'],
    });
  });

  it('matches an e-mail through email_key, trimmed and lower-cased', () => {
    expect(conditionOf({ kind: 'equals', field: 'email', values: ['  Jane@Example.COM '] })).toEqual({
      sql: 'email_key = $2',
      values: ['jane@example.com'],
    });
    expect(conditionOf({ kind: 'equals', field: 'email', values: ['Ä@b.example', 'x@Y.example'] })).toEqual({
      sql: 'email_key IN ($2, $3)',
      values: ['ä@b.example', 'x@y.example'],
    });
  });

  it.each([true, false])('matches a boolean exactly (%s)', (value) => {
    expect(conditionOf({ kind: 'boolean', field: 'data_sharing_agreed', value })).toEqual({
      sql: 'data_sharing_agreed = $2',
      values: [value],
    });
  });

  it.each<[RangeOperator, string, 'number' | 'date' | 'instant', UserField, number | string]>([
    ['gt', '>', 'number', 'age', 17],
    ['gte', '>=', 'number', 'selfie_liveness_score', 0.5],
    ['lt', '<', 'date', 'dob', '2000-01-01'],
    ['lte', '<=', 'date', 'guardian_dob', '1980-12-31'],
    ['eq', '=', 'instant', 'created_at', '2024-01-01T00:00:00.000Z'],
  ])('compares a range bound %s with %s (%s)', (op, sql, valueType, field, bound) => {
    expect(conditionOf({ kind: 'range', field, valueType, bounds: { [op]: bound } })).toEqual({
      sql: `${field} ${sql} $2`,
      values: [bound],
    });
  });

  it('joins the bounds of one range with AND, each bound bound as its own parameter', () => {
    expect(
      conditionOf({
        kind: 'range',
        field: 'updated_at',
        valueType: 'instant',
        bounds: { gte: '2024-01-01T00:00:00.000Z', lt: '2024-02-01T00:00:00.000Z' },
      }),
    ).toEqual({
      sql: 'updated_at >= $2 AND updated_at < $3',
      values: ['2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z'],
    });
  });

  it('expands a registration category into the stored values it stands for', () => {
    const query = parseInput(userStatusRequestSchema, { filters: { registration_status: 'active' } });

    const { count } = buildUserStatusStatements('acme', query.filters, window);

    expect(whereOf(count)).toBe('org_id = $1 AND registration_status IN ($2, $3)');
    expect(count.values.slice(1).sort()).toEqual(['Activated', 'Complete']);
  });

  it('makes an equals condition FALSE when every value holds U+0000, and binds none of them', () => {
    const { page, count } = buildUserStatusStatements(
      'acme',
      [{ kind: 'equals', field: 'city', values: ['Li\u0000ma'] }],
      { ...window, limit: 10, offset: 20 },
    );

    expect(whereOf(count)).toBe('org_id = $1 AND FALSE');
    expect(count.values).toEqual(['acme']);
    expect(page.values).toEqual(['acme', 10, 20]);
  });

  it('drops only the values holding U+0000 from an equals condition', () => {
    expect(conditionOf({ kind: 'equals', field: 'email', values: ['a\u0000@b.example', 'c@d.example'] })).toEqual({
      sql: 'email_key = $2',
      values: ['c@d.example'],
    });
  });

  it('makes a range condition FALSE when a bound holds U+0000', () => {
    expect(
      conditionOf({ kind: 'range', field: 'dob', valueType: 'date', bounds: { gte: '2000-01-01', lt: '2001\u0000' } }),
    ).toEqual({ sql: 'FALSE', values: [] });
  });

  it('binds limit and offset as the last two parameters of the page', () => {
    const { page } = buildUserStatusStatements('acme', [{ kind: 'equals', field: 'city', values: ['Lima', 'Cusco'] }], {
      offset: 40,
      limit: 20,
      fields: ['id'],
    });

    expect(page.values).toEqual(['acme', 'Lima', 'Cusco', 20, 40]);
    expect(page.text).toContain('ORDER BY created_at, id LIMIT $4 OFFSET $5');
  });

  it('selects exactly the requested fields, in request order', () => {
    const fields: UserField[] = ['email', 'id', 'idcheck_pep_sanction_result', 'age'];

    const { page } = buildUserStatusStatements('acme', [], { ...window, fields });

    const projection = /^SELECT (.*?) FROM users u JOIN \(/.exec(page.text)![1]!;
    expect(projection.split(', ')).toEqual(['u.email', 'u.id', 'u.idcheck_pep_sanction_result', 'u.age']);
  });

  it('counts with the same WHERE and values as the page, without LIMIT, OFFSET or ORDER BY', () => {
    const filters: UserFilter[] = [
      { kind: 'equals', field: 'registration_status', values: ['Activated', 'Complete'] },
      { kind: 'range', field: 'age', valueType: 'number', bounds: { gte: 18 } },
    ];

    const { page, count } = buildUserStatusStatements('acme', filters, { offset: 5, limit: 10, fields: ['id'] });

    expect(page.text).toContain(`SELECT id FROM users WHERE ${whereOf(count)} ORDER BY`);
    expect(count.values).toEqual(page.values.slice(0, -2));
    expect(count.text).not.toMatch(/LIMIT|OFFSET|ORDER BY/);
  });

  it('puts injection-looking values only in the bound values, never in the SQL text', () => {
    const hostile = "x' OR '1'='1";
    const filters: UserFilter[] = [
      { kind: 'equals', field: 'city', values: [hostile] },
      { kind: 'equals', field: 'email', values: [`${hostile}@example.com`, "o'brien@example.com"] },
      { kind: 'equals', field: 'last_name', values: ['"; DROP TABLE users; --'] },
      { kind: 'range', field: 'created_at', valueType: 'instant', bounds: { gt: hostile } },
    ];

    const { page, count } = buildUserStatusStatements(hostile, filters, window);

    for (const statement of [page, count]) {
      expect(statement.text).not.toMatch(/['";]|--|\bOR\b|DROP/);
      expect(statement.values).toContain(hostile);
      expect(statement.values).toContain('"; DROP TABLE users; --');
      // One placeholder per bound value.
      expect(new Set(statement.text.match(/\$\d+/g)).size).toBe(statement.values.length);
    }
  });
});
