import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Locator, Page, Request } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { FIELD_LABELS } from '#web/src/user-fields.ts';
import { launchChromium } from './chromium.ts';
import { orgIdOf, staffOf, type BrowserOrganization } from './organizations.ts';
import { apiToken as tokenForOrg, signIn, signedInPage } from './sign-in.ts';

/**
 * The dashboard in real Chromium against the local stack: development sign-in, tokens (inline
 * validation errors, issue, e-mail, revoke), reports (request, live status, verified download),
 * users (filters, columns, paging, CSV export of the whole result, erasure after a confirmation), webhooks (SSRF refusal beside the
 * field, the secret shown once, a signed test event to a receiver on loopback, deliveries, delete),
 * activity (a token's audit events, the action filter, each row's History link), errors with request ids,
 * keyboard reachability, labels and a 375 px wide layout. `UPDATE_SCREENSHOTS=1` writes each
 * page's screenshot to docs/images/ (docs/dashboard.md shows them); otherwise they go to a temporary folder.
 * Every test has a browser context of its own; the tests that only read are in this file's organization, and each
 * that issues, revokes, requests, erases or registers something in an organization of its own.
 */
const screenshotDir = process.env.UPDATE_SCREENSHOTS
  ? join(import.meta.dirname, '../../docs/images')
  : join(tmpdir(), 'dashboard-screenshots');
mkdirSync(screenshotDir, { recursive: true });

let browser: Browser;
const baseUrl = inject('baseUrl');
/** The organization of the tests that only read. */
const orgId = orgIdOf('dashboard');
const contextOptions: BrowserContextOptions = { acceptDownloads: true, viewport: { width: 1280, height: 900 } };
/** The browser contexts the running test opened, closed after it. */
const openedContexts: BrowserContext[] = [];

/** A page in a context of its own, not signed in. */
async function freshPage(): Promise<Page> {
  const context = await browser.newContext(contextOptions);
  openedContexts.push(context);
  return context.newPage();
}

/** A page in a context of its own, signed in as the organization's admin, on the tokens page. */
async function pageOf(organization: BrowserOrganization): Promise<Page> {
  const { context, page } = await signedInPage(browser, staffOf(organization), contextOptions);
  openedContexts.push(context);
  return page;
}

