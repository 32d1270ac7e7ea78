import { describe, expect, it } from 'vitest';
import { parseUserRecord } from '#shared/domain/users/user-record-schema.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';

const minimal = { id: 'u-1', created_at: '2024-01-01T00:00:00.000Z' };

function accepted(input: unknown): UserRecord {
  const result = parseUserRecord('acme', input);
  if (!result.success) throw new Error(`expected the record to be accepted: ${result.problems.join('; ')}`);
  return result.record;
}

function problemsOf(input: unknown): string[] {
  const result = parseUserRecord('acme', input);
  if (result.success) throw new Error('expected the record to be rejected');
  return result.problems;
}

const screening = (pep: unknown, sanction: unknown = []) => ({
  ...minimal,
  idcheck_pep_sanction_result: {
    status: 'Flagged',
    timestamp: '2024-05-01T12:00:00+02:00',
    pep_result: pep,
    sanction_result: sanction,
  },
});

describe('parseUserRecord: normalisation for storage', () => {
  it('sets organization_id to the importing organization', () => {
    expect(accepted(minimal)).toEqual({ ...minimal, organization_id: 'acme' });
  });

  it('accepts a record whose organization_id is the importing organization', () => {
    expect(accepted({ ...minimal, organization_id: 'acme' }).organization_id).toBe('acme');
  });

  it('stores every timestamp in one canonical form: UTC, milliseconds, Z', () => {
    const record = accepted({
      id: 'u-1',
      created_at: '2024-01-01T02:00:00+02:00',
      updated_at: '2024-06-30T12:00Z',
      connection_status_updated_at: '2024-03-01',
    });

    expect(record).toMatchObject({
      created_at: '2024-01-01T00:00:00.000Z',
      updated_at: '2024-06-30T12:00:00.000Z',
      connection_status_updated_at: '2024-03-01T00:00:00.000Z',
    });
  });

  it('stores dob and guardian_dob as calendar dates, a timestamp cut to its UTC date', () => {
    const record = accepted({ ...minimal, dob: '1990-05-01T23:30:00-02:00', guardian_dob: '1960-12-31' });

    expect(record).toMatchObject({ dob: '1990-05-02', guardian_dob: '1960-12-31' });
  });

  it('stores a single pep_result or sanction_result object as a one-element array, and keeps arrays', () => {
    const entry = {
      firstName: 'Jane',
      lastName: 'Doe',
      datasets: ['PEP'],
      addresses: [{ city: 'Oslo' }],
      isDeceased: false,
    };

    const record = accepted(screening(entry, [entry, { status: 'Cleared' }]));

    expect(record.idcheck_pep_sanction_result).toEqual({
      status: 'Flagged',
      timestamp: '2024-05-01T10:00:00.000Z',
      pep_result: [entry],
      sanction_result: [entry, { status: 'Cleared' }],
    });
  });

  it("stores mobile_registration_status VERIFICATION_FAILED without the seed's trailing space", () => {
    expect(
      accepted({ ...minimal, mobile_registration_status: 'VERIFICATION_FAILED ' }).mobile_registration_status,
    ).toBe('VERIFICATION_FAILED');
  });

  it('keeps members of screening entries it does not know (the seed lists a shape, not a closed set)', () => {
    const record = accepted(screening([{ firstName: 'Jane', riskScore: 0.7 }]));

    expect(record.idcheck_pep_sanction_result?.pep_result).toEqual([{ firstName: 'Jane', riskScore: 0.7 }]);
  });
});

describe('parseUserRecord: rejections name the member and the reason', () => {
  it('rejects an unknown member', () => {
    expect(problemsOf({ ...minimal, nickname: 'JD' })).toEqual([
      expect.stringMatching(/^nickname: .*never.*"nickname"/),
    ]);
  });

  it('rejects an id over 16 characters and accepts 16', () => {
    expect(problemsOf({ ...minimal, id: 'x'.repeat(17) })).toEqual([expect.stringMatching(/^id: .*<=16.*17/)]);
    expect(accepted({ ...minimal, id: 'x'.repeat(16) }).id).toHaveLength(16);
  });

  it('rejects a missing or empty id and a missing created_at', () => {
    expect(problemsOf({ id: '' })).toEqual([expect.stringMatching(/^id\b/), 'created_at is required']);
  });

  it('rejects a malformed e-mail', () => {
    expect(problemsOf({ ...minimal, email: 'jane.doe-at-example.com' })).toEqual(['email must be an e-mail address']);
  });

  it('rejects a record of another organization, naming both', () => {
    expect(problemsOf({ ...minimal, organization_id: 'globex' })).toEqual(['organization_id: is globex, not acme']);
  });

  it('reports every problem of a line at once', () => {
    const problems = problemsOf({
      ...minimal,
      id: 'x'.repeat(20),
      email: 'nope',
      age: -1,
      is_deleted: 'no',
      registration_status: 'active',
    });

    expect(problems.map((problem) => problem.split(/[: ]/)[0])).toEqual([
      'id',
      'email',
      'age',
      'is_deleted',
      'registration_status',
    ]);
  });

  it.each([
    ['dob', '2024-02-30'],
    ['dob', '30/01/1990'],
    ['created_at', '2024-01-01T10:00:00'],
    ['updated_at', '2023-02-29T00:00:00Z'],
  ])('rejects %s %j with isDateString', (field, value) => {
    expect(problemsOf({ ...minimal, [field]: value })).toEqual([
      expect.stringMatching(new RegExp(`^${field}: isDateString`)),
    ]);
  });

  it('rejects a registration_status that is not a stored value (categories are for filters only)', () => {
    expect(problemsOf({ ...minimal, registration_status: 'active' })).toEqual([
      expect.stringMatching(/^registration_status must be one of "Activated"/),
    ]);
  });

  it('rejects an array of screening entries holding a bad entry, instead of storing the array as one object', () => {
    expect(problemsOf(screening([{ firstName: 'Jane' }, { addresses: [{ city: 5 }] }]))).toEqual([
      'idcheck_pep_sanction_result.pep_result.1.addresses.0.city must be a string',
    ]);
    expect(problemsOf(screening([[{ firstName: 'Jane' }]]))).toEqual([
      'idcheck_pep_sanction_result.pep_result.0 must be an object',
    ]);
  });

  it('rejects screening results that are neither an array nor an object', () => {
    expect(problemsOf(screening('none', null))).toEqual([
      'idcheck_pep_sanction_result.pep_result must be an array of entries or one entry object',
      'idcheck_pep_sanction_result.sanction_result must be an array of entries or one entry object',
    ]);
  });

  it.each([
    ['a string', 'u-1'],
    ['null', null],
    ['a number', 42],
  ])('rejects a line holding %s, not an object', (_, input) => {
    expect(problemsOf(input)).toEqual([expect.stringMatching(/^record: .*Object/)]);
  });
});
