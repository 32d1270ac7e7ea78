import { describe, expect, it } from 'vitest';
import { parseUserRecord } from '#shared/domain/users/user-record-schema.ts';
import { InvalidInputError } from '#shared/domain/errors.ts';
import { onboardingTokenRequestSchema } from '#shared/schemas/onboarding-token-schemas.ts';
import { parseInput } from '#shared/http/validation.ts';

const valid = { email: 'zoe@example.com', first_name: 'Zoë', last_name: 'Ångström' };

function problemsOf(body: Record<string, unknown>) {
  try {
    parseInput(onboardingTokenRequestSchema, body);
    return [];
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return error.problems.map(({ field, code }) => ({ field, code }));
  }
}

describe('names and e-mails refuse characters no name holds', () => {
  it.each([
    ['NUL', 'Zo\u0000ë'],
    ['a line break', 'Zoë\nBcc: x@evil.test'],
    ['escape', 'Zo\u001bë'],
    ['a C1 control', 'Zo\u0085ë'],
    ['an unpaired surrogate', 'Zo\uD800ë'],
    ['a right-to-left override', 'Zoë\u202Egnp.exe'],
    ['a first-strong isolate', 'Zo\u2068ë'],
  ])('refuses %s in a name with a 400 on that field', (_label, name) => {
    expect(problemsOf({ ...valid, first_name: name })).toEqual([{ field: 'firstName', code: 'isString' }]);
    expect(problemsOf({ ...valid, last_name: name })).toEqual([{ field: 'lastName', code: 'isString' }]);
  });

  it('refuses them in an e-mail address too', () => {
    expect(problemsOf({ ...valid, email: 'zoe\u202E@example.com' })).toEqual([{ field: 'email', code: 'isString' }]);
  });

  it('accepts every script, combining marks and the plain direction marks', () => {
    for (const name of ['山田 太郎', 'محمد\u200F', 'שרה', 'नमस्ते', 'Ελένη', 'Đặng Thị', 'Zoë\u200E']) {
      expect(problemsOf({ ...valid, first_name: name })).toEqual([]);
    }
  });

  it('refuses them in imported user names, naming the member', () => {
    const parsed = parseUserRecord('acme', { id: 'u1', created_at: '2025-01-01T00:00:00Z', last_name: 'X\u202Ey' });
    expect(parsed).toMatchObject({ success: false, problems: [expect.stringMatching(/^last_name must not contain/)] });
  });
});
