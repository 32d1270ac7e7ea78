import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { orgIdOf, staffOf } from './organizations.ts';
import { enterPasswordIfAsked, signIn } from './sign-in.ts';
import { BROWSER_STAFF_TOKEN_SECONDS } from './token-lifetime.ts';

/**
 * The dashboard's sign-in and session in Chromium against the local stack's own OpenID Connect
 * provider (oidc-provider), the code path the dashboard also takes in AWS: authorization code with
 * PKCE through the provider's login page and the staff passwords, a reload that stays signed in,
 * the viewer's narrower scopes, the access token renewed before it expires without losing the
 * page, and a sign-out that ends the provider's session too.
 */
const baseUrl = inject('baseUrl');
const orgId = orgIdOf('oidc-sign-in');
const admin = staffOf('oidc-sign-in', 'admin');
const viewer = staffOf('oidc-sign-in', 'viewer');
const issuer = inject('localEnv').JWT_ISSUER!;

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** The bearer tokens the page sends to the API, in order. */
function recordBearerTokens(page: Page): string[] {
  const tokens: string[] = [];
  page.on('request', (request: Request) => {
    const authorization = request.headers().authorization;
    if (new URL(request.url()).pathname.startsWith('/v1/') && authorization) {
      tokens.push(authorization.replace(/^Bearer /, ''));
    }
  });
  return tokens;
}

/** Everything the page's origin keeps: localStorage, sessionStorage and the cookies scripts can read. */
function storedByPage(page: Page): Promise<string> {
  return page.evaluate(() => JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie]));
}

describe('signing in through the local identity provider', () => {
  // Each test in a browser context of its own: none starts from the session another left.
  let context: BrowserContext;
  let page: Page;
  let tokens: string[];

  beforeEach(async () => {
    context = await browser.newContext();
    page = await context.newPage();
    tokens = recordBearerTokens(page);
  });

  afterEach(async () => {
    await context?.close();
  });

  /** Signed in as the admin, on the tokens page once it has read its list with the first access token. */
  async function signInAsAdmin(): Promise<void> {
    const listed = page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/onboarding-tokens');
    await signIn(page, admin);
    await listed;
  }

  it('asks for the password on the provider’s page and comes back with code + PKCE; no access token in storage', async () => {
    const authorizations: URL[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(`${issuer}/auth`)) authorizations.push(new URL(request.url()));
    });
    await page.goto(baseUrl);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // A wrong password is refused on the provider's page.
    await page.getByLabel('E-mail address').fill(admin.email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('password is wrong');
    expect(new URL(page.url()).origin).toBe(new URL(issuer).origin);

    await page.getByLabel('E-mail address').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('signed-in-org').waitFor();

    const [authorization] = authorizations;
    expect(authorization!.searchParams.get('redirect_uri')).toBe(`${baseUrl}/`);
    expect(authorization!.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization!.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(page.url()).toBe(`${baseUrl}/`);
    expect(await page.getByTestId('signed-in-org').textContent()).toContain(orgId);

    // The tokens page lists through the API with the provider's access token.
    await page.getByRole('heading', { name: 'Issued tokens' }).waitFor();
    await page.locator('table tbody').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    const accessToken = tokens.at(-1)!;
    expect(decodeJwt(accessToken)).toMatchObject({
      iss: issuer,
      org_id: orgId,
      sub: admin.id,
      client_id: 'onboarding-dashboard',
    });
    expect(String(decodeJwt(accessToken).scope).split(' ')).toContain('webhooks:manage');
    const stored = await storedByPage(page);
    expect(stored).not.toContain(accessToken);
    expect(await page.evaluate(() => [localStorage.length, document.cookie])).toEqual([0, '']);
  });

  it('stays signed in after a reload, without the provider asking again', async () => {
    await signInAsAdmin();
    const before = tokens.length;
    await page.reload();
    await page.getByTestId('signed-in-org').waitFor();
    expect(new URL(page.url()).origin).toBe(new URL(baseUrl).origin);
    await page.getByRole('heading', { name: 'Issued tokens' }).waitFor();
    await page.locator('table tbody').waitFor();
    // A new access token (the refresh token grant), which the API accepts.
    expect(tokens.length).toBeGreaterThan(before);
    expect(tokens.at(-1)).not.toBe(tokens[before - 1]);
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('renews the access token before it expires, keeping the page as it is', async () => {
    await signInAsAdmin();
    await page.getByLabel('E-mail').fill('kept@example.com');
    const firstToken = tokens.at(-1)!;
    const renewal = page.waitForRequest(
      (request) =>
        request.url() === `${issuer}/token` && (request.postData() ?? '').includes('grant_type=refresh_token'),
      { timeout: BROWSER_STAFF_TOKEN_SECONDS * 1000 },
    );
    const response = await (await renewal).response();
    expect(response?.status()).toBe(200);
    // Nothing reloaded: what was typed is still there.
    expect(await page.getByLabel('E-mail').inputValue()).toBe('kept@example.com');
    expect(page.url()).toBe(`${baseUrl}/`);

    // The next call carries the new token, and the API takes it.
    const listed = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/onboarding-tokens');
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('link', { name: 'Onboarding tokens' }).click();
    expect((await listed).status()).toBe(200);
    const renewed = tokens.at(-1)!;
    expect(renewed).not.toBe(firstToken);
    expect(decodeJwt(renewed).exp!).toBeGreaterThan(decodeJwt(firstToken).exp!);
  }, 90_000);

  it('signs out of the provider too: the next sign-in asks for the password again', async () => {
    await signInAsAdmin();
    const refreshToken = await page.evaluate(
      () =>
        (JSON.parse(sessionStorage.getItem('dashboard.oidc.session') ?? '{}') as { refreshToken?: string })
          .refreshToken,
    );
    expect(refreshToken).toBeTruthy();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).origin).toBe(new URL(baseUrl).origin);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    // The refresh token ended with the provider's session.
    const refused = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken!,
        client_id: 'onboarding-dashboard',
      }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');

    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('E-mail address').waitFor();
    expect(await enterPasswordIfAsked(page, admin)).toBe(true);
    await page.getByTestId('signed-in-org').waitFor();
  });
});

describe('the viewer', () => {
  it('gets only the viewer’s scopes and sees no write buttons', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const tokens = recordBearerTokens(page);
    await signIn(page, viewer);
    await page.locator('table tbody').waitFor();
    expect(
      String(decodeJwt(tokens.at(-1)!).scope)
        .split(' ')
        .sort(),
    ).toEqual(['onboarding:read', 'reports:read', 'users:read']);
    expect(decodeJwt(tokens.at(-1)!).sub).toBe(viewer.id);

    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await page.locator('tr[data-user-id]').first().waitFor();
    expect(await page.getByRole('button', { name: /^Erase/ }).count()).toBe(0);
    expect(await page.locator('table th').allTextContents()).not.toContain('Actions');

    // A write the page does not offer is refused by the API all the same.
    const refused = await page.evaluate(async (token) => {
      const response = await fetch('/v1/onboarding-token', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'viewer-try@example.com', first_name: 'Vera', last_name: 'Viewer' }),
      });
      return { status: response.status, body: (await response.json()) as unknown };
    }, tokens.at(-1)!);
    expect(refused).toMatchObject({ status: 403, body: { code: 403, error: 'FORBIDDEN' } });
    await context.close();
  });
});
