import type { Role } from '#shared/domain/identity/staff-roles.ts';
import type { OrganizationUserPool } from '#scripts/org-add/add-organization.ts';

/**
 * Sets a staff member's role in the Cognito user pool of `-c identity=cognito` (contract §20).
 * Primary course: the person must be a user of the pool with an organization; they are put in the
 * role's group and taken out of the other roles' groups. Their next access token (at the latest
 * when the current one expires, within the hour) holds the new role's scopes.
 */
export class NotStaffError extends Error {
  override name = 'NotStaffError';
}

export async function setStaffRole(
  input: { email: string; role: Role },
  deps: { userPool: Pick<OrganizationUserPool, 'organizationOfUser' | 'setStaffRole'> },
): Promise<{ orgId: string }> {
  const orgId = await deps.userPool.organizationOfUser(input.email);
  if (orgId === undefined) throw new NotStaffError(`${input.email} is not a user of the pool (org:add invites staff)`);
  if (orgId === null) throw new NotStaffError(`${input.email} has no organization (custom:org_id): not staff`);
  await deps.userPool.setStaffRole(input);
  return { orgId };
}
