import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Request, Response } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { USER_FIELDS } from '#client/index.ts';
import { generateDemoUsers } from '#local/demo-users.ts';
import { seedUsers } from '#local/seed-demo-data.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';
import { launchChromium } from './chromium.ts';
import { orgIdOf, staffOf, type BrowserOrganization } from './organizations.ts';
import { apiToken, signIn, signedInPage } from './sign-in.ts';

/**
 * The Users page and the actions of the dashboard in real Chromium against the local stack: the
 * first page on open, the search box (Unicode case folding), human column labels and locale
 * dates, plurals, Export disabled on an empty result, one user's view (every field, the screening
 * written out, reports, Request report with the quota from `RateLimit-Remaining`, the new job
 * followed to COMPLETE and downloaded verified, Erase after a confirmation), confirmations that cancel, success messages that a new action clears, the
 * favicon, aligned action cells and the layout at 375 and 1280 px. `UPDATE_SCREENSHOTS=1` writes
 * the screenshots to docs/images/ (docs/dashboard.md shows them). The tests that only read share one signed-in page in
 * this file's organization; each that requests a report, erases or issues a token has an organization and a page of its own.
 */
const screenshotDir = process.env.UPDATE_SCREENSHOTS
  ? join(import.meta.dirname, '../../docs/images')
  : join(tmpdir(), 'dashboard-users-screenshots');
mkdirSync(screenshotDir, { recursive: true });

const baseUrl = inject('baseUrl');
const orgId = orgIdOf('users-page');
/** The browser contexts the running test opened (pageOf), closed after it. */
const openedContexts: BrowserContext[] = [];

/** A page in a context of its own, signed in as the organization's admin, in the locale the dates are read in. */
async function pageOf(organization: BrowserOrganization): Promise<Page> {
  const { context: opened, page: signedIn } = await signedInPage(browser, staffOf(organization), {
    viewport: { width: 1280, height: 900 },
    locale: 'en-GB',
  });
  openedContexts.push(opened);
  return signedIn;
}
const stamp = Date.now().toString(36);
/** Users this file adds to its organizations, with names no demo user has. */
const zoe = { id: `zoe-${stamp}`.slice(0, 16), name: `Zoë Ångström-Quinterø` };
const erasable = { id: `erase-${stamp}`.slice(0, 16), name: `Ernestine Xylander` };

let browser: Browser;
let context: BrowserContext;
let page: Page;

async function screenshot(target: Page, name: string, fullPage = true): Promise<void> {
  await target.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage });
}

/** Records the API requests the page sends from now on, as `METHOD /path`. */
function recordApiRequests(target: Page): { requests: string[]; stop: () => void } {
  const requests: string[] = [];
  const onRequest = (request: Request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/v1/')) requests.push(`${request.method()} ${url.pathname}`);
  };
  target.on('request', onRequest);
  return { requests, stop: () => target.off('request', onRequest) };
}

async function openUsers(target: Page): Promise<void> {
  await target.getByRole('link', { name: 'Onboarding tokens' }).click();
  await target.getByRole('link', { name: 'Users', exact: true }).click();
}

/** Whether any visible heading, table header or navigation link breaks inside a word. */
async function headersBrokenMidWord(target: Page): Promise<string[]> {
  return target.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('h1, h2, h3, th, header nav a, button, dt, legend, label, summary')]
      .filter((element) => element.checkVisibility())
      .filter((element) => {
        // A word wider than its box overflows it or is split over lines: either way, the box is narrower than the word.
        const words = (element.textContent ?? '').split(/\s+/).filter(Boolean);
        const probe = document.createElement('span');
        probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap';
        element.appendChild(probe);
        const widest = Math.max(
          0,
          ...words.map((word) => {
            probe.textContent = word;
            return probe.getBoundingClientRect().width;
          }),
        );
        probe.remove();
        const style = getComputedStyle(element);
        const box = element.getBoundingClientRect().width;
        // Visually hidden text (a 1 px clip for screen readers) has no layout to judge.
        if (box <= 2) return false;
        const inner = box - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return widest > inner + 1;
      })
      .map((element) => `${element.tagName.toLowerCase()}: ${element.textContent}`),
  );
}

/** This file's two users, for the organization `orgId`. */
function usersOf(orgId: string): UserRecord[] {
  const [template] = generateDemoUsers({ orgId, count: 40, seed: 99 }).filter(
    (user) => (user.idcheck_pep_sanction_result?.pep_result.length ?? 0) > 0,
  );
  if (!template) throw new Error('no generated demo user has a PEP match to copy');
  return [
    { ...template, ...zoe, email: `zoe.${stamp}@example.test`, dob: '1990-07-14' },
    { ...template, ...erasable, email: `ernestine.${stamp}@example.test`, idcheck_pep_sanction_result: undefined },
  ];
}

