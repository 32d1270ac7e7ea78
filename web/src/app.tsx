import { useEffect, useState } from 'preact/hooks';
import type { DashboardConfig } from './config.ts';
import { ErrorNotice } from './components.tsx';
import { parseHash } from './hash-route.ts';
import { signOutEverywhere, startOidcSignIn } from './oidc.ts';
import { dashboardPages } from './pages/index.ts';
import { useSession, type Session } from './session.ts';

// `#/<path>?<query>`: the path picks the page, the query (the page's own) is left out of the match.
const routeFromHash = (): { path: string; query: string } => {
  const { path, query } = parseHash(window.location.hash);
  return { path, query: query.toString() };
};

function useHashRoute(): { path: string; query: string } {
  const [route, setRoute] = useState(routeFromHash);
  useEffect(() => {
    const onChange = () => setRoute(routeFromHash());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function App({
  config,
  startupError,
  sandboxRefused = false,
}: {
  config: DashboardConfig;
  startupError?: unknown;
  sandboxRefused?: boolean;
}) {
  const session = useSession();
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      {session ? (
        <SignedIn session={session} config={config} sandboxRefused={sandboxRefused} />
      ) : (
        <SignIn config={config} startupError={startupError} />
      )}
    </>
  );
}

function SignedIn({
  session,
  config,
  sandboxRefused,
}: {
  session: Session;
  config: DashboardConfig;
  sandboxRefused: boolean;
}) {
  const { path, query } = useHashRoute();
  // A sandbox page exists in the sandbox alone (its routes are 404 for a live token).
  const pages = dashboardPages.filter((p) => !p.sandboxOnly || session.sandbox);
  // The navigation offers the pages the token's scopes allow; the first of them is the start page.
  const offered = pages.filter((p) => session.scopes.includes(p.scope));
  const start = offered[0] ?? pages[0]!;
  // `#/users/<id>`: a page's own sub-address (the page reads the rest of the path).
  const page = pages.find((p) => p.path === path || path.startsWith(`${p.path}/`)) ?? start;
  const Page = page.component;
  const allowed = session.scopes.includes(page.scope);
  return (
    <div class={session.sandbox ? 'signed-in sandbox' : 'signed-in'}>
      {session.sandbox ? (
        <p class="sandbox-banner" role="note" data-testid="sandbox-banner">
          <strong>Sandbox</strong>: test data only. Nothing here is live, and no e-mail leaves the sandbox.
        </p>
      ) : null}
      <header class="top">
        <div class="brand">
          <span class="title">Dashboard</span>
          <span class="org" data-testid="signed-in-org">
            {session.orgName ? `${session.orgName} (${session.orgId})` : session.orgId}
          </span>
        </div>
        <nav aria-label="Dashboard pages">
          <ul>
            {offered.map((p) => (
              <li key={p.path}>
                <a href={`#/${p.path}`} aria-current={p === page ? 'page' : undefined}>
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <SandboxSwitch config={config} on={session.sandbox} />
        <button type="button" class="sign-out" onClick={() => void signOutEverywhere(config)}>
          Sign out
        </button>
      </header>
      <main id="main">
        {sandboxRefused && !session.sandbox ? (
          <p class="notice warning" role="note">
            Your sign-in was not granted the sandbox: this is live data.
          </p>
        ) : null}
        {allowed ? null : (
          <p class="notice warning" role="note">
            Your sign-in lacks {page.scope}: this page’s requests will be refused (403).
          </p>
        )}
        {/* A new query (e.g. another target's history) opens the page afresh: it reads the query when it starts. */}
        <Page key={`${path}?${query}`} />
      </main>
    </div>
  );
}

/**
 * Live or sandbox: a new authorization request with the sandbox scope (or without it), which the
 * provider answers without a password while its session lasts. The mode is the token's, so a reload
 * (its refresh token) stays in it; the page shown comes back after the switch.
 */
function SandboxSwitch({ config, on }: { config: DashboardConfig; on: boolean }) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function toggle() {
    setBusy(true);
    setError(undefined);
    try {
      await startOidcSignIn(config, { sandbox: !on, returnTo: window.location.hash });
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  }

  return (
    <div class="sandbox-switch">
      <button type="button" role="switch" aria-checked={on} disabled={busy} onClick={() => void toggle()}>
        Sandbox
        <span class="switch-state" aria-hidden="true">
          {on ? 'on' : 'off'}
        </span>
      </button>
      <ErrorNotice error={error} context="The switch failed" />
    </div>
  );
}

function SignIn({ config, startupError }: { config: DashboardConfig; startupError?: unknown }) {
  const [error, setError] = useState<unknown>(startupError);
  const [busy, setBusy] = useState(false);

  async function signIn() {
    setBusy(true);
    setError(undefined);
    try {
      await startOidcSignIn(config);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <h1>Organization dashboard</h1>
      <ErrorNotice error={error} context="Sign-in failed" />
      <p>Sign in with your organization’s account.</p>
      <button type="button" class="primary" disabled={busy} onClick={() => void signIn()}>
        Sign in
      </button>
    </main>
  );
}
