import { describe, expect, it } from 'vitest';
import { ageOn, humanizeCode } from '#shared/domain/reports/report-values.ts';

describe('humanizeCode', () => {
  it.each([
    ['pending_review', 'Pending review'],
    ['PENDING_REVIEW', 'Pending review'],
    ['REQUEST_ID_VERIFICATION', 'Request ID verification'],
    ['FACEMATCH_FAILED', 'Face match failed'],
    ['POTENTIAL_MATCH', 'Potential match'],
    ['CLEAR', 'Clear'],
    ['on-hold', 'On hold'],
  ])('shows %s as "%s", keeping the code', (code, text) => {
    expect(humanizeCode(code)).toEqual({ text, code });
  });

  it.each(['Activated', 'For Review', 'Potential match', 'Flagged'])(
    'shows "%s", already words, as stored',
    (value) => {
      expect(humanizeCode(value)).toEqual({ text: value });
    },
  );

  it('shows the missing mark, without a code, for no value', () => {
    expect(humanizeCode(undefined)).toEqual({ text: '—' });
    expect(humanizeCode('  ')).toEqual({ text: '—' });
  });

  it('keeps a value of another type as plain text', () => {
    expect(humanizeCode(42)).toEqual({ text: '42' });
  });
});

describe('ageOn', () => {
  it('counts whole years to the instant, in UTC', () => {
    expect(ageOn('2007-10-20', new Date('2026-11-25T10:00:00Z'))).toBe(19);
    expect(ageOn('2007-10-20', new Date('2026-10-19T23:59:59Z'))).toBe(18);
    expect(ageOn('2007-10-20', new Date('2026-10-20T00:00:00Z'))).toBe(19);
  });

  it('makes someone born on 29 February a year older on 1 March of a common year', () => {
    expect(ageOn('2008-02-29', new Date('2027-02-28T12:00:00Z'))).toBe(18);
    expect(ageOn('2008-02-29', new Date('2027-03-01T00:00:00Z'))).toBe(19);
  });

  it.each([undefined, 17, '', '2007-02-30', '20.10.2007', '2007-13-01', '2030-01-01'])('has no age for %s', (dob) => {
    expect(ageOn(dob, new Date('2026-11-25T10:00:00Z'))).toBeUndefined();
  });
});
