import { describe, expect, it } from 'vitest';
import { planUserQuery } from '../../../shared/adapters/dynamodb/user-status-reader.ts';
import type { UserField, UserFilter } from '../../../shared/domain/users/user-status-query.ts';
import { userStatusRequestSchema } from '../../../shared/http/schemas/user-status-schemas.ts';
import { parseInput } from '../../../shared/http/validation.ts';

const TABLE = 'Users';
const ORG = 'acme';

/** Filters as the request schema produces them from a body's `filters`. */
const filtersOf = (filters: Record<string, unknown>): UserFilter[] => [
  ...parseInput(userStatusRequestSchema, { filters }).filters,
];

const plan = (filters: Record<string, unknown>, fields: readonly UserField[] = ['id']) =>
  planUserQuery(TABLE, ORG, filtersOf(filters), fields);

/** Replaces each `:placeholder` in an expression with its value, so assertions read as conditions. */
function resolved(expression: string | undefined, values: Record<string, unknown> | undefined): string | undefined {
  return expression?.replace(/:v\d+/g, (placeholder) => JSON.stringify(values?.[placeholder]));
}

const keyCondition = (p: ReturnType<typeof plan>) =>
  resolved(p.input.KeyConditionExpression, p.input.ExpressionAttributeValues);
const filterExpression = (p: ReturnType<typeof plan>) =>
  resolved(p.input.FilterExpression, p.input.ExpressionAttributeValues);

describe('planUserQuery: access path', () => {
  it('reads one item from the main table for an id filter: pk and sk, no index', () => {
    const p = plan({ id: 'u-17' });

    expect(p.input.TableName).toBe(TABLE);
    expect(p.input.IndexName).toBeUndefined();
    expect(p.input.KeyConditionExpression).toBe('pk = :v0 AND sk = :v1');
    expect(p.input.ExpressionAttributeValues).toMatchObject({ ':v0': 'ORG#acme', ':v1': 'USER#u-17' });
    expect(p.input.FilterExpression).toBeUndefined();
    expect(p.empty).toBe(false);
  });

  it('uses the byEmail index for an e-mail filter, keyed by the lower-cased address', () => {
    const p = planUserQuery(TABLE, ORG, [{ kind: 'equals', field: 'email', values: ['Jane.Doe@Example.COM'] }], ['id']);

    expect(p.input.IndexName).toBe('byEmail');
    expect(keyCondition(p)).toBe('emailPk = "ORG#acme#EMAIL#jane.doe@example.com"');
    expect(p.input.FilterExpression).toBeUndefined();
  });

  it("otherwise reads the organization's byCreatedAt index, in created_at then id order", () => {
    const p = plan({ city: 'Oslo' });

    expect(p.input.IndexName).toBe('byCreatedAt');
    expect(keyCondition(p)).toBe('pk = "ORG#acme"');
    expect(p.input).not.toHaveProperty('ScanIndexForward', false);
  });

  it('prefers the id over the e-mail, and then matches the e-mail case-insensitively through emailPk', () => {
    const p = plan({ email: 'JANE@example.com', id: 'u-1' });

    expect(p.input.IndexName).toBeUndefined();
    expect(keyCondition(p)).toBe('pk = "ORG#acme" AND sk = "USER#u-1"');
    expect(filterExpression(p)).toBe('#emailPk = "ORG#acme#EMAIL#jane@example.com"');
    expect(p.input.ExpressionAttributeNames).toMatchObject({ '#emailPk': 'emailPk' });
  });

  it('keeps a created_at range as a filter on the id path', () => {
    const p = plan({ id: 'u-1', created_at: { gte: '2024-01-01' } });

    expect(filterExpression(p)).toBe('#created_at >= "2024-01-01T00:00:00.000Z"');
  });
});

