import { SCOPES, type Scope } from './staff-roles.ts';
import { isOrganizationId, type TokenRequest } from './organization-claim.ts';
import { SANDBOX_SCOPE, type Mode, type Tenant } from './tenant.ts';

/**
 * Which tokens are machine clients' (contract §27): only those of a client named as one, in
 * configuration (`MACHINE_CLIENT_IDS`) or recorded by `org:add` (Cognito, MachineClientDirectory).
 * Every other token is a staff member's, whose scopes come from their role (staff-roles.ts
 * `scopesHeld`). docs/identity-providers.md#staff-roles.
 */

/**
 * What a machine client is given when nobody names its scopes: every scope but `users:erase`, which
 * erases people and is granted only when asked for by name (`org:add --scopes`, `npm run token --
 * --scopes`, the token request's `scope`).
 */
export const MACHINE_CLIENT_SCOPES: readonly Scope[] = SCOPES.filter((scope) => scope !== 'users:erase');

/**
 * How a machine client's token must change so that its scopes say its mode (contract §23): a
 * sandbox client's token always holds `sandbox` (added when the client asked for less), a live
 * client's never does (taken out, should its app client ever allow it). Scopes are named
 * `<prefix><scope>`, as Cognito names a resource server's.
 */
export function sandboxScopeChanges(
  mode: Mode,
  requested: readonly string[],
  prefix: string,
): { add: string[]; suppress: string[] } {
  const sandboxScope = `${prefix}${SANDBOX_SCOPE}`;
  const holds = requested.includes(sandboxScope);
  if (mode === 'sandbox') return { add: holds ? [] : [sandboxScope], suppress: [] };
  return { add: [], suppress: holds ? [sandboxScope] : [] };
}

/** A name in MACHINE_CLIENT_IDS: a client id, or `<prefix>*` for every client id that starts with the prefix. */
export const MACHINE_CLIENT_NAME = /^[^\s*,]+\*?$/;

/** Whether a client id is one of the named machine clients. */
export function namedMachineClients(names: readonly string[]): (clientId: string) => boolean {
  const ids = new Set(names.filter((name) => !name.endsWith('*')));
  const prefixes = names.filter((name) => name.endsWith('*')).map((name) => name.slice(0, -1));
  return (clientId) => ids.has(clientId) || prefixes.some((prefix) => clientId.startsWith(prefix));
}

/** The machine clients and the tenant each acts for: an organization's sandbox client acts for its sandbox. */
export interface MachineClientTenants {
  tenantOf(clientId: string): Promise<Tenant | undefined>;
}

/**
 * The tenant a token is issued for: a staff member's organization, live (the dashboard, not the
 * sign-in, takes staff to the sandbox), or a machine client's organization in the mode it was
 * recorded with; `undefined` when neither names a valid organization.
 */
export async function tenantForToken(
  request: TokenRequest,
  deps: { machineClients: MachineClientTenants; organizationAttribute: string },
): Promise<Tenant | undefined> {
  if (request.kind === 'staff') {
    const orgId = request.userAttributes[deps.organizationAttribute];
    return isOrganizationId(orgId) ? { orgId, mode: 'live' } : undefined;
  }
  const tenant = await deps.machineClients.tenantOf(request.clientId);
  return tenant && isOrganizationId(tenant.orgId) ? tenant : undefined;
}
