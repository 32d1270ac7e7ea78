import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, type FieldProblem } from '#shared/domain/errors.ts';
import { onboardingTokenRequestSchema } from '#shared/schemas/onboarding-token-schemas.ts';
import { parseInput, toCamelCase, toFieldProblem } from '#shared/http/validation.ts';

/** Runs parseInput and returns the problems it reports; fails the test if the input is accepted. */
function problemsOf(schema: v.GenericSchema, input: unknown): readonly FieldProblem[] {
  try {
    parseInput(schema, input);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as InvalidInputError).problems;
  }
  throw new Error('expected parseInput to reject the input');
}

const validRequest = { email: 'jane.doe@example.com', first_name: 'Jane', last_name: 'Doe' };

describe('parseInput with the onboarding token schema', () => {
  it('reports each missing member as isNotEmpty, with camelCase fields and hints naming the sent member', () => {
    // Act
    const problems = problemsOf(onboardingTokenRequestSchema, {});

    // Assert
    expect(problems).toEqual([
      { field: 'email', code: 'isNotEmpty', hint: 'email is required' },
      { field: 'firstName', code: 'isNotEmpty', hint: 'first_name is required' },
      { field: 'lastName', code: 'isNotEmpty', hint: 'last_name is required' },
    ]);
  });

  it('reports members of the wrong type as isString', () => {
    const problems = problemsOf(onboardingTokenRequestSchema, { email: 42, first_name: true, last_name: { a: 1 } });

    expect(problems).toEqual([
      { field: 'email', code: 'isString', hint: 'email must be a string' },
      { field: 'firstName', code: 'isString', hint: 'first_name must be a string' },
      { field: 'lastName', code: 'isString', hint: 'last_name must be a string' },
    ]);
  });

  it('treats a whitespace-only name as empty (isNotEmpty)', () => {
    const problems = problemsOf(onboardingTokenRequestSchema, { ...validRequest, last_name: ' \t  ' });

    expect(problems).toEqual([{ field: 'lastName', code: 'isNotEmpty', hint: 'last_name must not be empty' }]);
  });

  it('rejects a 101-character name with maxLength and accepts 100 characters', () => {
    const problems = problemsOf(onboardingTokenRequestSchema, { ...validRequest, first_name: 'a'.repeat(101) });
    const accepted = parseInput(onboardingTokenRequestSchema, { ...validRequest, first_name: 'a'.repeat(100) });

    expect(problems).toEqual([
      { field: 'firstName', code: 'maxLength', hint: 'first_name must be at most 100 characters' },
    ]);
    expect(accepted.first_name).toHaveLength(100);
  });

  it.each(['not-an-email', 'jane@', '@example.com', 'jane doe@example.com'])(
    'rejects the e-mail %j with isEmail',
    (email) => {
      const problems = problemsOf(onboardingTokenRequestSchema, { ...validRequest, email });

      expect(problems).toEqual([{ field: 'email', code: 'isEmail', hint: 'email must be a valid e-mail address' }]);
    },
  );

  it('reports an empty e-mail once, as isNotEmpty, not also as isEmail', () => {
    const problems = problemsOf(onboardingTokenRequestSchema, { ...validRequest, email: '   ' });

    expect(problems).toEqual([{ field: 'email', code: 'isNotEmpty', hint: 'email must not be empty' }]);
  });

  it('trims and lower-cases the e-mail and trims the names on success', () => {
    const output = parseInput(onboardingTokenRequestSchema, {
      email: '  Jane.Doe@Example.COM ',
      first_name: ' Jane ',
      last_name: 'Doe  ',
    });

    expect(output).toEqual({ email: 'jane.doe@example.com', first_name: 'Jane', last_name: 'Doe' });
  });

  it('ignores and drops unknown members', () => {
    const output = parseInput(onboardingTokenRequestSchema, { ...validRequest, role: 'admin', nested: { x: 1 } });

    expect(output).toEqual(validRequest);
  });

  it('reports all problems of one request at once, not just the first', () => {
    const problems = problemsOf(onboardingTokenRequestSchema, { email: 'nope', first_name: 'b'.repeat(150) });

    expect(problems.map((p) => `${p.field}:${p.code}`)).toEqual([
      'email:isEmail',
      'firstName:maxLength',
      'lastName:isNotEmpty',
    ]);
  });

  it('reports a body that is not an object as isObject on the body', () => {
    const problems = problemsOf(onboardingTokenRequestSchema, 'jane@example.com');

    expect(problems).toEqual([{ field: 'body', code: 'isObject', hint: 'body must be an object' }]);
  });
});

