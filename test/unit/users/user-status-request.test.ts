import { describe, expect, it } from 'vitest';
import { buildUserStatusStatements } from '#shared/adapters/postgres/user-status-sql.ts';
import { InvalidInputError, type FieldProblem } from '#shared/domain/errors.ts';
import type { UserStatusQuery } from '#shared/domain/users/user-status-query.ts';
import { userStatusRequestSchema } from '#shared/schemas/user-status-schemas.ts';
import { parseInput } from '#shared/http/validation.ts';
import { jsonCorpus, requestCorpus } from './json-corpus.ts';

const parse = (body: unknown): UserStatusQuery => parseInput(userStatusRequestSchema, body);

/** The problems parseInput reports; fails the test if the body is accepted. */
function problemsOf(body: unknown): readonly FieldProblem[] {
  try {
    parse(body);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as InvalidInputError).problems;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}

/** The single problem reported for `body`, as `{field, code}`. */
const problemOf = (body: unknown) => {
  const problems = problemsOf(body);
  expect(problems).toHaveLength(1);
  return { field: problems[0]!.field, code: problems[0]!.code };
};

const CONTRACT_CODES = new Set([
  'isNotEmpty',
  'isObject',
  'isArray',
  'isNumber',
  'isString',
  'isBoolean',
  'isInt',
  'isEmail',
  'isIn',
  'isDateString',
  'min',
  'max',
  'maxLength',
  'isJson',
]);

