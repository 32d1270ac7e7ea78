import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { inject } from 'vitest';
import type { StaffMember } from '#local/demo-staff.ts';
import { issueDevToken } from '#local/dev-keys.ts';

/**
 * Signing in to the dashboard in the browser tests, through the local identity provider the
 * stack runs (local/identity-provider.ts), as a person does: the dashboard's Sign in button, the
 * provider's login page with a staff member's password (organizations.ts `staffOf`), back to the dashboard.
 */

/**
 * Opens the dashboard at `target` and signs in as `as`.
 * A session this tab already has is signed out first. With `scopes`, the dashboard asks the provider for those alone (its configuration's `scope`, as
 * a deployment may set it), so the access token carries no other. When the provider's session in
 * this browser context is still open, it signs in without asking for the password.
 */
export async function signIn(target: Page, as: StaffMember, scopes?: readonly string[]): Promise<void> {
  const baseUrl = inject('baseUrl');
  const configUrl = `${baseUrl}/dashboard-config.json`;
  await target.unroute(configUrl);
  if (scopes) {
    await target.route(configUrl, async (route) => {
      const served = (await (await route.fetch()).json()) as Record<string, unknown>;
      await route.fulfill({ json: { ...served, scope: ['openid', ...scopes].join(' ') } });
    });
  }
  await target.goto(baseUrl);
  const signInButton = target.getByRole('button', { name: 'Sign in' });
  const signedIn = target.getByTestId('signed-in-org');
  await Promise.race([signInButton.waitFor(), signedIn.waitFor()]);
  if (await signedIn.isVisible()) {
    // This tab's session resumed: sign out (of the provider too) to sign in as asked.
    await target.getByRole('button', { name: 'Sign out' }).click();
    await signInButton.waitFor();
  }
  await signInButton.click();
  await enterPasswordIfAsked(target, as);
  await target.getByTestId('signed-in-org').waitFor();
}

/**
 * A browser context of its own with one page signed in as `as`, on the tokens page once it has read its list
 * (so a test starts from a settled page whatever ran before it). Close the context when done.
 */
export async function signedInPage(
  browser: Browser,
  as: StaffMember,
  options: BrowserContextOptions = { viewport: { width: 1280, height: 900 } },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const listed = page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/onboarding-tokens');
  await signIn(page, as);
  await listed;
  return { context, page };
}

/** On the provider's login page (if it shows: an open provider session skips it), the staff member's e-mail and password. */
export async function enterPasswordIfAsked(target: Page, as: StaffMember): Promise<boolean> {
  const email = target.getByLabel('E-mail address');
  const signedIn = target.getByTestId('signed-in-org');
  await Promise.race([email.waitFor(), signedIn.waitFor()]);
  if (!(await email.isVisible())) return false;
  await email.fill(as.email);
  await target.getByLabel('Password').fill(as.password);
  await target.getByRole('button', { name: 'Sign in' }).click();
  return true;
}

/** A token for calling the stack's API directly from a test (crafted with the provider's key and issuer). */
export function apiToken(orgId: string, scopes?: readonly string[]): Promise<string> {
  const { LOCAL_KEYS_DIR: keysDir, JWT_ISSUER: issuer } = inject('localEnv');
  return issueDevToken({ orgId, keysDir, issuer, ...(scopes ? { scopes } : {}) });
}