describe('parseInput with ad-hoc schemas', () => {
  it('reports an unknown member of a strict object as isIn on that member', () => {
    const schema = v.strictObject({ filters: v.optional(v.object({})), result_keys: v.optional(v.array(v.string())) });

    const problems = problemsOf(schema, { filter: {}, result_keys: [] });

    expect(problems).toEqual([{ field: 'filter', code: 'isIn', hint: 'filter is not a known member' }]);
  });

  it('formats nested paths as camelCase dotted paths with array indexes', () => {
    const schema = v.object({
      filters: v.object({ guardian_dob: v.object({ gte: v.pipe(v.string(), v.isoDate()) }) }),
      result_keys: v.array(v.picklist(['id', 'email', 'first_name'])),
    });

    const problems = problemsOf(schema, {
      filters: { guardian_dob: { gte: '01/02/2003' } },
      result_keys: ['id', 'email', 'favourite_colour'],
    });

    expect(problems).toEqual([
      {
        field: 'filters.guardianDob.gte',
        code: 'isDateString',
        hint: 'filters.guardian_dob.gte must be an ISO 8601 date (YYYY-MM-DD) or timestamp',
      },
      {
        field: 'resultKeys[2]',
        code: 'isIn',
        hint: expect.stringMatching(/^result_keys\[2\] must be one of .*"id", "email", "first_name"/),
      },
    ]);
  });

  const limitSchema = v.object({ limit: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)) });

  it.each([
    { limit: '10', code: 'isNumber', hint: 'limit must be a number' },
    { limit: 2.5, code: 'isInt', hint: 'limit must be an integer' },
    { limit: 0, code: 'min', hint: 'limit must be at least 1' },
    { limit: 1001, code: 'max', hint: 'limit must be at most 1000' },
  ])('reports limit $limit as $code', ({ limit, code, hint }) => {
    const problems = problemsOf(limitSchema, { limit });

    expect(problems).toEqual([{ field: 'limit', code, hint }]);
  });

  it('accepts the number rules at their bounds', () => {
    expect(parseInput(limitSchema, { limit: 1 })).toEqual({ limit: 1 });
    expect(parseInput(limitSchema, { limit: 1000 })).toEqual({ limit: 1000 });
  });

  it('reports a value outside a picklist as isIn naming the allowed values', () => {
    const schema = v.object({ registration_status: v.picklist(['active', 'pending']) });

    const problems = problemsOf(schema, { registration_status: 'archived' });

    expect(problems).toEqual([
      {
        field: 'registrationStatus',
        code: 'isIn',
        hint: expect.stringMatching(/^registration_status must be one of .*"active", "pending"/),
      },
    ]);
  });

  it.each([
    {
      schema: v.object({ result_keys: v.array(v.string()) }),
      input: { result_keys: 'id' },
      field: 'resultKeys',
      code: 'isArray',
    },
    { schema: v.object({ filters: v.object({}) }), input: { filters: 'age>3' }, field: 'filters', code: 'isObject' },
    { schema: v.object({ is_minor: v.boolean() }), input: { is_minor: 'true' }, field: 'isMinor', code: 'isBoolean' },
  ])('reports a wrong container or boolean type as $code', ({ schema, input, field, code }) => {
    const problems = problemsOf(schema, input);

    expect(problems).toEqual([expect.objectContaining({ field, code })]);
  });

  it('takes the contract code and hint from a custom check message of the form "code: hint"', () => {
    const schema = v.object({
      job_id: v.pipe(
        v.string(),
        v.check((s) => s.length === 36, 'isUuid: must be a UUID'),
      ),
    });

    const problems = problemsOf(schema, { job_id: 'abc' });

    expect(problems).toEqual([{ field: 'jobId', code: 'isUuid', hint: 'job_id must be a UUID' }]);
  });

  it('reports every failing member of a larger input in one error', () => {
    const schema = v.object({
      user_id: v.pipe(v.string(), v.minLength(1), v.maxLength(16)),
      pagination: v.object({ limit: v.number(), offset: v.pipe(v.number(), v.minValue(0)) }),
      flags: v.array(v.boolean()),
    });

    const problems = problemsOf(schema, {
      user_id: '',
      pagination: { limit: 'x', offset: -1 },
      flags: [true, 'no', 1],
    });

    expect(problems.map((p) => `${p.field}:${p.code}`)).toEqual([
      'userId:isNotEmpty',
      'pagination.limit:isNumber',
      'pagination.offset:min',
      'flags[1]:isBoolean',
      'flags[2]:isBoolean',
    ]);
  });
});

describe('toFieldProblem', () => {
  it('translates a single valibot issue into field, code and hint', () => {
    const result = v.safeParse(v.object({ guardian_dob: v.object({ lte: v.string() }) }), { guardian_dob: { lte: 5 } });
    const issue = result.issues?.[0];
    if (!issue) throw new Error('expected an issue');

    expect(toFieldProblem(issue)).toEqual({
      field: 'guardianDob.lte',
      code: 'isString',
      hint: 'guardian_dob.lte must be a string',
    });
  });

  it('camelCases snake_case member names, including digits', () => {
    expect(toCamelCase('mobile_registration_status')).toBe('mobileRegistrationStatus');
    expect(toCamelCase('address_line_2')).toBe('addressLine2');
    expect(toCamelCase('email')).toBe('email');
  });
});
