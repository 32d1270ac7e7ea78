import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ALL_SCOPES } from '#local/dev-keys.ts';
import type { Role } from '#shared/domain/identity/staff-roles.ts';
import { SANDBOX_SCOPE } from '#shared/domain/identity/tenant.ts';
import { launchChromium } from './chromium.ts';
import { orgIdOf, staffOf, type BrowserOrganization } from './organizations.ts';
import { apiToken, signedInPage } from './sign-in.ts';

/**
 * Contract §23 in Chromium: staff switch the dashboard to the sandbox and back. While it shows the
 * sandbox every page carries the banner and the pages show the sandbox's data alone (the token
 * keys them); the Sandbox page lists the kept e-mails and the scenario users, and offers the wipe,
 * behind a confirmation, to an admin alone.
 */
const baseUrl = inject('baseUrl');
const LIVE_EMAIL = 'sandbox-mode-live@example.com';

let browser: Browser;

/** Issues an onboarding token through the API, live or in the sandbox; answers its id. */
async function issueToken(organization: BrowserOrganization, email: string, sandbox: boolean): Promise<string> {
  const token = await apiToken(orgIdOf(organization), sandbox ? [...ALL_SCOPES, SANDBOX_SCOPE] : undefined);
  const response = await fetch(`${baseUrl}/v1/onboarding-token`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, first_name: 'Sandra', last_name: 'Box' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { tokenId: string }).tokenId;
}

const navigation = (page: Page) => page.getByRole('navigation', { name: 'Dashboard pages' });
const sandboxSwitch = (page: Page) => page.getByRole('switch', { name: 'Sandbox' });

/**
 * Flips the switch and waits for the dashboard to come back from the provider in the other mode;
 * then opens the tokens page afresh and answers the scopes of the token its listing was sent with.
 */
async function flipSandboxSwitch(page: Page, on: boolean): Promise<string[]> {
  await sandboxSwitch(page).click();
  await page.waitForFunction(
    (expected) => document.querySelector('[role="switch"]')?.getAttribute('aria-checked') === String(expected),
    on,
  );
  await navigation(page).getByRole('link', { name: 'Reports' }).click();
  await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
  const listed = page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/onboarding-tokens');
  await navigation(page).getByRole('link', { name: 'Onboarding tokens' }).click();
  const bearer = (await listed).request().headers().authorization ?? '';
  return String(decodeJwt(bearer.replace(/^Bearer /, '')).scope).split(' ');
}

const listedTokenEmails = async (page: Page): Promise<string[]> => {
  await page.locator('table tbody[aria-busy="false"]').first().waitFor();
  return page.locator('tr[data-token-id] td[data-label="E-mail"]').allTextContents();
};

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** Every test below starts signed in, in a browser context of its own, in live mode. */
const signedInLive = (
  organization: BrowserOrganization,
  role: Role,
): Promise<{ context: BrowserContext; page: Page }> => signedInPage(browser, staffOf(organization, role));

