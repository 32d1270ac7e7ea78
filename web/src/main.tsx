import { render } from 'preact';
import { App } from './app.tsx';
import { loadDashboardConfig, type DashboardConfig } from './config.ts';
import { completeOidcSignIn, isOidcCallback, resumeOidcSession } from './oidc.ts';
import { SessionEndedError } from './session.ts';
import './styles.css';

async function start(): Promise<void> {
  const root = document.getElementById('app')!;
  let config: DashboardConfig;
  try {
    config = await loadDashboardConfig();
  } catch (error) {
    root.textContent = error instanceof Error ? error.message : String(error);
    return;
  }
  let startupError: unknown;
  let sandboxRefused = false;
  try {
    // Back from the provider with a code, or a reload of a signed-in tab (its refresh token).
    if (isOidcCallback()) ({ sandboxRefused } = await completeOidcSignIn(config));
    else await resumeOidcSession(config);
  } catch (error) {
    // A session the provider has ended just shows the sign-in page.
    if (!(error instanceof SessionEndedError)) startupError = error;
  }
  root.textContent = '';
  render(<App config={config} startupError={startupError} sandboxRefused={sandboxRefused} />, root);
}

void start();
