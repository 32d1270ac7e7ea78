import { describe, expect, it } from 'vitest';
import { DEMO_STAFF, staffDirectory, type StaffMember } from '#local/demo-staff.ts';
import { DEMO_ORG_ID, DEMO_ORGANIZATION_NAME } from '#local/demo-users.ts';
import { ROLE_SCOPES } from '#shared/domain/identity/staff-roles.ts';

const auditor: StaffMember = {
  id: 'staff-other-auditor',
  email: 'auditor@other-org.test',
  password: 'other-org-auditor',
  orgId: 'other-org',
  role: 'auditor',
  scopes: ROLE_SCOPES.auditor,
};

describe('the local identity provider’s staff directory', () => {
  it('holds the demo organization’s staff alone by default', () => {
    const directory = staffDirectory();
    for (const member of DEMO_STAFF) expect(directory.byId(member.id)).toBe(member);
    expect(directory.byEmail(auditor.email)).toBeUndefined();
    expect(directory.organizationName(DEMO_ORG_ID)).toBe(DEMO_ORGANIZATION_NAME);
  });

  it('adds other organizations’ staff and names, found by id and by the e-mail as typed', () => {
    const directory = staffDirectory([{ orgId: 'other-org', name: 'Other Org Ltd', staff: [auditor] }]);

    expect(directory.byId(auditor.id)).toBe(auditor);
    expect(directory.byEmail('  Auditor@Other-Org.test ')).toBe(auditor);
    expect(directory.byEmail(DEMO_STAFF[0]!.email)).toBe(DEMO_STAFF[0]);
    expect(directory.organizationName('other-org')).toBe('Other Org Ltd');
    expect(directory.organizationName('nobody')).toBeUndefined();
  });

  it('refuses two staff members with one e-mail address', () => {
    const twin = { ...auditor, id: 'staff-other-twin' };
    expect(() => staffDirectory([{ orgId: 'other-org', name: 'Other', staff: [auditor, twin] }])).toThrow(
      'share an id or an e-mail',
    );
  });
});
