import type { Role, Scope } from '#shared/domain/identity/staff-roles.ts';
import type { MachineClientRegistry } from '#shared/domain/identity/organization-claim.ts';
import { SANDBOX_SCOPE, type Mode } from '#shared/domain/identity/tenant.ts';

/**
 * Adds an organization to the Cognito user pool of `-c identity=cognito`.
 *
 * Primary course: check that the first staff member is not yet someone else's; create the
 * organization's machine client (client credentials, the API's scopes) and its sandbox client
 * (the same scopes plus `sandbox`, contract §23); record which organization each acts for, and in
 * which mode (the pre-token-generation trigger and the API read it); invite the staff member with
 * `custom:org_id` set, so their access tokens carry the organization, into the `admin` group, so
 * they hold every scope (contract §20). Clients that could not both be recorded are deleted again:
 * an unrecorded client would get tokens the API refuses, and an organization without its sandbox
 * client is half added.
 */

export interface MachineClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** The user pool, as this use case needs it (adapter: cognito-user-pool.ts). */
export interface OrganizationUserPool {
  /** A client credentials client granted `scopes`; `mode` names it (`org-<id>-machine`, `org-<id>-sandbox`). */
  createMachineClient(input: {
    orgId: string;
    mode: Mode;
    scopes: readonly string[];
  }): Promise<MachineClientCredentials>;
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
  /** The organization's sandbox client: its tokens reach the sandbox alone. */
  sandboxClient: MachineClientCredentials;
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

  const created: MachineClientCredentials[] = [];
  const createdAt = deps.now().toISOString();
  const addClient = async (mode: Mode, scopes: readonly string[]) => {
    const client = await deps.userPool.createMachineClient({ orgId: input.orgId, mode, scopes });
    created.push(client);
    await deps.machineClients.register({ clientId: client.clientId, orgId: input.orgId, mode, createdAt });
    return client;
  };
  let clients: Pick<AddOrganizationResult, 'machineClient' | 'sandboxClient'>;
  try {
    clients = {
      machineClient: await addClient('live', input.scopes),
      sandboxClient: await addClient('sandbox', [...input.scopes, SANDBOX_SCOPE]),
    };
  } catch (error) {
    for (const client of created) await deps.userPool.deleteMachineClient(client.clientId);
    throw error;
  }

  if (existingOrg === input.orgId) return { ...clients, invited: false };
  await deps.userPool.inviteStaffMember({ email: input.adminEmail, orgId: input.orgId });
  await deps.userPool.setStaffRole({ email: input.adminEmail, role: 'admin' });
  return { ...clients, invited: true };
}
