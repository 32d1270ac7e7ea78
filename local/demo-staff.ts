import * as v from 'valibot';
import demoStaffData from '#local/demo-data/demo-staff.json' with { type: 'json' };
import { ROLE_SCOPES, ROLES, type Role } from '#shared/domain/identity/staff-roles.ts';
import { DEMO_ORG_ID, DEMO_ORGANIZATION_NAME } from './demo-users.ts';

/**
 * The people who sign in to the local identity provider (docs/contract.md §20): the demo organization's
 * staff, one per role, with well-known passwords the `npm start` banner prints (local only, so
 * the passwords are plain data in local/demo-data/demo-staff.json).
 */
export interface StaffMember {
  /** The `sub` of this person's tokens: an opaque id, never the e-mail, so audit events hold no personal data. */
  id: string;
  email: string;
  password: string;
  orgId: string;
  /** Put into the person's access tokens (claim `role`). */
  role: Role;
  /** The scopes this person may be granted: their role's (the dashboard asks for all; the grant keeps these). */
  scopes: readonly string[];
}

const staffEntrySchema = v.object({
  id: v.string(),
  email: v.pipe(v.string(), v.email()),
  password: v.string(),
  role: v.picklist(ROLES),
});

export const DEMO_STAFF: readonly StaffMember[] = v
  .parse(v.array(staffEntrySchema), demoStaffData)
  .map((entry) => ({ ...entry, orgId: DEMO_ORG_ID, scopes: ROLE_SCOPES[entry.role] }));

/** Organization names the provider puts into tokens (claim `org_name`, shown in the onboarding e-mail). */
export const KNOWN_ORGANIZATION_NAMES: Readonly<Record<string, string>> = { [DEMO_ORG_ID]: DEMO_ORGANIZATION_NAME };

/** An organization whose staff sign in to the local identity provider besides the demo organization's (the browser tier's own). */
export interface StaffedOrganization {
  orgId: string;
  /** Its tokens' `org_name`. */
  name: string;
  staff: readonly StaffMember[];
}

/** The local identity provider's accounts: who signs in with which e-mail, and each organization's name. */
export interface StaffDirectory {
  byId(id: string): StaffMember | undefined;
  /** Case and surrounding blanks ignored, as a person types it. */
  byEmail(email: string): StaffMember | undefined;
  organizationName(orgId: string): string | undefined;
}

/** The demo organization's staff and those of `organizations`; an e-mail or id given twice is refused. */
export function staffDirectory(organizations: readonly StaffedOrganization[] = []): StaffDirectory {
  const staff = [...DEMO_STAFF, ...organizations.flatMap((organization) => organization.staff)];
  const byId = new Map(staff.map((member) => [member.id, member]));
  const byEmail = new Map(staff.map((member) => [member.email.toLowerCase(), member]));
  if (byId.size !== staff.length || byEmail.size !== staff.length) {
    throw new Error('two staff members share an id or an e-mail address');
  }
  const names = new Map([
    ...Object.entries(KNOWN_ORGANIZATION_NAMES),
    ...organizations.map((organization) => [organization.orgId, organization.name] as const),
  ]);
  return {
    byId: (id) => byId.get(id),
    byEmail: (email) => byEmail.get(email.trim().toLowerCase()),
    organizationName: (orgId) => names.get(orgId),
  };
}
