import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbAuditTrail } from '#shared/adapters/dynamodb/audit-trail-store.ts';
import { ROLE_SCOPES, type Role } from '#shared/domain/identity/staff-roles.ts';
import { launchChromium } from './chromium.ts';
import { orgIdOf, staffOf } from './organizations.ts';
import { apiToken, signIn } from './sign-in.ts';

/**
 * Contract §20 in Chromium: each of an organization's four staff members signs in through the
 * local identity provider and the dashboard offers exactly what their role's scopes allow; the
 * API refuses the rest with the same tokens.
 */
const baseUrl = inject('baseUrl');
const orgId = orgIdOf('staff-roles');

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  // An Issued token, so the tokens page has a row whose Revoke and Resend a writer is offered.
  const response = await fetch(`${baseUrl}/v1/onboarding-token`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await apiToken(orgId)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'staff-roles@example.com', first_name: 'Rhea', last_name: 'Roles' }),
  });
  expect(response.status).toBe(201);
});

afterAll(async () => {
  await browser?.close();
});

interface Expected {
  pages: string[];
  issueToken: boolean;
  requestReport: boolean;
  erase: boolean;
}

const staff: Record<Role, Expected> = {
  admin: {
    pages: ['Onboarding tokens', 'Reports', 'Verify a report', 'Users', 'Webhooks', 'Activity'],
    issueToken: true,
    requestReport: true,
    erase: true,
  },
  operator: {
    pages: ['Onboarding tokens', 'Reports', 'Verify a report', 'Users', 'Webhooks'],
    issueToken: true,
    requestReport: true,
    erase: false,
  },
  auditor: {
    pages: ['Onboarding tokens', 'Reports', 'Verify a report', 'Users', 'Activity'],
    issueToken: false,
    requestReport: false,
    erase: false,
  },
  viewer: {
    pages: ['Onboarding tokens', 'Reports', 'Verify a report', 'Users'],
    issueToken: false,
    requestReport: false,
    erase: false,
  },
};

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

async function call(token: string, method: string, path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe.each(Object.entries(staff) as Array<[Role, Expected]>)('the %s', (role, expected) => {
  let context: BrowserContext;
  let page: Page;
  let tokens: string[];

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    tokens = recordBearerTokens(page);
    // Signed in once the tokens page has read its list: every test below has an access token to read, in any order.
    const listed = page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/onboarding-tokens');
    await signIn(page, staffOf('staff-roles', role));
    await listed;
  });

  afterAll(async () => {
    await context?.close();
  });

  it(`holds the ${role} role’s scopes and nothing else`, async () => {
    // From the tokens page, whichever page the last test left.
    await page
      .getByRole('navigation', { name: 'Dashboard pages' })
      .getByRole('link', { name: 'Onboarding tokens' })
      .click();
    await page.getByRole('heading', { name: 'Issued tokens' }).waitFor();
    await page.locator('table tbody').waitFor();
    const claims = decodeJwt(tokens.at(-1)!);
    expect(claims.role).toBe(role);
    expect(String(claims.scope).split(' ').sort()).toEqual([...ROLE_SCOPES[role]].sort());
  });

  it('is offered exactly its pages and actions', async () => {
    const navigation = page.getByRole('navigation', { name: 'Dashboard pages' });
    expect(await navigation.getByRole('link').allTextContents()).toEqual(expected.pages);

    await navigation.getByRole('link', { name: 'Onboarding tokens' }).click();
    await page.locator('tr[data-token-id]').first().waitFor();
    expect(await page.getByRole('button', { name: 'Issue and e-mail token' }).count()).toBe(
      expected.issueToken ? 1 : 0,
    );
    // The Issued row's actions: waited for where the role has them (the list may render again as it settles), and
    // counted where it has not (the row is there, so its actions would be too).
    for (const action of [/^Revoke/, /^Resend/]) {
      if (expected.issueToken) await page.getByRole('button', { name: action }).first().waitFor({ timeout: 10_000 });
      else expect(await page.getByRole('button', { name: action }).count()).toBe(0);
    }

    await navigation.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
    expect(await page.getByRole('button', { name: 'Request report' }).count()).toBe(expected.requestReport ? 1 : 0);

    await navigation.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('tr[data-user-id]').first().waitFor();
    expect((await page.getByRole('button', { name: /^Erase/ }).count()) > 0).toBe(expected.erase);

    await page.locator('tr[data-user-id] a').first().click();
    await page.getByTestId('user-fields').waitFor();
    expect(await page.getByRole('button', { name: 'Request report' }).count()).toBe(expected.requestReport ? 1 : 0);
    expect(await page.getByRole('button', { name: /^Erase/ }).count()).toBe(expected.erase ? 1 : 0);
  });

  it(`gets ${expected.erase ? 'past the scope check of' : '403 on'} DELETE /v1/users/{id}, and ${expected.pages.includes('Activity') ? '200' : '403'} on the audit events`, async () => {
    const token = tokens.at(-1)!;
    // An id nobody has: an eraser gets 404 (past the scope check), anyone else 403 before any lookup.
    const erase = await call(token, 'DELETE', '/v1/users/no-such-user-of-staff-roles');
    expect(erase.status).toBe(expected.erase ? 404 : 403);
    if (!expected.erase) expect(erase.body).toMatchObject({ code: 403, error: 'FORBIDDEN' });

    const audit = await call(token, 'GET', '/v1/audit-events?limit=1');
    expect(audit.status).toBe(expected.pages.includes('Activity') ? 200 : 403);
  });
});

describe('an erasure cut off half way', () => {
  it('shows on the auditor’s Activity page as not finished', async () => {
    // What an erasure a fault stopped leaves (test/faults/partial-erasure.test.ts): its start, no end.
    const userId = `cut-off-${Date.now()}`;
    await new DynamoDbAuditTrail(containerDynamoDbClients().documents, process.env.AUDIT_EVENTS_TABLE_NAME!).append(
      orgIdOf('staff-roles-cut-off-erasure'),
      {
        eventId: randomUUID(),
        occurredAt: new Date().toISOString(),
        action: 'user.erasure_started',
        actor: { sub: staffOf('staff-roles-cut-off-erasure').id, clientId: 'onboarding-dashboard' },
        target: { type: 'user', id: userId },
        requestId: randomUUID(),
        outcome: 'started',
      },
    );
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, staffOf('staff-roles-cut-off-erasure', 'auditor'));
    await page.getByRole('link', { name: 'Activity' }).click();
    const row = page.locator(`tr[data-target-id="${userId}"]`);
    await row.getByTestId('erasure-progress').waitFor();

    expect(await row.getByTestId('erasure-progress').textContent()).toBe('not finished');
    expect(await row.locator('td[data-label="Action"]').textContent()).toContain('erase the user again to finish');
    await context.close();
  });
});
