import { useEffect, useState } from 'preact/hooks';
import type { Scope } from '#shared/domain/identity/staff-roles.ts';
import { SANDBOX_SCOPE } from '#shared/domain/identity/tenant.ts';

/**
 * The signed-in staff member's session. The access token lives in this module's memory only
 * (never in localStorage, sessionStorage or a cookie). What lets a reload or a renewal get a new
 * one, the refresh token (rotated by the provider on every use, and ending with the provider's
 * session), and the ID token (the hint that signs out of the provider) are kept in this tab's
 * sessionStorage: they go when the tab closes, and are never sent to the API.
 */
export interface Session {
  accessToken: string;
  orgId: string;
  orgName: string | undefined;
  subject: string | undefined;
  scopes: readonly string[];
  /** The token holds `sandbox`: every call speaks for the organization's sandbox (contract §23), the pages show its data. */
  sandbox: boolean;
  /** Epoch milliseconds. */
  expiresAt: number | undefined;
}

/** What a token endpoint answers, as the dashboard uses it. */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string | undefined;
  idToken?: string | undefined;
  /** Seconds, from the response's `expires_in` (else the token's own `exp`). */
  expiresIn?: number | undefined;
}

/** Trades the refresh token for new tokens; rejects with `SessionEndedError` when the provider refuses it. */
export type Renew = (refreshToken: string) => Promise<TokenSet>;

export class SessionEndedError extends Error {
  override name = 'SessionEndedError';
}

type Listener = (session: Session | undefined) => void;

const STORED_KEY = 'dashboard.oidc.session';
/** Renewal starts when this share of the token's lifetime has passed. */
const RENEW_AT_SHARE = 0.75;
/** After a failed renewal that may be passing (network), the next try. */
const RETRY_MS = 5_000;

let current: Session | undefined;
let renewTimer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<Listener>();

interface StoredTokens {
  refreshToken?: string;
  idToken?: string;
}

export function currentSession(): Session | undefined {
  if (current?.expiresAt !== undefined && current.expiresAt <= Date.now()) signOut();
  return current;
}

/** Starts (or continues, after a renewal) the session with fresh tokens; renews them before they expire. */
export function beginSession(tokens: TokenSet, renew: Renew): Session {
  const stored = storedTokens();
  writeStoredTokens({
    refreshToken: tokens.refreshToken ?? stored.refreshToken,
    idToken: tokens.idToken ?? stored.idToken,
  });
  current = sessionFromToken(tokens.accessToken);
  const lifetimeMs =
    tokens.expiresIn !== undefined
      ? tokens.expiresIn * 1000
      : current.expiresAt !== undefined
        ? current.expiresAt - Date.now()
        : undefined;
  clearTimeout(renewTimer);
  if (lifetimeMs !== undefined && (tokens.refreshToken ?? stored.refreshToken)) {
    renewTimer = setTimeout(() => void renewNow(renew), Math.max(0, lifetimeMs * RENEW_AT_SHARE));
  }
  for (const listener of listeners) listener(current);
  return current;
}

/** The refresh token this tab holds, if any: a reload resumes the session with it. */
export function storedRefreshToken(): string | undefined {
  return storedTokens().refreshToken;
}

/** The ID token to hint with at the provider's end-session endpoint. */
export function storedIdToken(): string | undefined {
  return storedTokens().idToken;
}

async function renewNow(renew: Renew): Promise<void> {
  const refreshToken = storedRefreshToken();
  if (!refreshToken || !current) return;
  try {
    beginSession(await renew(refreshToken), renew);
  } catch (error) {
    if (error instanceof SessionEndedError) {
      signOut();
      return;
    }
    // Perhaps the network: try again while the token still lasts (currentSession signs out after).
    if (current?.expiresAt !== undefined && current.expiresAt - Date.now() > RETRY_MS) {
      renewTimer = setTimeout(() => void renewNow(renew), RETRY_MS);
    }
  }
}

/** Ends the session in this tab (memory and sessionStorage); the provider's session is ended by oidc.ts. */
export function signOut(): void {
  clearTimeout(renewTimer);
  renewTimer = undefined;
  sessionStorage.removeItem(STORED_KEY);
  current = undefined;
  for (const listener of listeners) listener(undefined);
}

export function useSession(): Session | undefined {
  const [session, setSession] = useState(currentSession);
  useEffect(() => {
    listeners.add(setSession);
    return () => void listeners.delete(setSession);
  }, []);
  return session;
}

/** Whether the signed-in staff member's token holds `scope`: the pages offer only what it allows. */
export function useCan(scope: Scope): boolean {
  return useSession()?.scopes.includes(scope) ?? false;
}

function storedTokens(): StoredTokens {
  try {
    return (JSON.parse(sessionStorage.getItem(STORED_KEY) ?? '{}') as StoredTokens | null) ?? {};
  } catch {
    return {};
  }
}

function writeStoredTokens(tokens: StoredTokens): void {
  if (tokens.refreshToken || tokens.idToken) sessionStorage.setItem(STORED_KEY, JSON.stringify(tokens));
  else sessionStorage.removeItem(STORED_KEY);
}

/** Reads (does not verify: the API does) the claims the dashboard shows. */
export function sessionFromToken(accessToken: string): Session {
  const payload = accessToken.split('.')[1];
  if (!payload) throw new Error('the sign-in did not return a JWT access token');
  const json = new TextDecoder().decode(
    Uint8Array.from(atob(payload.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)),
  );
  const claims = JSON.parse(json) as Record<string, unknown>;
  const granted =
    typeof claims.scope === 'string'
      ? claims.scope.split(/\s+/).filter(Boolean)
      : Array.isArray(claims.scp)
        ? claims.scp.filter((s): s is string => typeof s === 'string')
        : [];
  // Cognito names a resource server's scopes `onboarding-api/users:read`; the pages know them as `users:read`.
  const scopes = granted.map((scope) => scope.slice(scope.lastIndexOf('/') + 1));
  return {
    accessToken,
    orgId: typeof claims.org_id === 'string' ? claims.org_id : '(unknown organization)',
    orgName: typeof claims.org_name === 'string' ? claims.org_name : undefined,
    subject: typeof claims.sub === 'string' ? claims.sub : undefined,
    scopes,
    sandbox: scopes.includes(SANDBOX_SCOPE),
    expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : undefined,
  };
}
