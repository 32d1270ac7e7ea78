import * as oauth from 'oauth4webapi';
import { MACHINE_CLIENT_SCOPES } from '#shared/domain/identity/machine-clients.ts';
import { SANDBOX_SCOPE, tenantKey, type Mode } from '#shared/domain/identity/tenant.ts';
import { machineClientSecret, tenantMachineClientId, type KeysLocation } from './dev-keys.ts';

/**
 * An organization's machine client asks the local identity provider for an access token with the
 * client credentials grant (oauth4webapi), as a backend of that organization would in AWS. Every
 * organization has two, `machine.<orgId>` and its sandbox's `machine.<orgId>~sandbox` (dev-keys.ts),
 * their secrets derived from the provider's key (local/identity-provider.ts), so nothing needs
 * registering first.
 */
/**
 * The lifetime a machine client asks for, in seconds: OAuth has no request parameter for it, so
 * the local provider alone reads this header (for `npm run token -- --expires-in`).
 */
export const REQUESTED_LIFETIME_HEADER = 'local-token-lifetime';

export interface MachineTokenRequest extends KeysLocation {
  issuer: string;
  orgId: string;
  /**
   * Space-separated; default every scope of the API but `users:erase`, which a machine client gets
   * only when it asks for it by name; empty: a token without scopes.
   */
  scope?: string;
  /** Default: the provider's (one hour). */
  expiresInSeconds?: number;
  /**
   * `sandbox`: the organization's sandbox machine client asks, and `sandbox` is added to the scopes
   * (the provider refuses it a token without), so the token reaches the sandbox alone. Default `live`.
   */
  mode?: Mode;
}

export async function requestMachineToken(request: MachineTokenRequest): Promise<string> {
  const issuer = new URL(request.issuer);
  // The local provider speaks plain http on 127.0.0.1.
  const options = { [oauth.allowInsecureRequests]: issuer.protocol === 'http:' };
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...options }),
  );
  const tenant = { orgId: request.orgId, mode: request.mode ?? 'live' } as const;
  const client: oauth.Client = { client_id: tenantMachineClientId(tenant) };
  const parameters = new URLSearchParams();
  const scopes = (request.scope ?? MACHINE_CLIENT_SCOPES.join(' ')).split(/\s+/).filter(Boolean);
  if (tenant.mode === 'sandbox' && !scopes.includes(SANDBOX_SCOPE)) scopes.push(SANDBOX_SCOPE);
  if (scopes.length > 0) parameters.set('scope', scopes.join(' '));
  const headers = new Headers();
  if (request.expiresInSeconds !== undefined) headers.set(REQUESTED_LIFETIME_HEADER, String(request.expiresInSeconds));
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    client,
    oauth.ClientSecretPost(await machineClientSecret(tenantKey(tenant), request)),
    parameters,
    { ...options, headers },
  );
  return (await oauth.processClientCredentialsResponse(as, client, response)).access_token;
}
