import { SANDBOX_SCOPE } from './tenant.ts';

/**
 * The API's scopes and the staff roles that hold them (docs/contract.md §17, §20): the one list the
 * API's authorization, the Cognito pre-token trigger, the local identity provider, the dashboard
 * and the OpenAPI document read. docs/identity-providers.md#staff-roles.
 */

export const SCOPES = [
  'onboarding:write',
  'onboarding:read',
  'onboarding:redeem',
  'reports:write',
  'reports:read',
  'users:read',
  'users:erase',
  'webhooks:manage',
  'audit:read',
] as const;
export type Scope = (typeof SCOPES)[number];

export const ROLES = ['admin', 'operator', 'auditor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Only `admin` holds `users:erase`. */
export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  admin: SCOPES,
  operator: [
    'onboarding:write',
    'onboarding:read',
    'onboarding:redeem',
    'reports:write',
    'reports:read',
    'users:read',
    'webhooks:manage',
  ],
  auditor: ['onboarding:read', 'reports:read', 'users:read', 'audit:read'],
  viewer: ['onboarding:read', 'reports:read', 'users:read'],
};

export const isScope = (value: unknown): value is Scope => (SCOPES as readonly unknown[]).includes(value);

export const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);

/**
 * The scopes a role claim allows: one role name, or a list of names (Entra ID's `roles`, an Okta
 * groups claim) whose roles' scopes add up. Anything naming no role allows nothing.
 */
export function scopesOfRoleClaim(claim: unknown): ReadonlySet<Scope> {
  const names = Array.isArray(claim) ? (claim as unknown[]) : [claim];
  return new Set(names.filter(isRole).flatMap((role) => ROLE_SCOPES[role]));
}

/**
 * The roles that may switch the dashboard to the organization's sandbox (contract §23): every one.
 * `sandbox` changes which data a token reaches, never what it may do there: that is the role's
 * scopes, so a viewer reads the sandbox and wiping it (`users:erase`) is admin's alone.
 */
export const SANDBOX_ROLES: readonly Role[] = ROLES;

/**
 * What a role claim lets a staff member's token hold: its roles' scopes (scopesOfRoleClaim), and
 * `sandbox` when one of those roles may use the sandbox and the sign-in asked for it.
 */
export function staffScopesOfRoleClaim(claim: unknown): ReadonlySet<string> {
  const names = Array.isArray(claim) ? (claim as unknown[]) : [claim];
  const sandbox = names.some((name) => isRole(name) && SANDBOX_ROLES.includes(name));
  return new Set<string>([...scopesOfRoleClaim(claim), ...(sandbox ? [SANDBOX_SCOPE] : [])]);
}

/** Who a verified token speaks for, as far as its scopes go (machine-clients.ts says who is which). */
export type TokenHolder =
  /** A client named as a machine client: it keeps the scopes its provider granted. */
  | { kind: 'machine client' }
  /** Anyone else, the dashboard's users first: their role claim (absent when the token has none) decides. */
  | { kind: 'staff'; roleClaim: unknown };

/**
 * The scopes a token holds (contract §20, §27): a machine client's as granted; a staff member's only
 * those of the roles their role claim names (with `sandbox`: SANDBOX_ROLES), so a staff token
 * without one (a Cognito user in no group, an identity provider that sends no role) holds none. It
 * never adds a scope.
 */
export function scopesHeld(granted: ReadonlySet<string>, holder: TokenHolder): ReadonlySet<string> {
  if (holder.kind === 'machine client') return granted;
  const allowed = staffScopesOfRoleClaim(holder.roleClaim);
  return new Set([...granted].filter((scope) => allowed.has(scope)));
}

/**
 * Of the scopes a staff member's sign-in would put into the access token (named `<prefix><scope>`,
 * as Cognito names a resource server's), the API scopes their role groups do not allow: the
 * token is issued without them, so it holds exactly its roles' scopes among those the client asked
 * for (`sandbox` included, which every role may ask for). Other scopes (`openid`, `email`) are left
 * alone; no role group, no API scope.
 */
export function scopesBeyondRoles(requested: readonly string[], groups: readonly string[], prefix: string): string[] {
  const allowed = staffScopesOfRoleClaim(groups);
  return requested.filter((scope) => scope.startsWith(prefix) && !allowed.has(scope.slice(prefix.length)));
}
