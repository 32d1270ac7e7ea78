import { useEffect, useState } from 'preact/hooks';

/**
 * The signed-in person's access token and what it says, kept in this module's memory only: never
 * in localStorage, sessionStorage or a cookie, so a reload or a closed tab signs out.
 */
export interface Session {
  accessToken: string;
  orgId: string;
  orgName: string | undefined;
  subject: string | undefined;
  scopes: readonly string[];
  /** Epoch milliseconds. */
  expiresAt: number | undefined;
}

type Listener = (session: Session | undefined) => void;

let current: Session | undefined;
const listeners = new Set<Listener>();

export function currentSession(): Session | undefined {
  if (current?.expiresAt !== undefined && current.expiresAt <= Date.now()) signOut();
  return current;
}

export function signInWith(accessToken: string): Session {
  current = sessionFromToken(accessToken);
  for (const listener of listeners) listener(current);
  return current;
}

export function signOut(): void {
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

/** Reads (does not verify: the API does) the claims the dashboard shows. */
export function sessionFromToken(accessToken: string): Session {
  const payload = accessToken.split('.')[1];
  if (!payload) throw new Error('the sign-in did not return a JWT access token');
  const json = new TextDecoder().decode(
    Uint8Array.from(atob(payload.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)),
  );
  const claims = JSON.parse(json) as Record<string, unknown>;
  const scopes =
    typeof claims.scope === 'string'
      ? claims.scope.split(/\s+/).filter(Boolean)
      : Array.isArray(claims.scp)
        ? claims.scp.filter((s): s is string => typeof s === 'string')
        : [];
  return {
    accessToken,
    orgId: typeof claims.org_id === 'string' ? claims.org_id : '(unknown organization)',
    orgName: typeof claims.org_name === 'string' ? claims.org_name : undefined,
    subject: typeof claims.sub === 'string' ? claims.sub : undefined,
    scopes,
    expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : undefined,
  };
}
