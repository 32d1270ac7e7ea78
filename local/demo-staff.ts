import { ALL_SCOPES } from './dev-keys.ts';
import { DEMO_ORG_ID, DEMO_ORGANIZATION_NAME } from './demo-users.ts';

/**
 * The people who sign in to the local identity provider (CONTRACT.md §14): the demo organization's
 * staff, with well-known passwords the `npm start` banner prints. Local only, so the passwords
 * are plain constants.
 */
export interface StaffMember {
  /** The `sub` of this person's tokens: an opaque id, never the e-mail, so audit events hold no personal data. */
  id: string;
  email: string;
  password: string;
  orgId: string;
  /** The scopes this person may be granted (the dashboard asks for all; the grant keeps these). */
  scopes: readonly string[];
}

export const DEMO_STAFF: readonly StaffMember[] = [
  {
    id: 'staff-5f0c2a9e-admin',
    email: 'admin@demo-org.test',
    password: 'demo-org-admin',
    orgId: DEMO_ORG_ID,
    scopes: ALL_SCOPES,
  },
  {
    id: 'staff-8b41d7c3-viewer',
    email: 'viewer@demo-org.test',
    password: 'demo-org-viewer',
    orgId: DEMO_ORG_ID,
    scopes: ['onboarding:read', 'reports:read', 'users:read'],
  },
];

/** Organization names the provider puts into tokens (claim `org_name`, shown in the onboarding e-mail). */
export const KNOWN_ORGANIZATION_NAMES: Readonly<Record<string, string>> = { [DEMO_ORG_ID]: DEMO_ORGANIZATION_NAME };