beforeAll(async () => {
  const database = usersDatabaseAsAdmin();
  try {
    for (const organization of ['users-page', 'users-page-report', 'users-page-erasure'] as const) {
      await seedUsers({ database, orgId: orgIdOf(organization), users: usersOf(orgIdOf(organization)) });
    }
  } finally {
    await database.close();
  }
  // An Issued token, so the tokens page this file only reads has a row to lay out.
  const issued = await fetch(`${baseUrl}/v1/onboarding-token`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await apiToken(orgId)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: `rowan.${stamp}@example.test`, first_name: 'Rowan', last_name: 'Reader' }),
  });
  expect(issued.status).toBe(201);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
  page = await context.newPage();
  await signIn(page, staffOf('users-page'));
});

afterEach(async () => {
  for (const opened of openedContexts.splice(0)) await opened.close();
});

afterAll(async () => {
  await browser?.close();
});

describe('the Users page and the dashboard’s actions in Chromium', () => {
  it('serves its favicon: the page links it, it loads with 200, and no request on load is a 404', async () => {
    // A context of its own: a page signing in beside `page` would renew the session `page` shares, and make it
    // read its current list again while a later test records what `page` asks for.
    const ownContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    const fresh = await ownContext.newPage();
    const failures: string[] = [];
    const icons: Response[] = [];
    fresh.on('response', (response) => {
      if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
      if (/favicon/.test(response.url())) icons.push(response);
    });
    await fresh.goto(baseUrl);
    await fresh.waitForLoadState('networkidle');
    const href = await fresh.locator('link[rel="icon"]').getAttribute('href');
    expect(href).toBeTruthy();
    const icon = await fresh.request.get(new URL(href!, baseUrl).toString());
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toBe('image/svg+xml');
    expect(failures).toEqual([]);
    await ownContext.close();
  });

  it('reads the first page on open, with human column labels, locale dates and a plural total', async () => {
    // Recorded from the Users link on, once the tokens page it starts from has read its list.
    await page.getByRole('link', { name: 'Onboarding tokens' }).click();
    await page.waitForLoadState('networkidle');
    const api = recordApiRequests(page);
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    const total = page.getByTestId('users-total');
    await total.filter({ hasText: /^Showing 1–\d+ of [\d,]+ users$/ }).waitFor();
    api.stop();
    // Opened, not searched: nobody pressed a button. (The tokens page it came from may still re-read its own list as
    // it is left, when the 30-second session of this tier renews; that read is the tokens page's, not the Users page's.)
    expect(api.requests.filter((request) => request !== 'GET /v1/onboarding-tokens')).toEqual(['POST /v1/user-status']);
    const headers = await page.locator('table th').allTextContents();
    expect(headers).toEqual([
      'User id',
      'Name',
      'E-mail',
      'Registration status',
      'Mobile registration step',
      'Connection',
      'Created',
      'Updated',
      'Actions',
    ]);
    const created = await page.locator('td[data-label="Created"]').first().textContent();
    // en-GB medium date and short time, e.g. "3 Mar 2025, 14:05": not the stored ISO text.
    expect(created).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}$/);
    expect(await page.getByRole('button', { name: /^Export all [\d,]+ users as CSV$/ }).isEnabled()).toBe(true);
    await screenshot(page, 'users');
  });

  it('finds "Zoë" by "zoë" (and by "ZOË"), says "1 user", and links the row to the user', async () => {
    await openUsers(page);
    const search = async (typed: string) => {
      await page.getByLabel('Search', { exact: true }).fill(typed);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
    };
    // "zoë": this file's Zoë and any demo user with a name word starting "Zoë", nobody else.
    await search('zoë');
    const row = page.locator(`tr[data-user-id="${zoe.id}"]`);
    await row.waitFor();
    const names = await page.locator('td[data-label="Name"]').allTextContents();
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((name) => name.split(/\s+/).some((word) => word.toLocaleLowerCase().startsWith('zoë')))).toBe(
      true,
    );
    expect(await page.getByTestId('users-total').textContent()).toBe(
      names.length === 1 ? 'Showing 1–1 of 1 user' : `Showing 1–${names.length} of ${names.length} users`,
    );
    // Upper case, two words: this Zoë alone, and the singular.
    await search('ZOË QUINT');
    await page.getByTestId('users-total').filter({ hasText: 'Showing 1–1 of 1 user' }).waitFor();
    expect(
      await page
        .locator('tr[data-user-id]')
        .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.userId)),
    ).toEqual([zoe.id]);
    expect(await page.getByTestId('users-total').textContent()).toBe('Showing 1–1 of 1 user');
    expect(await page.getByRole('button', { name: 'Export 1 user as CSV' }).isEnabled()).toBe(true);
    expect(await page.locator(`tr[data-user-id="${zoe.id}"] td[data-label="Name"]`).textContent()).toBe(zoe.name);
    await screenshot(page, 'users-search');
  });

  it('disables Export when nothing matches', async () => {
    await openUsers(page);
    await page.getByLabel('Search', { exact: true }).fill(`nobody-${stamp}`);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByTestId('users-total').filter({ hasText: 'No users match.' }).waitFor();
    expect(await page.getByRole('button', { name: 'Export as CSV' }).isDisabled()).toBe(true);
  });

  it('shows one user: every field labelled, the screening written out, the reports, and the quota after a request', async () => {
    const page = await pageOf('users-page-report');
    await openUsers(page);
    await page.getByLabel('Search', { exact: true }).fill('zoë');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('link', { name: zoe.id }).click();
    await page.getByRole('heading', { name: zoe.name, level: 1 }).waitFor();
    expect(new URL(page.url()).hash).toBe(`#/users/${zoe.id}`);

    const fields = page.getByTestId('user-fields');
    const labels = await fields.locator('dt').allTextContents();
    expect(labels).toContain('Date of birth');
    expect(labels).toContain('PEP and sanction status');
    expect(labels.length).toBe(USER_FIELDS.length - 1);
    expect(labels.every((label) => !label.includes('_'))).toBe(true);
    expect(await fields.locator('dd[data-field="dob"]').textContent()).toBe('14 Jul 1990');
    expect(await fields.locator('dd[data-field="id"]').textContent()).toBe(zoe.id);
    const screening = page.getByTestId('screening');
    const screeningText = (await screening.textContent())!;
    expect(screeningText).toMatch(/\d+ PEP match(es)?/);
    expect(screeningText).not.toContain('{"');
    expect(await screening.locator('ol.matches > li').count()).toBeGreaterThan(0);
    await page.getByRole('region', { name: `Reports of ${zoe.id}` }).waitFor();
    await screenshot(page, 'user-view');

    const [response] = await Promise.all([
      page.waitForResponse(
        (candidate) =>
          candidate.request().method() === 'POST' && new URL(candidate.url()).pathname === '/v1/document/api',
      ),
      page.getByRole('button', { name: 'Request report' }).click(),
    ]);
    // The tier's limit (global-setup.ts) is one no browser test file can spend: always a 202.
    expect(response.status()).toBe(202);
    const remaining = Number(response.headers()['ratelimit-remaining']);
    expect(Number(response.headers()['ratelimit-limit'])).toBe(100);
    expect(remaining).toBeGreaterThan(1);
    const { jobId } = (await response.json()) as { jobId: string };
    await page
      .getByTestId('user-notice')
      .filter({ hasText: `Report requested (job ${jobId})` })
      .waitFor();
    expect(await page.getByTestId('report-quota').textContent()).toBe(
      `${remaining} report requests left of 100 in this 10-minute window.`,
    );

    // The new job is listed and followed in place until it is COMPLETE, then downloads verified.
    const row = page.locator(`tr[data-job-id="${jobId}"]`);
    await row.getByTestId('job-status').filter({ hasText: 'COMPLETE' }).waitFor({ timeout: 60_000 });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: /^Download the report of / }).click(),
    ]);
    const bytes = await readFile((await download.path())!);
    await page.getByTestId('download-verified').waitFor();
    const job = await (
      await fetch(`${baseUrl}/v1/document/api/${jobId}`, {
        headers: { authorization: `Bearer ${await apiToken(orgIdOf('users-page-report'))}` },
      })
    ).json();
    expect(job.status).toBe('COMPLETE');
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.length).toBe(job.sizeBytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(job.sha256);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^report-${zoe.id}-\\d{8}\\.pdf$`));
  });

  it('erases from the user view only after a confirmation: Cancel sends nothing', async () => {
    const page = await pageOf('users-page-erasure');
    await page.goto(`${baseUrl}/#/users/${erasable.id}`);
    await page.getByRole('heading', { name: erasable.name, level: 1 }).waitFor();
    // The view's own reads (the user's reports and tokens) are over once both lists are shown: only then record.
    await page.getByRole('region', { name: `Reports of ${erasable.id}` }).waitFor();
    await page.getByRole('region', { name: /^Onboarding tokens of / }).waitFor();
    const api = recordApiRequests(page);
    await page.getByRole('button', { name: `Erase user ${erasable.id}` }).click();
    const dialog = page.getByRole('dialog', { name: `Erase user ${erasable.id}?` });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(api.requests).toEqual([]);

    await page.getByRole('button', { name: `Erase user ${erasable.id}` }).click();
    await dialog.getByRole('button', { name: 'Erase', exact: true }).click();
    await page
      .getByTestId('user-notice')
      .filter({ hasText: `User ${erasable.id} erased.` })
      .waitFor();
    api.stop();
    expect(api.requests).toEqual([`DELETE /v1/users/${erasable.id}`]);
    expect(await page.getByTestId('user-fields').count()).toBe(0);
  });

  it('tokens: revoke and resend ask first, say what they did, and a new action clears the last message', async () => {
    const page = await pageOf('users-page-tokens');
    const email = `quinn.${stamp}@example.test`;
    await page.getByRole('link', { name: 'Onboarding tokens' }).click();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('First name').fill('Quinn');
    await page.getByLabel('Last name').fill('Ødegård');
    await page.getByRole('button', { name: 'Issue and e-mail token' }).click();
    await page.getByTestId('issued-token').waitFor();

    // The same e-mail again: 409. The green box of the first token must not stay beside it.
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('First name').fill('Quinn');
    await page.getByLabel('Last name').fill('Ødegård');
    await page.getByRole('button', { name: 'Issue and e-mail token' }).click();
    await page.getByRole('alert').filter({ hasText: 'The token was not issued' }).waitFor();
    expect(await page.getByTestId('issued-token').count()).toBe(0);

    const row = page.locator('tr[data-token-id]', { hasText: email });
    await row.waitFor();
    // The actions cell is a table cell, its top aligned with the row's other cells.
    const cells = await row
      .locator('td')
      .evaluateAll((tds) =>
        tds.map((td) => ({ display: getComputedStyle(td).display, top: Math.round(td.getBoundingClientRect().top) })),
      );
    expect(new Set(cells.map((cell) => cell.display))).toEqual(new Set(['table-cell']));
    expect(new Set(cells.map((cell) => cell.top)).size).toBe(1);

    const api = recordApiRequests(page);
    await row.getByRole('button', { name: `Revoke the token of ${email}` }).click();
    const revokeDialog = page.getByRole('dialog', { name: `Revoke the token of ${email}?` });
    await revokeDialog.waitFor();
    await screenshot(page, 'tokens-revoke-confirmation', false);
    // Opening the confirmation is a new action: the 409 is gone.
    expect(await page.getByRole('alert').filter({ hasText: 'The token was not issued' }).count()).toBe(0);
    await revokeDialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await revokeDialog.waitFor({ state: 'detached' });
    expect(api.requests).toEqual([]);
    expect(await row.getByText('Issued', { exact: true }).count()).toBe(1);

    await row.getByRole('button', { name: `Resend a token to ${email}` }).click();
    const resendDialog = page.getByRole('dialog', { name: `Resend a token to ${email}?` });
    await resendDialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await resendDialog.waitFor({ state: 'detached' });
    expect(api.requests).toEqual([]);

    await row.getByRole('button', { name: `Revoke the token of ${email}` }).click();
    await revokeDialog.getByRole('button', { name: 'Revoke', exact: true }).click();
    const notice = page.getByTestId('tokens-notice');
    await notice.filter({ hasText: `The token of ${email} was revoked.` }).waitFor();
    await row.getByText('Revoked', { exact: true }).waitFor();
    await screenshot(page, 'tokens');
    api.stop();
    expect(api.requests.filter((request) => request.startsWith('DELETE'))).toHaveLength(1);

    // The next action starts clean: the revoke message goes as soon as it is asked for.
    await page.getByLabel('E-mail').fill(`not-an-address-${stamp}`);
    await page.getByRole('button', { name: 'Issue and e-mail token' }).click();
    await page.locator('#email-error').waitFor();
    expect(await notice.count()).toBe(0);
  });

  it('reads well at 375 px: nothing wider than the screen, no heading, label or button broken inside a word', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    const views: Array<[string, () => Promise<void>]> = [
      [
        'narrow-users',
        async () => {
          await openUsers(page);
          await page
            .getByTestId('users-total')
            .filter({ hasText: /^Showing/ })
            .waitFor();
        },
      ],
      [
        'narrow-user-view',
        async () => {
          await page.goto(`${baseUrl}/#/users/${zoe.id}`);
          await page.getByRole('heading', { name: zoe.name, level: 1 }).waitFor();
          await page.getByRole('region', { name: `Reports of ${zoe.id}` }).waitFor();
        },
      ],
      [
        'narrow-tokens',
        async () => {
          await page.getByRole('link', { name: 'Onboarding tokens' }).click();
          await page.locator('tr[data-token-id]').first().waitFor();
        },
      ],
    ];
    for (const [name, open] of views) {
      await open();
      expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(375);
      expect(await headersBrokenMidWord(page), name).toEqual([]);
      // What a phone shows first: the top of the page.
      await screenshot(page, name, false);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await headersBrokenMidWord(page)).toEqual([]);
  });
});
