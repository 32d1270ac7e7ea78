import { isOrganizationId } from '#shared/domain/identity/organization-claim.ts';

/**
 * Every organization has two tenants: its live data and its sandbox (docs/contract.md §23). The
 * mode comes from the credential alone: a token whose scopes hold `sandbox` speaks for the sandbox.
 */
export type Mode = 'live' | 'sandbox';

export interface Tenant {
  readonly orgId: string;
  readonly mode: Mode;
}

export const SANDBOX_SCOPE = 'sandbox';

/** `~` is outside the organization id's alphabet, so no organization's key is another's sandbox. */
const SANDBOX_KEY_SUFFIX = '~sandbox';

/**
 * The key every store files a tenant's data under (DynamoDB keys, the users database's
 * organization column, S3 keys, message groups, limiter and idempotency items, audit events).
 * Live keeps the organization's id, so live data written before the sandbox existed stays where
 * it is; the sandbox's key is the id with a suffix no organization id can carry.
 */
export function tenantKey({ orgId, mode }: Tenant): string {
  return mode === 'sandbox' ? `${orgId}${SANDBOX_KEY_SUFFIX}` : orgId;
}

/** The tenant a stored key belongs to; for code that starts from stored data (queue consumers, webhook delivery). */
export function tenantOfKey(key: string): Tenant {
  if (key.endsWith(SANDBOX_KEY_SUFFIX)) {
    const orgId = key.slice(0, -SANDBOX_KEY_SUFFIX.length);
    if (isOrganizationId(orgId)) return { orgId, mode: 'sandbox' };
  }
  return { orgId: key, mode: 'live' };
}

export const isSandbox = (tenant: Tenant): boolean => tenant.mode === 'sandbox';
