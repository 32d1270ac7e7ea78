import { describe, expect, it } from 'vitest';
import { reportFlags, reportSummary } from '#shared/domain/reports/report-summary.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';

const base: UserRecord = { id: 'u-1', organization_id: 'org-1', created_at: '2026-01-01T00:00:00.000Z' };
const cleared = {
  status: 'Cleared' as const,
  timestamp: '2026-10-29T09:12:44.000Z',
  pep_result: [],
  sanction_result: [],
};

describe('reportFlags', () => {
  it('flags nothing on a clean record, or one that says nothing', () => {
    expect(reportFlags(base)).toEqual([]);
    expect(
      reportFlags({ ...base, idcheck_pep_sanction_status: 'CLEAR', idcheck_pep_sanction_result: cleared }),
    ).toEqual([]);
  });

  it('flags a screening flagged by either status, counting the matches to review', () => {
    expect(reportFlags({ ...base, idcheck_pep_sanction_status: 'POTENTIAL_MATCH' })).toEqual(['Screening flagged']);
    expect(
      reportFlags({
        ...base,
        idcheck_pep_sanction_result: { ...cleared, status: 'Flagged', pep_result: [{}], sanction_result: [{}, {}] },
      }),
    ).toEqual(['Screening flagged: 3 matches to review']);
  });

  it('flags a deleted record, a rejected registration and a failed verification', () => {
    expect(
      reportFlags({
        ...base,
        is_deleted: true,
        registration_status: 'Rejected',
        mobile_registration_status: 'FACEMATCH_FAILED',
      }),
    ).toEqual(['Record deleted', 'Registration rejected', 'Identity verification failed']);
    expect(reportFlags({ ...base, high_level_result: 'FAILED' })).toEqual(['Identity verification failed']);
  });
});

describe('reportSummary', () => {
  it('lists one flag a line, and "None" when there is none', () => {
    const rows = (user: UserRecord) => reportSummary(user, { generatedAt: new Date() }).rows;
    const flagsOf = (user: UserRecord) => rows(user).find((row) => row.fields[0].label === 'Flags')!.fields[0];

    expect(flagsOf(base)).toEqual({ label: 'Flags', value: 'None' });
    expect(flagsOf({ ...base, is_deleted: true, registration_status: 'Rejected' })).toEqual({
      label: 'Flags',
      value: 'Record deleted\nRegistration rejected',
      tone: 'alert',
    });
  });
});
