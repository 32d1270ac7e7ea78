import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { reportSignedByAnotherKey } from '#test/support/signed-report.ts';
import { launchChromium } from './chromium.ts';
import { orgIdOf, staffOf } from './organizations.ts';
import { apiToken, signIn } from './sign-in.ts';

/**
 * The "Verify a report" page in real Chromium against the local stack: a report the worker signed
 * is valid, the same report with one changed byte and a report signed by another key are not;
 * a chosen file and a dropped one are both checked, and the file is never sent anywhere.
 */

const baseUrl = inject('baseUrl');
const orgId = orgIdOf('verify-report-page');

let browser: Browser;
let context: BrowserContext;
let page: Page;
let workerReport: Uint8Array;

async function api(
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** A report of one of this file's organization's users, rendered and signed by the local stack's worker. */
async function reportFromTheWorker(): Promise<Uint8Array> {
  const token = await apiToken(orgId);
  const users = await api(token, 'POST', '/v1/user-status', { pagination: { limit: 100 } });
  const userId = (users.body.results as Array<{ id: string }>).at(-1)!.id;
  const created = await api(token, 'POST', '/v1/document/api', { userId });
  // A job of the same user still open (409) is followed instead: its answer names it too.
  const jobId = created.body.jobId as string;
  expect([202, 409]).toContain(created.status);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = await api(token, 'GET', `/v1/document/api/${jobId}`);
    if (job.body.status === 'COMPLETE') break;
    if (job.body.status === 'FAILED' || Date.now() > deadline)
      throw new Error(`job ${jobId}: ${JSON.stringify(job.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const { body } = await api(token, 'GET', `/v1/document/api/${jobId}/url`);
  return new Uint8Array(await (await fetch(body.url as string)).arrayBuffer());
}

beforeAll(async () => {
  workerReport = await reportFromTheWorker();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
  page = await context.newPage();
  await signIn(page, staffOf('verify-report-page'));
  await page.getByRole('link', { name: 'Verify a report' }).click();
  await page.getByRole('heading', { level: 1, name: 'Verify a report' }).waitFor();
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
});

async function choose(name: string, pdf: Uint8Array): Promise<string> {
  await page.getByLabel('Report (PDF)').setInputFiles({ name, mimeType: 'application/pdf', buffer: Buffer.from(pdf) });
  const outcome = page.getByTestId('verification-outcome');
  await outcome.waitFor();
  return (await outcome.textContent()) ?? '';
}

describe('Verify a report', () => {
  it('finds the worker’s report valid, names the signer, and sends nothing but a request for the certificates', async () => {
    const requests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).origin === baseUrl)
        requests.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });

    const text = await choose('report.pdf', workerReport);

    expect(text).toContain('report.pdf: the signature is valid');
    expect(text).toContain('Onboarding reports service, report signing, stage local');
    expect(requests.filter((request) => request.includes('/v1/'))).toEqual(['GET /v1/report-signing-certificates']);
    expect(requests.filter((request) => !request.startsWith('GET '))).toEqual([]);
  });

  it('finds the report with one changed byte inside the signed range changed after signing', async () => {
    const altered = Uint8Array.from(workerReport);
    altered[200] = altered[200]! ^ 0x01;

    const text = await choose('altered.pdf', altered);

    expect(text).toContain('altered.pdf: This file was changed after it was signed');
  });

  it('finds a report signed by another key not signed by this service', async () => {
    const { pdf } = await reportSignedByAnotherKey();

    const text = await choose('other.pdf', pdf);

    expect(text).toContain('other.pdf: This file was not signed by this service');
    expect(text).toContain('not one of the');
  });

  it('checks a file dropped on the page', async () => {
    const dataTransfer = await page.evaluateHandle((bytes) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(bytes)], 'dropped.pdf', { type: 'application/pdf' }));
      return transfer;
    }, Array.from(workerReport));

    await page.getByTestId('verify-drop-zone').dispatchEvent('drop', { dataTransfer });

    await expect
      .poll(async () => page.getByTestId('verification-outcome').textContent())
      .toContain('dropped.pdf: the signature is valid');
  });
});
