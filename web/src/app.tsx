import { useEffect, useState } from 'preact/hooks';
import type { DashboardConfig } from './config.ts';
import { ErrorNotice } from './components.tsx';
import { parseHash } from './hash-route.ts';
import { requestDevelopmentToken } from './local-sign-in.ts';
import { startOidcSignIn } from './oidc.ts';
import { dashboardPages } from './pages/index.ts';
import { signInWith, signOut, useSession, type Session } from './session.ts';

// `#/<path>?<query>`: the path picks the page, the query (the page's own) is left out of the match.
const routeFromHash = (): { path: string; query: string } => {
  const { path, query } = parseHash(window.location.hash);
  return { path: path || dashboardPages[0]!.path, query: query.toString() };
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
      {session ? <SignedIn session={session} /> : <SignIn config={config} startupError={startupError} />}
    </>
  );
}

function SignedIn({ session }: { session: Session }) {
  const { path, query } = useHashRoute();
  const page = dashboardPages.find((p) => p.path === path) ?? dashboardPages[0]!;
  const Page = page.component;
  const missing = page.scopes.filter((scope) => !session.scopes.includes(scope));
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
            {dashboardPages.map((p) => (
              <li key={p.path}>
                <a href={`#/${p.path}`} aria-current={p === page ? 'page' : undefined}>
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="sign-out" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        {missing.length > 0 ? (
          <p class="notice warning" role="note">
            Your sign-in lacks {missing.join(', ')}: some of this page will be refused (403).
          </p>
        ) : null}
        {/* A new query (e.g. another target's history) opens the page afresh: it reads the query when it starts. */}
        <Page key={`${page.path}?${query}`} />
      </main>
    </>
  );
}

function SignIn({ config, startupError }: { config: DashboardConfig; startupError?: unknown }) {
  const [orgId, setOrgId] = useState('demo-org');
  // The development sign-in offers every scope the local stack's tokens can carry, all ticked.
  const offeredScopes = config.signIn === 'local' ? config.scopes : [];
  const [scopes, setScopes] = useState<string[]>(offeredScopes);
  const [error, setError] = useState<unknown>(startupError);
  const [busy, setBusy] = useState(false);

  async function signInLocally(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      signInWith(await requestDevelopmentToken({ orgId: orgId.trim(), scopes }));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  async function signInWithProvider() {
    if (config.signIn !== 'oidc') return;
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
      {config.signIn === 'oidc' ? (
        <>
          <p>Sign in with your organization’s account.</p>
          <button type="button" class="primary" disabled={busy} onClick={() => void signInWithProvider()}>
            Sign in
          </button>
        </>
      ) : (
        <form class="card" onSubmit={(event) => void signInLocally(event)}>
          <h2>Development sign-in</h2>
          <p class="hint">
            Offered by the local stack only: it mints a development token for any organization. The token is kept in
            this tab’s memory; reloading signs you out.
          </p>
          <div class="field">
            <label for="dev-org">Organization id</label>
            <input
              id="dev-org"
              required
              pattern="[A-Za-z0-9_.\-]{1,64}"
              value={orgId}
              onInput={(event) => setOrgId(event.currentTarget.value)}
            />
          </div>
          <fieldset class="columns">
            <legend>Scopes</legend>
            {offeredScopes.map((scope) => (
              <label key={scope} class="check">
                <input
                  type="checkbox"
                  name="scope"
                  value={scope}
                  checked={scopes.includes(scope)}
                  onChange={(event) =>
                    setScopes(event.currentTarget.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))
                  }
                />{' '}
                {scope}
              </label>
            ))}
          </fieldset>
          <button type="submit" class="primary" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
    </main>
  );
}
