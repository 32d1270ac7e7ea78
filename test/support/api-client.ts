import { inject } from 'vitest';
import { ALL_SCOPES, issueDevToken, tenantMachineClientId, type DevTokenOptions } from '#local/dev-keys.ts';
import { SANDBOX_SCOPE } from '#shared/domain/identity/tenant.ts';

/** A small HTTP client for the local stack started by global-setup.ts. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function callApi<T = any>(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await fetch(`${inject('baseUrl')}${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/**
 * A token for the stack's API, crafted with its identity provider's key and issuer (fast, and any
 * claims a test needs); local-identity-provider.test.ts shows the provider's own tokens work the same.
 */
export function tokenFor(orgId: string, options: Omit<DevTokenOptions, 'orgId' | 'keysDir'> = {}): Promise<string> {
  const { LOCAL_KEYS_DIR: keysDir, JWT_ISSUER: issuer } = inject('localEnv');
  return issueDevToken({ issuer, ...options, orgId, keysDir });
}

/** A token of the organization's sandbox machine client: every scope plus `sandbox` (docs/sandbox.md). */
export function sandboxTokenFor(
  orgId: string,
  options: Omit<DevTokenOptions, 'orgId' | 'keysDir'> = {},
): Promise<string> {
  return tokenFor(orgId, {
    scopes: [...ALL_SCOPES, SANDBOX_SCOPE],
    ...options,
    claims: { client_id: tenantMachineClientId({ orgId, mode: 'sandbox' }), ...options.claims },
  });
}

/** A fresh organization id per test, so tests never see each other's data. */
export const uniqueOrg = (prefix = 'org'): string => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

/** How many of the organization's users match `filters`: the `total` of POST /v1/user-status. */
export async function userStatusTotal(orgId: string, filters: Record<string, unknown> = {}): Promise<number> {
  const response = await callApi('POST', '/v1/user-status', {
    token: await tokenFor(orgId),
    body: { filters, result_keys: ['id'], pagination: { limit: 1 } },
  });
  return response.body.pagination.total;
}