const apiToken = (organization: BrowserOrganization) => tokenForOrg(orgIdOf(organization));
async function api(
  organization: BrowserOrganization,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<any> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${await apiToken(organization)}`, 'content-type': 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return response.json();
}

/** The whole page, or (`fullPage` false) what the viewport shows, e.g. a modal dialog over the page. */
async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: join(screenshotDir, `dashboard-${name}.png`), fullPage });
}

/** A token issued and revoked through the page by the signed-in staff member, as the tokens test does; its id. */
async function issueAndRevokeThroughPage(page: Page, email: string): Promise<string> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('First name').fill('Zoë');
  await page.getByLabel('Last name').fill('Ångström');
  await page.getByRole('button', { name: 'Issue and e-mail token' }).click();
  const row = page.locator('tr[data-token-id]', { hasText: email });
  await row.getByText('Issued').waitFor();
  await revokeThroughDialog(page, row, email);
  return (await row.getAttribute('data-token-id'))!;
}

/** Revoke on the token's row, confirmed in its dialog; resolves once the row says Revoked. */
async function revokeThroughDialog(page: Page, row: Locator, email: string): Promise<void> {
  await row.getByRole('button', { name: `Revoke the token of ${email}` }).click();
  await page
    .getByRole('dialog', { name: `Revoke the token of ${email}?` })
    .getByRole('button', { name: 'Revoke', exact: true })
    .click();
  await row.getByText('Revoked').waitFor();
}

/** Every visible control has an accessible name (label, aria-label or text). */
async function unlabelledControls(target: Page): Promise<string[]> {
  return target.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, summary, [tabindex]')]
      .filter((element) => element.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true }))
      .filter((element) => {
        const labels = (element as HTMLInputElement).labels;
        const name =
          element.getAttribute('aria-label') ??
          (labels && labels.length > 0 ? [...labels].map((label) => label.textContent ?? '').join('') : '') ??
          '';
        return (name || element.textContent || element.getAttribute('title') || '').trim() === '';
      })
      .map((element) => element.outerHTML.slice(0, 120)),
  );
}

/** Tabs through the page and returns the controls never reached (visible, enabled ones only). */
async function unreachableByKeyboard(target: Page): Promise<string[]> {
  const count = await target.evaluate(() => {
    const controls = [
      ...document.querySelectorAll<HTMLElement>(
        'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), summary, [tabindex="0"]',
      ),
    ].filter((element) => element.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true }));
    controls.forEach((element, index) => element.setAttribute('data-keyboard-check', String(index)));
    (document.activeElement as HTMLElement | null)?.blur();
    return controls.length;
  });
  const reached = new Set<string>();
  for (let press = 0; press < count + 5; press += 1) {
    await target.keyboard.press('Tab');
    const id = await target.evaluate(() => document.activeElement?.getAttribute('data-keyboard-check') ?? null);
    if (id !== null) reached.add(id);
  }
  return target.evaluate(
    (seen) =>
      [...document.querySelectorAll<HTMLElement>('[data-keyboard-check]')]
        .filter((element) => !seen.includes(element.getAttribute('data-keyboard-check')!))
        .map((element) => element.outerHTML.slice(0, 120)),
    [...reached],
  );
}

/** The page's width at 375 px, and every table region that would still scroll sideways (none should: rows become cards). */
async function fitsNarrowScreen(target: Page): Promise<{ scrollWidth: number; scrollingTables: number }> {
  await target.setViewportSize({ width: 375, height: 800 });
  return target.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    scrollingTables: [...document.querySelectorAll('.table-wrap')].filter((t) => t.scrollWidth > t.clientWidth + 1)
      .length,
  }));
}

/** A webhook receiver on loopback (local mode allows it): every request's headers and raw body, answered 204. */
async function startReceiver(): Promise<{
  url: string;
  received: Array<{ headers: IncomingHttpHeaders; body: string }>;
  close: () => Promise<void>;
}> {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

beforeAll(async () => {
  // An Issued token in the organization the reading tests share: a row on its tokens page, an event on its Activity page.
  const issued = await fetch(`${baseUrl}/v1/onboarding-token`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await apiToken('dashboard')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: `reader-${Date.now()}@example.com`, first_name: 'Rhea', last_name: 'Reader' }),
  });
  expect(issued.status).toBe(201);
  browser = await launchChromium();
});

afterEach(async () => {
  for (const context of openedContexts.splice(0)) await context.close();
});

afterAll(async () => {
  await browser?.close();
});

describe('the dashboard in Chromium', () => {
  it('is served at / with a strict Content-Security-Policy and signs in through the identity provider', async () => {
    const page = await freshPage();
    const response = await page.goto(baseUrl);
    const csp = response!.headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, 'sign-in');

    await signIn(page, staffOf('dashboard'));

    expect(await page.getByTestId('signed-in-org').textContent()).toContain(orgId);
    // The access token lives in memory only (oidc-sign-in.test.ts looks closer).
    expect(await page.evaluate(() => [localStorage.length, document.cookie])).toEqual([0, '']);
  });

  it('shows the API’s validation errors beside the fields, issues a token, lists it, e-mails it and revokes it', async () => {
    const page = await pageOf('dashboard-tokens');
    await page.getByRole('button', { name: 'Issue and e-mail token' }).click();
    await page.locator('#email-error').waitFor();
    expect(await page.locator('#firstName-error').textContent()).toContain('first_name');
    expect(await page.getByLabel('E-mail').getAttribute('aria-invalid')).toBe('true');

    const email = `browser-${Date.now()}@example.com`;
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('First name').fill('Zoë');
    await page.getByLabel('Last name').fill('Ångström');
    await page.getByRole('button', { name: 'Issue and e-mail token' }).click();
    const token = (await page.getByTestId('issued-token').textContent())!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const row = page.locator('tr[data-token-id]', { hasText: email });
    await row.getByText('Issued').waitFor();
    expect(await row.textContent()).toContain(token.slice(-4));

    const store = (await (await fetch(`${inject('endpoints').ses}/store`)).json()) as {
      emails: Array<{ destination: { to: string[] }; body: { text: string } }>;
    };
    const sent = store.emails.filter((mail) => mail.destination.to.includes(email));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body.text).toContain(token);

    expect(await unlabelledControls(page)).toEqual([]);
    expect(await unreachableByKeyboard(page)).toEqual([]);
    await screenshot(page, 'tokens');

    await revokeThroughDialog(page, row, email);
    expect(await row.getByRole('button', { name: /Revoke/ }).count()).toBe(0);

    await page.getByLabel('Status').selectOption('Revoked');
    await page.locator('tr[data-token-id]', { hasText: email }).waitFor();
    expect(await page.locator('tr[data-token-id]').allTextContents()).toSatisfy((rows: string[]) =>
      rows.every((text) => text.includes('Revoked')),
    );
  });

  it('shows the token’s creation and revocation on the Activity page, filters by action, and each token row links to its history', async () => {
    const page = await pageOf('dashboard-activity');
    const admin = staffOf('dashboard-activity');
    const email = `browser-${Date.now()}@example.com`;
    const tokenId = await issueAndRevokeThroughPage(page, email);
    const trail = await api('dashboard-activity', `/v1/audit-events?targetId=${encodeURIComponent(tokenId)}`);
    expect(trail.results.map((event: { action: string }) => event.action)).toEqual([
      'onboarding_token.revoked',
      'onboarding_token.created',
    ]);

    // Unfiltered, newest first: the revocation and the creation just done through the page lead the list.
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
    const events = page.locator('tr[data-event-id]');
    const tokenEvents = page.locator(`tr[data-target-id="${tokenId}"]`);
    await tokenEvents.nth(1).waitFor();
    expect(await events.nth(0).getAttribute('data-event-id')).toBe(trail.results[0].eventId);
    expect(await events.nth(1).getAttribute('data-event-id')).toBe(trail.results[1].eventId);
    expect(await tokenEvents.locator('td[data-label="Action"]').allTextContents()).toEqual([
      'Token revoked',
      'Token created',
    ]);
    for (const [index, event] of trail.results.entries()) {
      const row = tokenEvents.nth(index);
      expect(await row.locator('td[data-label="Target"]').textContent()).toBe(`Onboarding token${tokenId}`);
      // The actor is the signed-in development token's subject.
      expect(event.actor.sub).toBe(admin.id);
      expect(await row.locator('td[data-label="Actor"]').textContent()).toContain(admin.id);
      expect(await row.locator('td[data-label="Request id"]').textContent()).toBe(event.requestId);
      expect(await row.locator('time').getAttribute('datetime')).toBe(event.occurredAt);
    }

    // The action filter applies on submit: only revocations, this token's among them.
    await page.getByLabel('Action', { exact: true }).selectOption({ label: 'Token revoked' });
    expect(await tokenEvents.count()).toBe(2);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.locator('tr[data-action="onboarding_token.created"]').waitFor({ state: 'detached' });
    const revocations = await api('dashboard-activity', '/v1/audit-events?action=onboarding_token.revoked');
    expect(await events.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-event-id')))).toEqual(
      revocations.results.map((event: { eventId: string }) => event.eventId),
    );
    expect(await events.locator('td[data-label="Action"]').allTextContents()).toSatisfy((actions: string[]) =>
      actions.every((action) => action === 'Token revoked'),
    );
    expect(await tokenEvents.count()).toBe(1);

    // The token's History link opens Activity filtered to that token (the address carries the filter).
    await page.getByRole('link', { name: 'Onboarding tokens' }).click();
    await page
      .locator(`tr[data-token-id="${tokenId}"]`)
      .getByRole('link', { name: `History of the token of ${email}` })
      .click();
    await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
    expect(new URL(page.url()).hash).toBe(`#/activity?targetId=${encodeURIComponent(tokenId)}`);
    expect(await page.getByRole('link', { name: 'Activity' }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByLabel('Target id', { exact: true }).inputValue()).toBe(tokenId);
    expect(await page.getByLabel('Action', { exact: true }).inputValue()).toBe('');
    await tokenEvents.nth(1).waitFor();
    expect(await events.count()).toBe(2);
    expect(await events.locator('td[data-label="Action"]').allTextContents()).toEqual([
      'Token revoked',
      'Token created',
    ]);

    expect(await unlabelledControls(page)).toEqual([]);
    expect(await unreachableByKeyboard(page)).toEqual([]);
    await screenshot(page, 'activity');

    // Both filters at once: that token's revocation alone.
    await page.getByLabel('Action', { exact: true }).selectOption({ label: 'Token revoked' });
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.locator('tr[data-action="onboarding_token.created"]').waitFor({ state: 'detached' });
    expect(await events.count()).toBe(1);
    expect(await events.getAttribute('data-event-id')).toBe(trail.results[0].eventId);

    // Clearing the filters lists the whole trail again.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await tokenEvents.nth(1).waitFor();
    expect(await page.getByLabel('Target id', { exact: true }).inputValue()).toBe('');
  });

  it('requests a report, follows its status live and downloads it with the bytes the job’s SHA-256 names', async () => {
    const page = await pageOf('dashboard-reports');
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByLabel('User id').fill('demo-user-1');
    await page.getByRole('button', { name: 'Request report' }).click();
    await page.getByTestId('followed-status').filter({ hasText: 'COMPLETE' }).waitFor({ timeout: 60_000 });

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: /^Download PDF/ }).click(),
    ]);
    const bytes = await readFile((await download.path())!);
    await page.getByTestId('download-verified').waitFor();

    const listed = await api('dashboard-reports', '/v1/document/api?userId=demo-user-1');
    const job = listed.results[0];
    expect(job.status).toBe('COMPLETE');
    expect(bytes.length).toBe(job.sizeBytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(job.sha256);
    expect(download.suggestedFilename()).toMatch(/^report-demo-user-1-\d{8}\.pdf$/);
    await page.locator(`tr[data-job-id="${job.jobId}"]`).getByText('COMPLETE').waitFor();
    expect(
      await page
        .locator(`tr[data-job-id="${job.jobId}"]`)
        .getByRole('link', { name: /^History/ })
        .getAttribute('href'),
    ).toBe(`#/activity?targetId=${job.jobId}`);

    expect(await unlabelledControls(page)).toEqual([]);
    expect(await unreachableByKeyboard(page)).toEqual([]);
    await screenshot(page, 'reports');
  });

  it('filters users, chooses columns, pages with the total and exports the whole result as CSV', async () => {
    const page = await pageOf('dashboard');
    await page.getByRole('link', { name: 'Users' }).click();
    await page.locator('summary', { hasText: 'Status filters' }).click();
    await page.getByRole('combobox', { name: 'Registration status', exact: true }).selectOption('active');
    await page.locator('summary', { hasText: 'Range filters' }).click();
    await page.getByLabel('Age: lower bound', { exact: true }).fill('18');
    await page.locator('summary', { hasText: 'Columns' }).click();
    await page.getByRole('checkbox', { name: 'Age', exact: true }).check();
    await page.getByRole('checkbox', { name: 'E-mail', exact: true }).uncheck();
    await page.getByRole('button', { name: 'Search' }).click();

    const expected = await api('dashboard', '/v1/user-status', {
      method: 'POST',
      body: { filters: { registration_status: 'active', age: { gte: 18 } }, pagination: { limit: 1 } },
    });
    const total: number = expected.pagination.total;
    expect(total).toBeGreaterThan(25);
    await page
      .getByTestId('users-total')
      .filter({ hasText: `Showing 1–25 of ${total} users` })
      .waitFor();
    // Every column but the row actions' (a signed-in session with users:erase has one) is a field.
    const allHeaders = await page.locator('table th').allTextContents();
    expect(allHeaders.at(-1)).toBe('Actions');
    const headers = allHeaders.slice(0, -1);
    expect(headers).toContain('Age');
    expect(headers).not.toContain('E-mail');

    await page.getByRole('button', { name: 'Next page' }).click();
    await page
      .getByTestId('users-total')
      .filter({ hasText: `Showing 26–50 of ${total} users` })
      .waitFor();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: `Export all ${total} users as CSV` }).click(),
    ]);
    const csv = await readFile((await download.path())!, 'utf8');
    // Contract §15: a UTF-8 byte-order mark first, every text cell quoted.
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const lines = csv
      .slice(1)
      .split('\r\n')
      .filter((line) => line !== '');
    // The CSV's header row names the API's fields (what an import reads), in the columns' order.
    const fieldOf = (header: string) => Object.entries(FIELD_LABELS).find(([, label]) => label === header)![0];
    expect(lines[0]).toBe(headers.map((header) => `"${fieldOf(header)}"`).join(','));
    expect(lines.length - 1).toBe(total);
    await page.getByTestId('export-done').waitFor();

    expect(await unlabelledControls(page)).toEqual([]);
    expect(await unreachableByKeyboard(page)).toEqual([]);
    await screenshot(page, 'users');
  });

  it('erases a user after a confirmation: Cancel sends nothing, Erase removes the row, the user and records the event', async () => {
    const page = await pageOf('dashboard-erasure');
    const apiRequests: string[] = [];
    const onRequest = (request: Request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/v1/')) apiRequests.push(`${request.method()} ${url.pathname}`);
    };
    page.on('request', onRequest);
    try {
      // A fresh Users page (leaving it and coming back drops the last test's filters), every user listed.
      await page.getByRole('link', { name: 'Onboarding tokens' }).click();
      await page.getByRole('link', { name: 'Users' }).click();
      await page.getByRole('button', { name: 'Search' }).click();
      const totalBefore = (
        await api('dashboard-erasure', '/v1/user-status', { method: 'POST', body: { pagination: { limit: 1 } } })
      ).pagination.total as number;
      await page
        .getByTestId('users-total')
        .filter({ hasText: `Showing 1–25 of ${totalBefore} users` })
        .waitFor();
      // Two demo users no other test names (the well-known demo-user-N ones are the walkthroughs' and reports').
      const ids = (
        await page
          .locator('tr[data-user-id]')
          .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-user-id')!))
      ).filter((id) => !id.startsWith('demo-user-'));
      const [userId, otherId] = [ids.at(-1)!, ids.at(-2)!];
      expect(userId).toBeTruthy();
      expect(otherId).toBeTruthy();
      const row = page.locator(`tr[data-user-id="${userId}"]`);
      const dialog = page.getByRole('dialog', { name: `Erase user ${userId}?` });

      // The confirmation names the user and what goes, for good; Cancel (focused first) sends nothing.
      apiRequests.length = 0;
      await row.getByRole('button', { name: `Erase user ${userId}` }).click();
      await dialog.waitFor();
      expect(await dialog.evaluate((element) => element.matches(':modal'))).toBe(true);
      const wording = (await dialog.textContent())!;
      expect(wording).toContain(`This erases user ${userId}`);
      expect(wording).toContain('their record, their report jobs and PDFs, and the onboarding tokens');
      expect(wording).toContain('It cannot be undone.');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
      expect(await unlabelledControls(page)).toEqual([]);
      await screenshot(page, 'users-erase-confirmation', false);
      const { scrollWidth } = await fitsNarrowScreen(page);
      expect(scrollWidth).toBeLessThanOrEqual(375);
      expect(await dialog.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
      await screenshot(page, 'narrow-users-erase-confirmation', false);
      await page.setViewportSize({ width: 1280, height: 900 });
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(apiRequests).toEqual([]);
      expect(await row.count()).toBe(1);
      // The focus is back on the row's Erase button.
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
        `Erase user ${userId}`,
      );

      // Confirmed: one DELETE, the message, the page read again without the row.
      await row.getByRole('button', { name: `Erase user ${userId}` }).click();
      await dialog.getByRole('button', { name: 'Erase', exact: true }).click();
      await page
        .getByTestId('user-erased')
        .filter({ hasText: `User ${userId} erased.` })
        .waitFor();
      await row.waitFor({ state: 'detached' });
      await page
        .getByTestId('users-total')
        .filter({ hasText: `Showing 1–25 of ${totalBefore - 1} users` })
        .waitFor();
      expect(await dialog.count()).toBe(0);
      expect(apiRequests).toEqual([`DELETE /v1/users/${userId}`, 'POST /v1/user-status']);

      // A failure (the other user erased behind the page's back: 404) is the API's message in the
      // confirmation; the row, the list and the earlier message stay as they were.
      const otherRow = page.locator(`tr[data-user-id="${otherId}"]`);
      const behindTheBack = await fetch(`${baseUrl}/v1/users/${encodeURIComponent(otherId)}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${await apiToken('dashboard-erasure')}` },
      });
      expect(behindTheBack.status).toBe(204);
      const again = await fetch(`${baseUrl}/v1/users/${encodeURIComponent(otherId)}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${await apiToken('dashboard-erasure')}` },
      });
      expect(again.status).toBe(404);
      const { message } = (await again.json()) as { message: string };
      await otherRow.getByRole('button', { name: `Erase user ${otherId}` }).click();
      const otherDialog = page.getByRole('dialog', { name: `Erase user ${otherId}?` });
      await otherDialog.getByRole('button', { name: 'Erase', exact: true }).click();
      const refused = otherDialog.getByRole('alert');
      await refused.waitFor();
      expect(await refused.textContent()).toContain(`The user was not erased: ${message}`);
      expect(await refused.locator('.request-id code').textContent()).toMatch(/^[0-9a-f-]{36}$/);
      expect(await otherRow.count()).toBe(1);
      expect(await page.getByTestId('user-erased').textContent()).toBe(`User ${userId} erased.`);
      expect(await page.getByTestId('users-total').textContent()).toBe(`Showing 1–25 of ${totalBefore - 1} users`);
      await otherDialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      await otherDialog.waitFor({ state: 'detached' });

      // The page's id filter finds no such user any more; nor does the API.
      await page.locator('summary', { hasText: 'Exact-match filters' }).click();
      await page.getByRole('textbox', { name: 'User id', exact: true }).fill(userId);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByTestId('users-total').filter({ hasText: 'No users match.' }).waitFor();
      expect(await page.getByTestId('user-erased').count()).toBe(0);
      const queried = await api('dashboard-erasure', '/v1/user-status', {
        method: 'POST',
        body: { filters: { id: userId } },
      });
      expect(queried.results).toEqual([]);
      expect(queried.pagination.total).toBe(0);

      // The Activity page lists the erasure: "User erased", the user's id as its target.
      const trail = await api('dashboard-erasure', `/v1/audit-events?targetId=${encodeURIComponent(userId)}`);
      expect(trail.results.map((event: { action: string }) => event.action)).toEqual([
        'user.erased',
        'user.erasure_started',
      ]);
      await page.getByRole('link', { name: 'Activity' }).click();
      await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
      const rows = page.locator(`tr[data-target-id="${userId}"]`);
      await rows.first().waitFor();
      expect(await rows.count()).toBe(2);
      // Its start, marked finished: a user.erased of the same user follows it.
      const start = rows.nth(1);
      await start.getByTestId('erasure-progress').waitFor();
      expect(await start.locator('td[data-label="Action"]').textContent()).toBe('User erasure started finished');
      const erasure = rows.first();
      expect(await erasure.getAttribute('data-event-id')).toBe(trail.results[0].eventId);
      expect(await erasure.locator('td[data-label="Action"]').textContent()).toBe('User erased');
      expect(await erasure.locator('td[data-label="Target"]').textContent()).toBe(`User${userId}`);
      expect(await erasure.locator('td[data-label="Actor"]').textContent()).toContain(staffOf('dashboard-erasure').id);
    } finally {
      page.off('request', onRequest);
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('refuses an unsafe webhook URL beside the field, shows a new endpoint’s secret once, sends a signed test event and deletes the endpoint', async () => {
    const page = await pageOf('dashboard-webhooks');
    const receiver = await startReceiver();
    try {
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();

      // The cloud-metadata address is refused in local mode too (only loopback is allowed there).
      await page.getByLabel('Endpoint URL').fill('http://169.254.169.254/latest/meta-data/');
      await page.getByRole('button', { name: 'Register endpoint' }).click();
      await page.locator('#url-error').waitFor();
      expect(await page.locator('#url-error').textContent()).toContain('169.254.169.254');
      expect(await page.getByLabel('Endpoint URL').getAttribute('aria-invalid')).toBe('true');

      // No event ticked: the API's 400 names `events`, shown beside the checkboxes.
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      for (const type of ['report.completed', 'report.failed', 'onboarding_token.used', 'onboarding_token.revoked']) {
        await page.getByRole('checkbox', { name: type }).uncheck();
      }
      await page.getByRole('button', { name: 'Register endpoint' }).click();
      await page.locator('#events-error').waitFor();
      expect(await page.locator('#url-error').count()).toBe(0);
      for (const type of ['report.completed', 'report.failed', 'onboarding_token.used']) {
        await page.getByRole('checkbox', { name: type }).check();
      }
      await page.getByRole('button', { name: 'Register endpoint' }).click();
      const secret = (await page.getByTestId('webhook-secret').textContent())!;
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(await page.getByText('You will not see this secret again').count()).toBe(1);
      const row = page.locator('tr[data-endpoint-id]', { hasText: receiver.url });
      await row.waitFor();
      expect(await row.textContent()).toContain('report.completed, report.failed, onboarding_token.used');
      expect(await row.getByText('active').count()).toBe(1);
      const endpointId = (await row.getAttribute('data-endpoint-id'))!;
      // The API never lists the secret.
      expect(JSON.stringify(await api('dashboard-webhooks', '/v1/webhooks'))).not.toContain(secret);

      await row.getByRole('button', { name: `Send a test event to ${receiver.url}` }).click();
      const delivered = page.locator('tr[data-message-id]', { hasText: 'delivered' });
      await delivered.waitFor({ timeout: 30_000 });
      expect(receiver.received).toHaveLength(1);
      const message = receiver.received[0]!;
      const verified = new Webhook(secret).verify(message.body, {
        'webhook-id': message.headers['webhook-id'] as string,
        'webhook-timestamp': message.headers['webhook-timestamp'] as string,
        'webhook-signature': message.headers['webhook-signature'] as string,
      });
      expect(verified).toMatchObject({ type: 'webhook.test' });
      expect(await delivered.getAttribute('data-message-id')).toBe(message.headers['webhook-id']);
      expect(await delivered.textContent()).toContain('webhook.test');
      expect(await delivered.locator('td[data-label="Attempts"]').textContent()).toBe('1');
      expect(await delivered.locator('td[data-label="Last response"]').textContent()).toBe('204');

      expect(await unlabelledControls(page)).toEqual([]);
      expect(await unreachableByKeyboard(page)).toEqual([]);
      await screenshot(page, 'webhooks');
      const { scrollWidth, scrollingTables } = await fitsNarrowScreen(page);
      expect(scrollWidth).toBeLessThanOrEqual(375);
      expect(scrollingTables).toBe(0);
      await page.setViewportSize({ width: 1280, height: 900 });

      // The secret is not kept: leaving the page and coming back forgets it.
      await page.getByRole('link', { name: 'Onboarding tokens' }).click();
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await row.waitFor();
      expect(await page.getByTestId('webhook-secret').count()).toBe(0);
      expect(await page.content()).not.toContain(secret);

      // Deleting asks first; Cancel keeps the endpoint.
      await row.getByRole('button', { name: `Delete ${receiver.url}` }).click();
      await row.getByRole('button', { name: 'Cancel' }).click();
      await row.getByRole('button', { name: `Delete ${receiver.url}` }).click();
      await row.getByRole('button', { name: `Confirm deleting ${receiver.url}` }).click();
      await page.getByText(`The endpoint ${receiver.url} was deleted.`).waitFor();
      await page.locator(`tr[data-endpoint-id="${endpointId}"]`).waitFor({ state: 'detached' });
      const listed = await api('dashboard-webhooks', '/v1/webhooks');
      expect(listed.results.map((endpoint: { id: string }) => endpoint.id)).not.toContain(endpointId);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
      await receiver.close();
    }
  });

  it('is usable 375 px wide: no page scrolls sideways', async () => {
    const page = await pageOf('dashboard');
    const labels: Record<string, string> = {
      reports: 'Reports',
      users: 'Users',
      webhooks: 'Webhooks',
      activity: 'Activity',
    };
    for (const path of ['tokens', 'reports', 'users', 'webhooks', 'activity']) {
      await page.goto(`${baseUrl}/#/${path}`);
      if (path === 'tokens') await signIn(page, staffOf('dashboard'));
      else await page.getByRole('link', { name: labels[path] }).click();
      await page.getByRole('heading', { level: 1 }).waitFor();
      if (path === 'activity') await page.locator('tr[data-event-id]').first().waitFor();
      const { scrollWidth, scrollingTables } = await fitsNarrowScreen(page);
      expect(scrollWidth, path).toBeLessThanOrEqual(375);
      expect(scrollingTables, path).toBe(0);
      if (path === 'tokens') await screenshot(page, 'narrow-tokens');
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('shows the contract’s message and the request id when the API refuses, and signs out', async () => {
    const limited = await freshPage();
    await signIn(limited, staffOf('dashboard'), ['onboarding:read']);
    // Without audit:read the rows link to no history.
    await limited.locator('tr[data-token-id]').first().waitFor();
    expect(await limited.getByRole('link', { name: /^History/ }).count()).toBe(0);
    // The navigation offers only the tokens page; the others' addresses still open them, and the API refuses.
    const navigation = limited.getByRole('navigation', { name: 'Dashboard pages' });
    expect(await navigation.getByRole('link').allTextContents()).toEqual(['Onboarding tokens']);
    await limited.evaluate(() => void (window.location.hash = '#/users'));
    await limited.getByRole('note').filter({ hasText: 'lacks users:read' }).waitFor();
    await limited.getByRole('button', { name: 'Search' }).click();
    const alert = limited.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/scope/i);
    expect(await alert.locator('.request-id code').textContent()).toMatch(/^[0-9a-f-]{36}$/);

    await limited.evaluate(() => void (window.location.hash = '#/activity'));
    const refused = limited.getByRole('alert').filter({ hasText: 'The activity could not be listed' });
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/scope/i);
    expect(await refused.locator('.request-id code').textContent()).toMatch(/^[0-9a-f-]{36}$/);

    await limited.getByRole('button', { name: 'Sign out' }).click();
    await limited.getByRole('button', { name: 'Sign in' }).waitFor();

    // Reading users without users:erase: the rows offer no Erase, and there is no actions column.
    await signIn(limited, staffOf('dashboard'), ['users:read']);
    await limited.getByRole('link', { name: 'Users' }).click();
    await limited.getByRole('button', { name: 'Search' }).click();
    await limited.locator('tr[data-user-id]').first().waitFor();
    expect(await limited.locator('tr[data-user-id]').count()).toBe(25);
    expect(await limited.getByRole('button', { name: /^Erase/ }).count()).toBe(0);
    expect(await limited.locator('table th').allTextContents()).not.toContain('Actions');

    await limited.getByRole('button', { name: 'Sign out' }).click();
    await limited.getByRole('button', { name: 'Sign in' }).waitFor();
    await limited.close();
  });
});