describe('planUserQuery: created_at as a key range on createdAtSk ({created_at}#{id})', () => {
  it('turns gte and lte into BETWEEN, the upper bound covering every id at that instant', () => {
    const p = plan({ created_at: { gte: '2024-01-01', lte: '2024-01-31T23:59:59Z' } });

    expect(keyCondition(p)).toBe(
      'statusPk = :pk AND createdAtSk BETWEEN "2024-01-01T00:00:00.000Z" AND "2024-01-31T23:59:59.000Z$"',
    );
    expect(p.input.FilterExpression).toBeUndefined();
  });

  it('starts a gt range after every id stored at the instant', () => {
    expect(keyCondition(plan({ created_at: { gt: '2024-01-01T00:00:00Z' } }))).toBe(
      'statusPk = :pk AND createdAtSk >= "2024-01-01T00:00:00.000Z$"',
    );
  });

  it('ends an lt range before the instant', () => {
    expect(keyCondition(plan({ created_at: { lt: '2024-01-01T00:00:00Z' } }))).toBe(
      'statusPk = :pk AND createdAtSk <= "2024-01-01T00:00:00.000Z"',
    );
  });

  it('bounds eq on both sides', () => {
    expect(keyCondition(plan({ created_at: { eq: '2024-03-01T10:00:00.5+01:00' } }))).toBe(
      'statusPk = :pk AND createdAtSk BETWEEN "2024-03-01T09:00:00.500Z" AND "2024-03-01T09:00:00.500Z$"',
    );
  });

  it('takes the tightest of several bounds', () => {
    expect(
      keyCondition(plan({ created_at: { gt: '2024-01-01', gte: '2024-02-01', lt: '2024-12-01', lte: '2024-06-01' } })),
    ).toBe('statusPk = :pk AND createdAtSk BETWEEN "2024-02-01T00:00:00.000Z" AND "2024-06-01T00:00:00.000Z$"');
  });

  it('applies the range to the byEmail index too', () => {
    const p = plan({ email: 'a@b.co', created_at: { lte: '2024-01-01' } });

    expect(p.input.IndexName).toBe('byEmail');
    expect(keyCondition(p)).toBe('emailPk = "ORG#acme#EMAIL#a@b.co" AND createdAtSk <= "2024-01-01T00:00:00.000Z$"');
  });

  it.each([
    [{ gt: '2025-01-01', lt: '2024-01-01' }],
    [{ gt: '2024-01-01', lt: '2024-01-01' }],
    [{ gte: '2024-01-02', lte: '2024-01-01' }],
  ])('marks the contradictory range %j empty (DynamoDB refuses BETWEEN with bounds reversed)', (range) => {
    expect(plan({ created_at: range }).empty).toBe(true);
  });

  it('does not mark gt and lte of the same instant contradictory: a key range that holds no id', () => {
    const p = plan({ created_at: { gt: '2024-01-01', lte: '2024-01-01' } });

    expect(p.empty).toBe(false);
    expect(keyCondition(p)).toContain('BETWEEN "2024-01-01T00:00:00.000Z$" AND "2024-01-01T00:00:00.000Z$"');
  });

  it('bounds ids whose UTF-8 bytes sort after U+FFFF (an emoji id at the instant is inside lte, outside gt)', () => {
    const stored = '2024-01-01T00:00:00.000Z#😀-user';
    const utf8Compare = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    const upper = plan({ created_at: { lte: '2024-01-01' } }).input.ExpressionAttributeValues![':v0'] as string;
    const lower = plan({ created_at: { gt: '2024-01-01' } }).input.ExpressionAttributeValues![':v0'] as string;

    expect(utf8Compare(stored, upper)).toBeLessThan(0);
    expect(utf8Compare(stored, lower)).toBeLessThan(0);
    expect(utf8Compare('2024-01-01T00:00:00.001Z#a', lower)).toBeGreaterThan(0);
  });
});

describe('planUserQuery: filter expression', () => {
  it('matches a registration category with IN over its stored values when byStatus cannot serve the query', () => {
    expect(filterExpression(plan({ registration_status: 'active', city: 'Oslo' }))).toBe(
      '#city = "Oslo" AND #registration_status IN ("Activated", "Complete")',
    );
  });

  it('combines every other filter with AND: strings, booleans, numbers and dates, each with placeholders', () => {
    const p = plan({
      last_name: 'Doe',
      is_deleted: false,
      age: { gte: 18, lt: 65 },
      dob: { gt: '1990-01-01T12:00:00Z' },
      updated_at: { lte: '2024-06-01T12:00:00+02:00' },
    });

    expect(filterExpression(p)).toBe(
      '#last_name = "Doe" AND #is_deleted = false AND #age >= 18 AND #age < 65 AND #dob > "1990-01-01" AND #updated_at <= "2024-06-01T10:00:00.000Z"',
    );
    expect(p.input.ExpressionAttributeNames).toMatchObject({
      '#last_name': 'last_name',
      '#is_deleted': 'is_deleted',
      '#age': 'age',
      '#dob': 'dob',
      '#updated_at': 'updated_at',
    });
  });

  it('gives every value its own placeholder, so equal values never share one by accident', () => {
    const p = plan({ first_name: 'Ann', last_name: 'Ann' });

    expect(p.input.FilterExpression).toBe('#first_name = :v1 AND #last_name = :v2');
    expect(Object.keys(p.input.ExpressionAttributeValues!)).toEqual([':v0', ':v1', ':v2']);
  });

  it('escapes every attribute name, reserved words such as name, state and status included', () => {
    const p = plan({ name: 'Jane', state: 'NSW', connection_status: 'Connected' }, ['name', 'state']);

    expect(p.input.FilterExpression).toBe('#name = :v1 AND #state = :v2 AND #connection_status = :v3');
    expect(p.input.ProjectionExpression).toBe('#name, #state');
  });
});

