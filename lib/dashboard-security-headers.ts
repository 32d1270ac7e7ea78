/**
 * The dashboard's security headers, plain data shared by the CloudFront response headers policy
 * (lib/dashboard-construct.ts) and the local stack's dashboard server, so both send the same.
 * Scripts and styles come from the page's own origin only: no inline script, no eval.
 */
export interface DashboardPolicyInput {
  /** Origins the page may fetch from besides its own: the reports bucket (verified downloads) and the identity provider. */
  connectSources: readonly string[];
}

/**
 * What the page fetches from an OpenID Connect provider, as CSP sources: the issuer's origin (its
 * discovery document) and the token endpoint's (code exchange, refresh), which may live elsewhere
 * (Cognito: `{prefix}.auth.{region}.amazoncognito.com`). Origins only: no path, no wildcard.
 */
export function identityProviderConnectSources(issuer: string, tokenEndpoint?: string): string[] {
  const origins = [new URL(issuer).origin, ...(tokenEndpoint ? [new URL(tokenEndpoint).origin] : [])];
  return [...new Set(origins)];
}

export function dashboardContentSecurityPolicy(input: DashboardPolicyInput): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    `connect-src ${["'self'", ...input.connectSources].join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Two years, subdomains included (the value the HSTS preload list asks for). */
export const HSTS_MAX_AGE_SECONDS = 63_072_000;

/** The headers besides CSP and HSTS (HSTS is sent over HTTPS only: not by the local server). */
export const dashboardStaticHeaders = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  'cross-origin-opener-policy': 'same-origin',
} as const;
