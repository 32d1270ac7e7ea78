import type { Role, Scope } from '#shared/domain/identity/staff-roles.ts';
import type { MachineClientRegistry } from '#shared/domain/identity/organization-claim.ts';

/**
 * Adds an organization to the Cognito user pool of `-c identity=cognito`.
 *
 * Primary course: check that the first staff member is not yet someone else's; create the
 * organization's machine client (client credentials, the API's scopes); record which organization
 * it acts for (the pre-token-generation trigger and the API read it); invite the staff member with
 * `custom:org_id` set, so their access tokens carry the organization, into the `admin` group, so
 * they hold every scope (contract §20). A client that could not be
 * recorded is deleted again: an unrecorded client would get tokens the API refuses.
 */

export interface MachineClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** The user pool, as this use case needs it (adapter: cognito-user-pool.ts). */
export interface OrganizationUserPool {
  createMachineClient(input: { orgId: string; scopes: readonly Scope[] }): Promise<MachineClientCredentials>;
  deleteMachineClient(clientId: string): Promise<void>;
  /** The organization of an existing user with this e-mail, `null` for a user without one, undefined if none. */
  organizationOfUser(email: string): Promise<string | null | undefined>;
  inviteStaffMember(input: { email: string; orgId: string }): Promise<void>;
  /** Puts an existing user in `role`'s group and takes them out of every other role's group. */
  setStaffRole(input: { email: string; role: Role }): Promise<void>;
}

export interface AddOrganizationInput {
  orgId: string;
  adminEmail: string;
  scopes: readonly Scope[];
}

export interface AddOrganizationResult {
  machineClient: MachineClientCredentials;
  /** False when the staff member was already a member of this organization (nothing sent). */
  invited: boolean;
}

export class StaffMemberConflictError extends Error {
  override name = 'StaffMemberConflictError';
}

export async function addOrganization(
  input: AddOrganizationInput,
  deps: { userPool: OrganizationUserPool; machineClients: MachineClientRegistry; now: () => Date },
): Promise<AddOrganizationResult> {
  const existingOrg = await deps.userPool.organizationOfUser(input.adminEmail);
  if (existingOrg !== undefined && existingOrg !== input.orgId) {
    throw new StaffMemberConflictError(
      existingOrg === null
        ? `${input.adminEmail} is already a user of the pool, without an organization: set custom:org_id by hand`
        : `${input.adminEmail} is already a staff member of organization ${existingOrg}`,
    );
  }

  const machineClient = await deps.userPool.createMachineClient({ orgId: input.orgId, scopes: input.scopes });
  try {
    await deps.machineClients.register({
      clientId: machineClient.clientId,
      orgId: input.orgId,
      createdAt: deps.now().toISOString(),
    });
  } catch (error) {
    await deps.userPool.deleteMachineClient(machineClient.clientId);
    throw error;
  }

  if (existingOrg === input.orgId) return { machineClient, invited: false };
  await deps.userPool.inviteStaffMember({ email: input.adminEmail, orgId: input.orgId });
  await deps.userPool.setStaffRole({ email: input.adminEmail, role: 'admin' });
  return { machineClient, invited: true };
}