describe('the sandbox switch', () => {
  it('turns a live page into the sandbox’s: a sandbox token, the banner on every page, sandbox data alone, over a reload; and back', async () => {
    const sandboxEmail = `sandbox-switch-${Date.now()}@example.com`;
    await issueToken('sandbox-mode', LIVE_EMAIL, false);
    await issueToken('sandbox-mode', sandboxEmail, true);
    const { context, page } = await signedInLive('sandbox-mode', 'viewer');
    try {
      expect(await page.getByTestId('sandbox-banner').count()).toBe(0);
      expect(await sandboxSwitch(page).getAttribute('aria-checked')).toBe('false');
      expect(await listedTokenEmails(page)).toContain(LIVE_EMAIL);
      expect(await listedTokenEmails(page)).not.toContain(sandboxEmail);
      expect(await navigation(page).getByRole('link', { name: 'Sandbox' }).count()).toBe(0);

      expect(await flipSandboxSwitch(page, true)).toContain('sandbox');

      const emails = await listedTokenEmails(page);
      expect(emails).toContain(sandboxEmail);
      expect(emails).not.toContain(LIVE_EMAIL);
      const pages = await navigation(page).getByRole('link').allTextContents();
      expect(pages).toEqual(['Onboarding tokens', 'Reports', 'Verify a report', 'Users', 'Sandbox']);
      for (const label of pages) {
        const link = navigation(page).getByRole('link', { name: label, exact: true });
        await link.click();
        await expect.poll(() => link.getAttribute('aria-current')).toBe('page');
        await page.getByRole('heading', { level: 1 }).waitFor();
        expect(await page.getByTestId('sandbox-banner').textContent(), label).toContain('Sandbox');
      }

      await page.reload();
      await page.getByTestId('sandbox-banner').waitFor();
      expect(await sandboxSwitch(page).getAttribute('aria-checked')).toBe('true');

      expect(await flipSandboxSwitch(page, false)).not.toContain('sandbox');

      expect(await page.getByTestId('sandbox-banner').count()).toBe(0);
      const liveEmails = await listedTokenEmails(page);
      expect(liveEmails).toContain(LIVE_EMAIL);
      expect(liveEmails).not.toContain(sandboxEmail);
      expect(await navigation(page).getByRole('link', { name: 'Sandbox' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('keeps the e-mail of a token issued in the sandbox, and lists it on the Sandbox page', async () => {
    const sandboxEmail = `sandbox-kept-${Date.now()}@example.com`;
    const { context, page } = await signedInLive('sandbox-mode-emails', 'operator');
    try {
      await flipSandboxSwitch(page, true);
      await page.getByLabel('E-mail').fill(sandboxEmail);
      await page.getByLabel('First name').fill('Sandra');
      await page.getByLabel('Last name').fill('Box');
      await page.getByRole('button', { name: 'Issue and e-mail token' }).click();
      await page.getByTestId('issued-notice').waitFor();

      await navigation(page).getByRole('link', { name: 'Sandbox' }).click();
      const keptEmails = page.getByRole('region', { name: 'Kept e-mails' });
      await keptEmails.getByText(sandboxEmail).waitFor();
      await page.getByLabel('To').fill(sandboxEmail);
      await page.getByRole('button', { name: 'Show' }).click();
      await expect.poll(() => keptEmails.locator('td[data-label="To"]').allTextContents()).toEqual([sandboxEmail]);
      await keptEmails.getByText('Read').click();
      await keptEmails.locator('pre').waitFor();
      expect((await keptEmails.locator('pre').textContent())?.trim()).not.toBe('');
    } finally {
      await context.close();
    }
  });

  it('lists the scenario users with what each report does, and offers no wipe to an operator', async () => {
    const { context, page } = await signedInLive('sandbox-mode', 'operator');
    try {
      await flipSandboxSwitch(page, true);
      await navigation(page).getByRole('link', { name: 'Sandbox' }).click();
      const scenarios = page.getByRole('region', { name: 'Scenario users' });
      await scenarios.locator('tr[data-scenario-id="sbx-sanctions"]').waitFor();

      expect(
        await scenarios
          .locator('tr[data-scenario-id]')
          .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-scenario-id'))),
      ).toEqual(['sbx-clear', 'sbx-minor', 'sbx-pep', 'sbx-sanctions', 'sbx-scripts', 'sbx-fail', 'sbx-slow']);
      expect(await scenarios.locator('tr[data-scenario-id="sbx-fail"]').textContent()).toContain(
        'ends FAILED with RENDER_FAILED',
      );
      expect(await scenarios.locator('tr[data-scenario-id="sbx-slow"]').textContent()).toContain(
        'completes after 30 s',
      );
      await page.getByRole('heading', { name: 'Kept e-mails' }).waitFor();
      expect(await page.getByRole('button', { name: 'Wipe sandbox' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});

describe('a test event', () => {
  it('is sent per type from the Sandbox page and makes its object in the sandbox alone', async () => {
    const organization = 'sandbox-mode-events';
    const { context, page } = await signedInLive(organization, 'operator');
    try {
      await flipSandboxSwitch(page, true);
      await navigation(page).getByRole('link', { name: 'Sandbox' }).click();
      const buttons = page.getByRole('region', { name: 'Send a test event' }).getByRole('button');
      await buttons.first().waitFor();
      expect(await buttons.allTextContents()).toEqual([
        'Send report.completed',
        'Send report.failed',
        'Send onboarding_token.used',
        'Send onboarding_token.revoked',
        'Send webhook.test',
      ]);

      await page.getByRole('button', { name: 'Send report.completed' }).click();
      const sent = page.getByTestId('test-event-sent');
      await sent.waitFor();
      const jobId = (await sent.locator('code').textContent())!;

      // The job the event made is the sandbox's: in its list of jobs, not in live's.
      const listedJobIds = async (scopes?: readonly string[]): Promise<string[]> => {
        const response = await fetch(`${baseUrl}/v1/document/api?limit=100`, {
          headers: { authorization: `Bearer ${await apiToken(orgIdOf(organization), scopes)}` },
        });
        expect(response.status).toBe(200);
        return ((await response.json()) as { results: Array<{ jobId: string }> }).results.map((job) => job.jobId);
      };
      expect(await listedJobIds([...ALL_SCOPES, SANDBOX_SCOPE])).toContain(jobId);
      expect(await listedJobIds()).not.toContain(jobId);
    } finally {
      await context.close();
    }
  });
});

describe('wiping the sandbox', () => {
  it('is an admin’s, asks first (Cancel sends nothing), and leaves live data', async () => {
    const organization = 'sandbox-mode-wipe';
    const sandboxTokenId = await issueToken(organization, 'wipe-me@example.com', true);
    const liveTokenId = await issueToken(organization, 'keep-me@example.com', false);
    const { context, page } = await signedInPage(browser, staffOf(organization, 'admin'));
    const wipes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'DELETE' && new URL(request.url()).pathname === '/v1/sandbox') wipes.push(request.url());
    });
    try {
      await flipSandboxSwitch(page, true);
      expect(await listedTokenEmails(page)).toEqual(['wipe-me@example.com']);
      await navigation(page).getByRole('link', { name: 'Sandbox' }).click();

      await page.getByRole('button', { name: 'Wipe sandbox' }).click();
      const dialog = page.getByRole('dialog', { name: 'Wipe the sandbox?' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(wipes).toEqual([]);

      await page.getByRole('button', { name: 'Wipe sandbox' }).click();
      await dialog.getByRole('button', { name: 'Wipe', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'is under way' }).waitFor();
      expect(wipes).toHaveLength(1);

      // Within 60 s the sandbox's token is gone; the live one stays.
      const sandboxToken = await apiToken(orgIdOf(organization), [...ALL_SCOPES, SANDBOX_SCOPE]);
      const liveToken = await apiToken(orgIdOf(organization));
      const listedIds = async (token: string): Promise<string[]> => {
        const response = await fetch(`${baseUrl}/v1/onboarding-tokens`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(response.status).toBe(200);
        return ((await response.json()) as { results: Array<{ tokenId: string }> }).results.map((t) => t.tokenId);
      };
      await expect
        .poll(() => listedIds(sandboxToken), { timeout: 60_000, interval: 1_000 })
        .not.toContain(sandboxTokenId);
      expect(await listedIds(liveToken)).toContain(liveTokenId);
    } finally {
      await context.close();
    }
  });
});
