import { SANDBOX_SCOPE } from '#shared/domain/identity/tenant.ts';

/**
 * How this dashboard signs people in, read at start from `/dashboard-config.json` (same origin):
 * OpenID Connect everywhere. The local stack names its own identity provider
 * (local/identity-provider.ts); in AWS the deployment writes the configured issuer's settings.
 */
export interface DashboardConfig {
  signIn: 'oidc';
  /** The identity provider's issuer; its endpoints come from its discovery document. */
  issuer: string;
  clientId: string;
  /** Requested scopes, space-separated (the API's scopes and `openid`). */
  scope: string;
  /**
   * What the sandbox switch adds to `scope` (a token holding it speaks for the organization's
   * sandbox): `sandbox` with the issuer's prefix, e.g. Cognito's `onboarding-api/sandbox`.
   */
  sandboxScope: string;
  /** Sent as `audience` when the provider needs it to mint an access token for this API. */
  audience?: string;
}

export async function loadDashboardConfig(): Promise<DashboardConfig> {
  const response = await fetch('/dashboard-config.json', { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`the dashboard configuration could not be read (HTTP ${response.status})`);
  const config = (await response.json()) as Partial<DashboardConfig> | null;
  if (config?.signIn === 'oidc' && typeof config.issuer === 'string' && typeof config.clientId === 'string') {
    return {
      signIn: 'oidc',
      issuer: config.issuer,
      clientId: config.clientId,
      scope: typeof config.scope === 'string' ? config.scope : 'openid',
      sandboxScope: typeof config.sandboxScope === 'string' ? config.sandboxScope : SANDBOX_SCOPE,
      ...(typeof config.audience === 'string' ? { audience: config.audience } : {}),
    };
  }
  throw new Error('the dashboard configuration names no sign-in method');
}
