/**
 * Which organization an access token speaks for, decided when the token is issued (the Cognito
 * pre-token-generation trigger) and checked again when it is used (the API's token verifier).
 *
 * Primary course: a staff member signs in; their organization is the `custom:org_id` attribute an
 * administrator gave them. A machine client asks for a token with its client credentials; its
 * organization is the one recorded when `org:add` created it. Anything else gets no organization,
 * and the API refuses a token without one (401).
 */

/** The contract's organization id: 1 to 64 of `[A-Za-z0-9_.-]`. */
export const ORGANIZATION_ID = /^[A-Za-z0-9_.-]{1,64}$/;

export const isOrganizationId = (value: unknown): value is string =>
  typeof value === 'string' && ORGANIZATION_ID.test(value);

/** The machine clients of the user pool and the organization each acts for. */
export interface MachineClientDirectory {
  organizationOf(clientId: string): Promise<string | undefined>;
}

export interface MachineClientRegistration {
  clientId: string;
  orgId: string;
  /** The tenant mode it acts in (tenant.ts `Mode`); absent on clients recorded before the sandbox: live. */
  mode?: 'live' | 'sandbox';
  createdAt: string;
}

/** The write side, for the command that adds an organization. */
export interface MachineClientRegistry {
  /** Records a new client; a client id recorded before stays as it was (ConflictError). */
  register(registration: MachineClientRegistration): Promise<void>;
}

export type TokenRequest =
  /** A person signed in (managed login, a refresh): their user attributes. */
  | { kind: 'staff'; userAttributes: Readonly<Record<string, string>> }
  /** An app client with its own credentials (client credentials grant). */
  | { kind: 'machine'; clientId: string };

export async function organizationForToken(
  request: TokenRequest,
  deps: { machineClients: MachineClientDirectory; organizationAttribute: string },
): Promise<string | undefined> {
  const orgId =
    request.kind === 'staff'
      ? request.userAttributes[deps.organizationAttribute]
      : await deps.machineClients.organizationOf(request.clientId);
  return isOrganizationId(orgId) ? orgId : undefined;
}

/**
 * The directory behind a per-process memory: the API asks about the same few clients on every
 * request. An answer is kept `ttlMs` (a removed client's tokens stop working within it; they expire
 * within the hour anyway), a "no such client" answer for a tenth of that, so a client added a
 * moment ago is soon recognised.
 */
export function rememberingMachineClients(
  directory: MachineClientDirectory,
  options: { ttlMs: number; now?: () => number },
): MachineClientDirectory {
  const now = options.now ?? Date.now;
  const remembered = new Map<string, { orgId: string | undefined; until: number }>();
  return {
    async organizationOf(clientId) {
      const entry = remembered.get(clientId);
      if (entry && entry.until > now()) return entry.orgId;
      const orgId = await directory.organizationOf(clientId);
      // Only signed tokens get here, so ids are the pool's own clients; the bound is a backstop.
      if (remembered.size >= 1_000) remembered.clear();
      remembered.set(clientId, { orgId, until: now() + (orgId === undefined ? options.ttlMs / 10 : options.ttlMs) });
      return orgId;
    },
  };
}
