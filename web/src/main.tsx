import { render } from 'preact';
import { App } from './app.tsx';
import { loadDashboardConfig, type DashboardConfig } from './config.ts';
import { completeOidcSignIn, isOidcCallback } from './oidc.ts';
import { signInWith } from './session.ts';
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
  if (config.signIn === 'oidc' && isOidcCallback()) {
    try {
      signInWith(await completeOidcSignIn(config));
    } catch (error) {
      startupError = error;
    }
  }
  root.textContent = '';
  render(<App config={config} startupError={startupError} />, root);
}

void start();
