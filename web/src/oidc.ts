import * as oauth from 'oauth4webapi';
import type { DashboardConfig } from './config.ts';
import {
  beginSession,
  SessionEndedError,
  signOut,
  storedIdToken,
  storedRefreshToken,
  type Renew,
  type Session,
  type TokenSet,
} from './session.ts';

/**
 * OpenID Connect for the dashboard (oauth4webapi), a public client, the same code locally and in
 * AWS: authorization code with PKCE to sign in, the refresh token grant to renew the access token
 * before it expires and to resume after a reload, and the provider's end-session endpoint
 * (RP-initiated logout) to sign out. Endpoints come from the issuer's discovery document. Only
 * the PKCE verifier, state and nonce cross the sign-in redirect, in sessionStorage; the tokens
 * are kept as session.ts says.
 */
const PENDING_KEY = 'dashboard.oidc.pending';

interface PendingSignIn {
  codeVerifier: string;
  state: string;
  nonce: string;
  /** The sandbox switch asked for the sandbox scope. */
  sandbox?: boolean;
  /** The page (`#/...`) to come back to. */
  returnTo?: string;
}

export interface SignInRequest {
  /** Ask for the sandbox scope too: the token then speaks for the organization's sandbox. */
  sandbox?: boolean;
  /** The page (`#/...`) to open once back. */
  returnTo?: string;
}

/** The sign-in finished: the session, and whether the sandbox was asked for but not granted. */
export interface CompletedSignIn {
  session: Session;
  sandboxRefused: boolean;
}

/** Plain http is accepted for a loopback issuer only: the local stack's identity provider, or a test's. */
function requestOptions(config: DashboardConfig): { [oauth.allowInsecureRequests]?: boolean } {
  const issuer = new URL(config.issuer);
  const loopback = issuer.hostname === '127.0.0.1' || issuer.hostname === 'localhost' || issuer.hostname === '[::1]';
  return issuer.protocol === 'http:' && loopback ? { [oauth.allowInsecureRequests]: true } : {};
}

let discovered: { issuer: string; server: Promise<oauth.AuthorizationServer> } | undefined;

function authorizationServer(config: DashboardConfig): Promise<oauth.AuthorizationServer> {
  if (discovered?.issuer !== config.issuer) {
    const issuer = new URL(config.issuer);
    const server = oauth
      .discoveryRequest(issuer, { algorithm: 'oidc', ...requestOptions(config) })
      .then((response) => oauth.processDiscoveryResponse(issuer, response));
    // A failed discovery is tried again next time.
    server.catch(() => (discovered = undefined));
    discovered = { issuer: config.issuer, server };
  }
  return discovered.server;
}

const redirectUri = (): string => `${window.location.origin}/`;
const clientOf = (config: DashboardConfig): oauth.Client => ({ client_id: config.clientId });

/**
 * Sends the browser to the provider's authorization endpoint. The sandbox switch comes here too:
 * the same request with the sandbox scope added (or without it, back to live), so the provider
 * decides whether this person may use the sandbox; while its session lasts it asks no password.
 */
export async function startOidcSignIn(config: DashboardConfig, request: SignInRequest = {}): Promise<void> {
  const as = await authorizationServer(config);
  if (!as.authorization_endpoint) throw new Error('the identity provider has no authorization endpoint');
  const pending: PendingSignIn = {
    codeVerifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    ...(request.sandbox ? { sandbox: true } : {}),
    ...(request.returnTo?.startsWith('#/') ? { returnTo: request.returnTo } : {}),
  };
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set('client_id', config.clientId);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', request.sandbox ? `${config.scope} ${config.sandboxScope}` : config.scope);
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

/** Exchanges the code for tokens and starts the session; the address bar is cleaned either way. */
export async function completeOidcSignIn(config: DashboardConfig): Promise<CompletedSignIn> {
  const stored = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const callbackUrl = new URL(window.location.href);
  const pending = stored ? (JSON.parse(stored) as PendingSignIn) : undefined;
  window.history.replaceState(null, '', `/${pending?.returnTo ?? ''}`);
  if (!pending) throw new Error('no sign-in was in progress');
  const as = await authorizationServer(config);
  const client = clientOf(config);
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
  const session = beginSession(tokenSetOf(result), renewal(config));
  return { session, sandboxRefused: pending.sandbox === true && !session.sandbox };
}

/**
 * After a reload: a new access token for the refresh token this tab kept, while the provider's
 * session lasts. Undefined when there is nothing to resume or the provider refuses.
 */
export async function resumeOidcSession(config: DashboardConfig): Promise<Session | undefined> {
  const refreshToken = storedRefreshToken();
  if (!refreshToken) return undefined;
  const renew = renewal(config);
  try {
    return beginSession(await renew(refreshToken), renew);
  } catch (error) {
    if (error instanceof SessionEndedError) signOut();
    throw error;
  }
}

/** The refresh token grant; the provider answers with a new refresh token each time (rotation). */
function renewal(config: DashboardConfig): Renew {
  return async (refreshToken) => {
    const as = await authorizationServer(config);
    const client = clientOf(config);
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      refreshToken,
      requestOptions(config),
    );
    try {
      return tokenSetOf(await oauth.processRefreshTokenResponse(as, client, response));
    } catch (error) {
      // The provider's own "no" (session ended, token revoked or reused): the sign-in is over.
      if (error instanceof oauth.ResponseBodyError) {
        throw new SessionEndedError(error.error_description ?? error.error, { cause: error });
      }
      throw error;
    }
  };
}

/**
 * Signs out here and at the provider: forgets the tokens, then sends the browser to the
 * provider's end-session endpoint, which ends its session (so the next sign-in asks for the
 * password again) and comes back to the dashboard.
 */
export async function signOutEverywhere(config: DashboardConfig): Promise<void> {
  const idToken = storedIdToken();
  signOut();
  const as = await authorizationServer(config).catch(() => undefined);
  if (!as?.end_session_endpoint) return;
  const url = new URL(as.end_session_endpoint);
  url.searchParams.set('client_id', config.clientId);
  url.searchParams.set('post_logout_redirect_uri', redirectUri());
  if (idToken) url.searchParams.set('id_token_hint', idToken);
  window.location.assign(url.href);
}

function tokenSetOf(response: oauth.TokenEndpointResponse): TokenSet {
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    idToken: response.id_token,
    expiresIn: response.expires_in,
  };
}
