import type { StaffedOrganization, StaffMember } from '#local/demo-staff.ts';
import { ROLE_SCOPES, ROLES, type Role } from '#shared/domain/identity/staff-roles.ts';

/**
 * The browser tier's organizations: one per file, and one for each test that changes what it reads
 * (issues or revokes a token, requests a report, erases a user, registers a webhook, writes an audit
 * event), so no test reads another's state and the tier passes in any order (it runs shuffled,
 * docs/testing.md). The global setup seeds each with the demo users and gives the local identity
 * provider its four staff members, one per role. The demo organization is `npm start`'s, untouched.
 */
export const BROWSER_ORGANIZATIONS = [
  'dashboard',
  'dashboard-tokens',
  'dashboard-activity',
  'dashboard-reports',
  'dashboard-erasure',
  'dashboard-webhooks',
  'users-page',
  'users-page-report',
  'users-page-erasure',
  'users-page-tokens',
  'oidc-sign-in',
  'staff-roles',
  'staff-roles-cut-off-erasure',
  'verify-report-page',
  'sandbox-mode',
  'sandbox-mode-emails',
  'sandbox-mode-events',
  'sandbox-mode-wipe',
] as const;
export type BrowserOrganization = (typeof BROWSER_ORGANIZATIONS)[number];

export const orgIdOf = (organization: BrowserOrganization): string => `browser-${organization}`;

/** The organization's staff member in `role` (default admin): e-mail `<role>@<orgId>.test`, a password of the same kind. */
export function staffOf(organization: BrowserOrganization, role: Role = 'admin'): StaffMember {
  const orgId = orgIdOf(organization);
  return {
    id: `staff-${orgId}-${role}`,
    email: `${role}@${orgId}.test`,
    password: `${orgId}-${role}`,
    orgId,
    role,
    scopes: ROLE_SCOPES[role],
  };
}

/** Every browser organization with its staff, for the local identity provider. */
export function staffedBrowserOrganizations(): StaffedOrganization[] {
  return BROWSER_ORGANIZATIONS.map((organization) => ({
    orgId: orgIdOf(organization),
    name: `Browser ${organization}`,
    staff: ROLES.map((role) => staffOf(organization, role)),
  }));
}
