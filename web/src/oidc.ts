import * as oauth from 'oauth4webapi';
import type { DashboardConfig } from './config.ts';

type OidcConfig = Extract<DashboardConfig, { signIn: 'oidc' }>;

/**
 * OpenID Connect authorization code flow with PKCE (oauth4webapi), a public client: endpoints come
 * from the issuer's discovery document. Only the PKCE verifier and the state cross the redirect,
 * in sessionStorage; the access token itself stays in memory (session.ts).
 */
const PENDING_KEY = 'dashboard.oidc.pending';

interface PendingSignIn {
  codeVerifier: string;
  state: string;
  nonce: string;
}

/** Plain http is accepted for a loopback issuer only: a developer's or a test's own identity provider. */
function requestOptions(config: OidcConfig): { [oauth.allowInsecureRequests]?: boolean } {
  const issuer = new URL(config.issuer);
  const loopback = issuer.hostname === '127.0.0.1' || issuer.hostname === 'localhost' || issuer.hostname === '[::1]';
  return issuer.protocol === 'http:' && loopback ? { [oauth.allowInsecureRequests]: true } : {};
}

async function authorizationServer(config: OidcConfig): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(config.issuer);
  return oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...requestOptions(config) }),
  );
}

const redirectUri = (): string => `${window.location.origin}/`;

export async function startOidcSignIn(config: OidcConfig): Promise<void> {
  const as = await authorizationServer(config);
  if (!as.authorization_endpoint) throw new Error('the identity provider has no authorization endpoint');
  const pending: PendingSignIn = {
    codeVerifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
  };
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set('client_id', config.clientId);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', config.scope);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(pending.codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', pending.state);
  url.searchParams.set('nonce', pending.nonce);
  if (config.audience) url.searchParams.set('audience', config.audience);
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  window.location.assign(url.href);
}

/** True when this page load is the identity provider's redirect back (`?code=` or `?error=` with our state). */
export function isOidcCallback(): boolean {
  const params = new URLSearchParams(window.location.search);
  return sessionStorage.getItem(PENDING_KEY) !== null && (params.has('code') || params.has('error'));
}

/** Exchanges the code for tokens and returns the access token; the address bar is cleaned either way. */
export async function completeOidcSignIn(config: OidcConfig): Promise<string> {
  const stored = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const callbackUrl = new URL(window.location.href);
  window.history.replaceState(null, '', '/');
  if (!stored) throw new Error('no sign-in was in progress');
  const pending = JSON.parse(stored) as PendingSignIn;
  const as = await authorizationServer(config);
  const client: oauth.Client = { client_id: config.clientId };
  const params = oauth.validateAuthResponse(as, client, callbackUrl, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    redirectUri(),
    pending.codeVerifier,
    requestOptions(config),
  );
  const result = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: pending.nonce });
  return result.access_token;
}