describe('planUserQuery: projection', () => {
  it('projects exactly the requested fields, in request order', () => {
    const p = plan({ city: 'Oslo' }, ['email', 'id', 'idcheck_pep_sanction_result']);

    expect(p.input.ProjectionExpression).toBe('#email, #id, #idcheck_pep_sanction_result');
    expect(p.input.ExpressionAttributeNames).toEqual({
      '#city': 'city',
      '#email': 'email',
      '#id': 'id',
      '#idcheck_pep_sanction_result': 'idcheck_pep_sanction_result',
    });
  });

  it('keeps placeholders apart for names sharing a prefix (id vs idcheck_match_status)', () => {
    const p = plan({ idcheck_match_status: 'Matched' }, ['id', 'idcheck_match_status', 'idcheck_pep_sanction_status']);

    expect(p.input.FilterExpression).toBe('#idcheck_match_status = :v1');
    expect(p.input.ProjectionExpression).toBe('#id, #idcheck_match_status, #idcheck_pep_sanction_status');
    expect(p.input.ExpressionAttributeNames).toEqual({
      '#id': 'id',
      '#idcheck_match_status': 'idcheck_match_status',
      '#idcheck_pep_sanction_status': 'idcheck_pep_sanction_status',
    });
  });
});

describe('planUserQuery: keys DynamoDB could not hold', () => {
  it('answers an id filter longer than any stored sort key with an empty plan instead of a DynamoDB error', () => {
    // Within the request's 1024-character limit, over DynamoDB's 1024-byte sort key.
    expect(plan({ id: 'é'.repeat(600) }).empty).toBe(true);
    expect(plan({ id: 'x'.repeat(16) }).empty).toBe(false);
  });

  it('answers an e-mail filter longer than any stored partition key with an empty plan', () => {
    // Within the request's 1024-character limit, over DynamoDB's 2048-byte partition key.
    expect(plan({ email: `${'€'.repeat(1000)}@example.com` }).empty).toBe(true);
  });
});

describe('planUserQuery: the byStatus index', () => {
  const BANDS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '-'];
  const partitionsOf = (status: string, bands = BANDS) => bands.map((band) => `ORG#acme#STATUS#${status}#AGE#${band}`);

  it('reads every age band of every registration status, and of users without either, when no filter narrows them', () => {
    const p = plan({});

    expect(p.input.IndexName).toBe('byStatus');
    expect(p.input.KeyConditionExpression).toBe('statusPk = :pk');
    expect(p.partitions).toEqual(
      ['Activated', 'Rejected', 'Referred', 'For Review', 'Complete', 'Deleted', '-'].flatMap((s) => partitionsOf(s)),
    );
    expect(p.input.FilterExpression).toBeUndefined();
    expect(p.input.ProjectionExpression).toBeUndefined();
  });

  it('turns a registration category into the partitions of its stored values, not a filter', () => {
    const p = plan({ registration_status: 'pending' });

    expect(p.partitions).toEqual([...partitionsOf('Referred'), ...partitionsOf('For Review')]);
    expect(p.input.FilterExpression).toBeUndefined();
  });

  it('keeps the filters on the fields the index carries as a FilterExpression', () => {
    const p = plan({ age: { gte: 18, lt: 30 }, data_sharing_agreed: true, country: 'Germany' });

    expect(p.input.IndexName).toBe('byStatus');
    expect(p.partitions).toEqual(
      ['Activated', 'Rejected', 'Referred', 'For Review', 'Complete', 'Deleted', '-'].flatMap((s) =>
        partitionsOf(s, ['1', '2']),
      ),
    );
    expect(filterExpression(p)).toBe(
      '#country = "Germany" AND #data_sharing_agreed = true AND #age >= 18 AND #age < 30',
    );
  });

  it.each([{ city: 'Oslo' }, { registration_status: 'active', name: 'Jane' }, { dob: { gte: '1990-01-01' } }])(
    'falls back to byCreatedAt for a filter on a field the index does not carry: %j',
    (filters) => {
      const p = plan(filters);

      expect(p.input.IndexName).toBe('byCreatedAt');
      expect(p.partitions).toBeUndefined();
    },
  );

  it.each([
    [{ gte: 18, lt: 30 }, ['1', '2']],
    [{ gt: 29.5, lte: 30 }, ['2', '3']],
    [{ eq: 45 }, ['4']],
    [{ gte: 150 }, ['10']],
    [{ lt: 10.5 }, ['0', '1']],
    [{ lt: 0 }, []],
  ])('reads the age bands (decades) the range %j can hold, never the users without an age', (age, bands) => {
    const p = plan({ registration_status: 'Complete', age });

    expect(p.partitions).toEqual(partitionsOf('Complete', bands));
    expect(p.empty).toBe(bands.length === 0);
    expect(filterExpression(p)).toContain('#age');
  });

  it('answers a registration status no user can have with no partitions to read', () => {
    const p = planUserQuery(
      TABLE,
      ORG,
      [{ kind: 'equals', field: 'registration_status', values: ['Unknown'] }],
      ['id'],
    );

    expect(p.empty).toBe(true);
  });
});
