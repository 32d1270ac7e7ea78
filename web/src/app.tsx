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

export function App({ config, startupError }: { config: DashboardConfig; startupError?: unknown }) {
  const session = useSession();
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      {session ? (
        <SignedIn session={session} config={config} />
      ) : (
        <SignIn config={config} startupError={startupError} />
      )}
    </>
  );
}

function SignedIn({ session, config }: { session: Session; config: DashboardConfig }) {
  const { path, query } = useHashRoute();
  // The navigation offers the pages the token's scopes allow; the first of them is the start page.
  const offered = dashboardPages.filter((p) => session.scopes.includes(p.scope));
  const start = offered[0] ?? dashboardPages[0]!;
  // `#/users/<id>`: a page's own sub-address (the page reads the rest of the path).
  const page = dashboardPages.find((p) => p.path === path || path.startsWith(`${p.path}/`)) ?? start;
  const Page = page.component;
  const allowed = session.scopes.includes(page.scope);
  return (
    <>
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
        <button type="button" class="sign-out" onClick={() => void signOutEverywhere(config)}>
          Sign out
        </button>
      </header>
      <main id="main">
        {allowed ? null : (
          <p class="notice warning" role="note">
            Your sign-in lacks {page.scope}: this page’s requests will be refused (403).
          </p>
        )}
        {/* A new query (e.g. another target's history) opens the page afresh: it reads the query when it starts. */}
        <Page key={`${path}?${query}`} />
      </main>
    </>
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