describe('user-status request validation', () => {
  it.each([
    ['a string', 'active'],
    ['an array', [{ registration_status: 'active' }]],
    ['null', null],
  ])('rejects filters given as %s with isObject on filters', (_, filters) => {
    expect(problemsOf({ filters })).toEqual([
      { field: 'filters', code: 'isObject', hint: 'filters must be an object' },
    ]);
  });

  it('rejects result_keys that is not an array with isArray on resultKeys', () => {
    expect(problemsOf({ result_keys: 'id,name' })).toEqual([
      { field: 'resultKeys', code: 'isArray', hint: 'result_keys must be an array' },
    ]);
  });

  it('rejects an unknown result key with isIn on its index, naming the member as sent', () => {
    const [problem] = problemsOf({ result_keys: ['id', 'name', 'nickname'] });

    expect(problem).toMatchObject({ field: 'resultKeys[2]', code: 'isIn' });
    expect(problem!.hint).toMatch(/^result_keys\[2\] must be one of .*"first_name"/);
  });

  it('rejects an empty result_keys with isNotEmpty', () => {
    expect(problemsOf({ result_keys: [] })).toEqual([
      { field: 'resultKeys', code: 'isNotEmpty', hint: 'result_keys must not be empty' },
    ]);
  });

  it('rejects pagination that is not an object, and a limit that is not a number', () => {
    expect(problemOf({ pagination: [10] })).toEqual({ field: 'pagination', code: 'isObject' });
    expect(problemsOf({ pagination: { limit: '10' } })).toEqual([
      { field: 'pagination.limit', code: 'isNumber', hint: 'pagination.limit must be a number' },
    ]);
  });

  it.each([
    [{ limit: 0 }, 'pagination.limit', 'min'],
    [{ limit: 1001 }, 'pagination.limit', 'max'],
    [{ limit: 1.5 }, 'pagination.limit', 'isInt'],
    [{ offset: -1 }, 'pagination.offset', 'min'],
    [{ offset: 2.5 }, 'pagination.offset', 'isInt'],
    [{ offset: '0' }, 'pagination.offset', 'isNumber'],
    [{ offset: 10_000_001 }, 'pagination.offset', 'max'],
    [{ page: 2 }, 'pagination.page', 'isIn'],
  ])('rejects pagination %j with %s on %s', (pagination, field, code) => {
    expect(problemOf({ pagination })).toEqual({ field, code });
  });

  it('accepts the pagination bounds: limit 1 and 1000, offset 0', () => {
    expect(parse({ pagination: { limit: 1, offset: 0 } })).toMatchObject({ limit: 1, offset: 0 });
    expect(parse({ pagination: { limit: 1000, offset: 5000 } })).toMatchObject({ limit: 1000, offset: 5000 });
    expect(parse({ pagination: { offset: 10_000_000 } })).toMatchObject({ offset: 10_000_000 });
  });

  it('bounds what a request may send: filter strings, dates and result_keys', () => {
    expect(problemOf({ filters: { city: 'x'.repeat(1025) } })).toEqual({ field: 'filters.city', code: 'maxLength' });
    expect(parse({ filters: { city: 'x'.repeat(1024) } })).toBeDefined();
    expect(problemOf({ filters: { dob: { gte: `2020-01-01${' '.repeat(60)}` } } })).toMatchObject({
      field: 'filters.dob.gte',
      code: 'maxLength',
    });
    expect(problemOf({ result_keys: Array.from({ length: 101 }, () => 'id') })).toEqual({
      field: 'resultKeys',
      code: 'maxLength',
    });
  });

  it('rejects a misspelt top-level member (filter) with isIn, naming the allowed members', () => {
    expect(problemsOf({ filter: { id: 'u1' } })).toEqual([
      { field: 'filter', code: 'isIn', hint: 'filter is not one of filters, result_keys, pagination' },
    ]);
  });

  it('rejects an unknown filter name with isIn on filters.<name>, camelCased', () => {
    const [problem] = problemsOf({ filters: { favourite_colour: 'blue' } });

    expect(problem).toMatchObject({ field: 'filters.favouriteColour', code: 'isIn' });
    expect(problem!.hint).toMatch(/^filters\.favourite_colour is not one of id, email, .*created_at, updated_at$/);
  });

  it('rejects filters of the wrong type: isString for a string filter, isBoolean for a boolean one', () => {
    expect(problemsOf({ filters: { first_name: 42, is_deleted: 'yes' } })).toEqual([
      { field: 'filters.firstName', code: 'isString', hint: 'filters.first_name must be a string' },
      { field: 'filters.isDeleted', code: 'isBoolean', hint: 'filters.is_deleted must be a boolean' },
    ]);
  });

  it('rejects a range filter that is not an object, or names no operator', () => {
    expect(problemOf({ filters: { age: 30 } })).toEqual({ field: 'filters.age', code: 'isObject' });
    expect(problemsOf({ filters: { age: {} } })).toEqual([
      { field: 'filters.age', code: 'isNotEmpty', hint: 'filters.age must name at least one of gt, gte, lt, lte, eq' },
    ]);
  });

  it('rejects an unknown range operator with isIn on the operator', () => {
    expect(problemOf({ filters: { age: { between: [18, 30] } } })).toEqual({
      field: 'filters.age.between',
      code: 'isIn',
    });
  });

  it('rejects range values of the wrong type: isNumber for numbers, isDateString for dates and timestamps', () => {
    expect(
      problemsOf({
        filters: { age: { gte: '18' }, guardian_dob: { gte: '01/02/1980' }, created_at: { lt: 1704067200000 } },
      }),
    ).toEqual([
      { field: 'filters.age.gte', code: 'isNumber', hint: 'filters.age.gte must be a number' },
      {
        field: 'filters.guardianDob.gte',
        code: 'isDateString',
        hint: 'filters.guardian_dob.gte must be an ISO 8601 date (YYYY-MM-DD) or timestamp',
      },
      { field: 'filters.createdAt.lt', code: 'isString', hint: 'filters.created_at.lt must be a string' },
    ]);
  });

  it.each([
    '2024-02-30',
    '2023-02-29',
    '2024-13-01',
    '2024-04-31',
    '2024-01-01T24:00:00Z',
    '2024-01-01T10:60:00Z',
    '2024-01-01T10:00:00',
    '9999-12-31T23:00:00-02:00',
  ])('rejects the impossible or zone-less date %j with isDateString', (value) => {
    expect(problemOf({ filters: { dob: { eq: value } } })).toEqual({ field: 'filters.dob.eq', code: 'isDateString' });
  });

  it('accepts a leap day', () => {
    expect(parse({ filters: { dob: { eq: '2024-02-29' } } }).filters).toEqual([
      { kind: 'range', field: 'dob', valueType: 'date', bounds: { eq: '2024-02-29' } },
    ]);
  });

  it.each([
    [1e20, 'max'],
    [-1e20, 'min'],
    [Infinity, 'max'],
    [1e-200, 'isNumber'],
  ])('rejects the number %s, which DynamoDB cannot compare, with %s instead of failing later', (gte, code) => {
    expect(problemOf({ filters: { fmc_score: { gte } } })).toEqual({ field: 'filters.fmcScore.gte', code });
  });

  it('rejects an unknown mobile_registration_status with isIn, and accepts the seed value with its trailing space, trimmed', () => {
    expect(problemOf({ filters: { mobile_registration_status: 'VERIFIED' } })).toEqual({
      field: 'filters.mobileRegistrationStatus',
      code: 'isIn',
    });
    expect(parse({ filters: { mobile_registration_status: 'VERIFICATION_FAILED ' } }).filters).toEqual([
      { kind: 'equals', field: 'mobile_registration_status', values: ['VERIFICATION_FAILED'] },
    ]);
  });

  it.each(['archived', 'Active', 'constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'rejects the registration_status %j, neither a category nor a stored value, with isIn',
    (registrationStatus) => {
      expect(problemOf({ filters: { registration_status: registrationStatus } })).toEqual({
        field: 'filters.registrationStatus',
        code: 'isIn',
      });
    },
  );

  it('reports every problem at once, across members', () => {
    const problems = problemsOf({
      filters: { age: { between: 1 }, email: 7, is_deleted: 'no' },
      result_keys: ['id', 'nope'],
      pagination: { limit: 0, offset: -1 },
      sort: 'created_at',
    });

    expect(problems.map(({ field, code }) => `${field} ${code}`)).toEqual([
      'filters.email isString',
      'filters.isDeleted isBoolean',
      'filters.age.between isIn',
      'resultKeys[1] isIn',
      'pagination.limit min',
      'pagination.offset min',
      'sort isIn',
    ]);
  });
});

describe('user-status request defaults and normalisation', () => {
  it('turns {} into no filters, the default dataset in the contract order, limit 50 and offset 0', () => {
    expect(parse({})).toEqual({
      filters: [],
      resultKeys: [
        'id',
        'name',
        'email',
        'registration_status',
        'mobile_registration_status',
        'connection_status',
        'created_at',
        'updated_at',
      ],
      limit: 50,
      offset: 0,
    });
  });

  it('removes duplicate result keys, keeping the first occurrence order', () => {
    expect(parse({ result_keys: ['email', 'id', 'email', 'age', 'id'] }).resultKeys).toEqual(['email', 'id', 'age']);
  });

  it.each([
    ['active', ['Activated', 'Complete']],
    ['pending', ['For Review', 'Referred']],
    ['suspended', ['Rejected']],
    ['inactive', ['Deleted']],
    ['For Review', ['For Review']],
    ['Activated', ['Activated']],
  ])('maps the registration_status %j to the stored values %j', (registrationStatus, values) => {
    expect(parse({ filters: { registration_status: registrationStatus } }).filters).toEqual([
      { kind: 'equals', field: 'registration_status', values },
    ]);
  });

  it('trims and lower-cases the email filter, and keeps other strings exactly', () => {
    expect(parse({ filters: { email: '  Jane.Doe@Example.COM ', city: ' Zürich ' } }).filters).toEqual([
      { kind: 'equals', field: 'email', values: ['jane.doe@example.com'] },
      { kind: 'equals', field: 'city', values: [' Zürich '] },
    ]);
  });

  it('keeps boolean filters and number ranges as given', () => {
    expect(parse({ filters: { data_sharing_agreed: false, age: { gt: 17, lte: 65.5 } } }).filters).toEqual([
      { kind: 'boolean', field: 'data_sharing_agreed', value: false },
      { kind: 'range', field: 'age', valueType: 'number', bounds: { gt: 17, lte: 65.5 } },
    ]);
  });

  it('compares dob as calendar dates: a timestamp bound becomes its UTC date', () => {
    expect(parse({ filters: { dob: { gte: '1990-05-01T23:30:00-02:00', lt: '2000-01-01' } } }).filters).toEqual([
      { kind: 'range', field: 'dob', valueType: 'date', bounds: { gte: '1990-05-02', lt: '2000-01-01' } },
    ]);
  });

  it('compares created_at as instants: dates and offsets become canonical UTC milliseconds', () => {
    expect(
      parse({
        filters: {
          created_at: { gte: '2024-01-01', lte: '2024-01-01T02:00:00+02:00' },
          updated_at: { gt: '2024-06-30T12:00Z' },
        },
      }).filters,
    ).toEqual([
      {
        kind: 'range',
        field: 'created_at',
        valueType: 'instant',
        bounds: { gte: '2024-01-01T00:00:00.000Z', lte: '2024-01-01T00:00:00.000Z' },
      },
      { kind: 'range', field: 'updated_at', valueType: 'instant', bounds: { gt: '2024-06-30T12:00:00.000Z' } },
    ]);
  });
});

describe('user-status request: never a 500 for any JSON input', () => {
  /** parseInput either accepts a body or throws InvalidInputError with contract codes; an accepted one plans and marshals. */
  function checkBody(body: unknown): 'accepted' | 'rejected' {
    let query: UserStatusQuery;
    try {
      query = parse(body);
    } catch (error) {
      if (!(error instanceof InvalidInputError))
        throw new Error(`${JSON.stringify(body)} threw ${String(error)}`, { cause: error });
      expect(error.problems.length).toBeGreaterThan(0);
      for (const problem of error.problems) {
        expect(CONTRACT_CODES.has(problem.code), `${problem.code} for ${JSON.stringify(body)}`).toBe(true);
        expect(problem.field).toEqual(expect.any(String));
        expect(problem.hint).toEqual(expect.any(String));
      }
      return 'rejected';
    }
    const { page, count } = buildUserStatusStatements('acme', query.filters, {
      offset: query.offset,
      limit: query.limit,
      fields: query.resultKeys,
    });
    // Every value is bound: one placeholder per value, each a plain scalar; no request text in the SQL.
    for (const statement of [page, count]) {
      const placeholders = new Set(statement.text.match(/\$\d+/g));
      expect(placeholders.size, JSON.stringify(body)).toBe(statement.values.length);
      for (const value of statement.values) expect(['string', 'number', 'boolean']).toContain(typeof value);
      expect(statement.text).not.toMatch(/'/);
    }
    return 'accepted';
  }

  it('throws only InvalidInputError for 400 arbitrary JSON values', () => {
    const outcomes = jsonCorpus(20240601, 400).map(checkBody);

    expect(outcomes).toContain('rejected');
  });

  it('throws only InvalidInputError for 400 near-valid request bodies, and plans every accepted one', () => {
    const outcomes = requestCorpus(7, 400).map(checkBody);

    // The corpus reaches deep: a good share is accepted and goes on to the SQL builder.
    expect(outcomes.filter((outcome) => outcome === 'accepted').length).toBeGreaterThan(40);
    expect(outcomes.filter((outcome) => outcome === 'rejected').length).toBeGreaterThan(40);
  });
});
