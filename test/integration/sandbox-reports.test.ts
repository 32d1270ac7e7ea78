import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { verifyReportSignature } from '#client/verify-report.ts';
import { SANDBOX_REPORT_SIGNING_KEY_FILE, REPORT_SIGNING_KEY_FILE } from '#local/report-signing-key.ts';
import { SANDBOX_REPORT_MARK } from '#shared/adapters/pdf/layout-user-report.ts';
import { reportSignerName } from '#shared/adapters/signing/report-signer-name.ts';
import { SANDBOX_SCOPE } from '#shared/domain/identity/tenant.ts';
import { ALL_SCOPES } from '#local/dev-keys.ts';
import { listScenarios } from '#shared/domain/sandbox/scenarios.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { pdfsig } from '#test/support/pdf-signature.ts';
import { waitForJob } from '#test/support/report-support.ts';
import { pdfinfo, pdfText, squashed } from '#test/unit/reports/pdf/pdf-text.ts';

/**
 * Sandbox reports through the local stack (docs/sandbox.md "Scenario reports", "Sandbox
 * reports"): a sandbox token requests reports of scenario users nobody imported; the worker does
 * what each scenario says, marks the report and signs it with the sandbox key; the certificates
 * route shows a sandbox token the sandbox certificates, against which the report verifies, and
 * never against the live ones.
 */

const orgId = uniqueOrg('sandbox-reports');
const sandboxToken = () => tokenFor(orgId, { scopes: [...ALL_SCOPES, SANDBOX_SCOPE] });
const liveToken = () => tokenFor(orgId);
const scenario = (id: string) => listScenarios(orgId, new Date()).find((listed) => listed.id === id)!;

async function certificatesFor(token: string): Promise<Array<{ pem: string }>> {
  const response = await callApi('GET', '/v1/report-signing-certificates', { token });
  expect(response.status).toBe(200);
  return response.body.certificates as Array<{ pem: string }>;
}

async function requestReport(token: string, userId: string) {
  const created = await callApi('POST', '/v1/document/api', { token, body: { userId } });
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return created.body as { jobId: string };
}

async function download(token: string, jobId: string): Promise<Uint8Array> {
  const link = await callApi('GET', `/v1/document/api/${jobId}/url`, { token });
  expect(link.status).toBe(200);
  return new Uint8Array(await (await fetch(link.body.url as string)).arrayBuffer());
}

describe('sandbox reports', () => {
  it('lists the sandbox key file’s certificates to a sandbox token, the live ones to a live token', async () => {
    const keysDir = inject('localEnv').LOCAL_KEYS_DIR!;
    const keyFile = async (name: string) =>
      (JSON.parse(await readFile(path.join(keysDir, name), 'utf8')) as { certificates: string[] }).certificates;

    const sandbox = await certificatesFor(await sandboxToken());
    const live = await certificatesFor(await liveToken());

    expect(sandbox.map((certificate) => certificate.pem)).toEqual(await keyFile(SANDBOX_REPORT_SIGNING_KEY_FILE));
    expect(live.map((certificate) => certificate.pem)).toEqual(await keyFile(REPORT_SIGNING_KEY_FILE));
    expect(sandbox.map((certificate) => certificate.pem)).not.toContain(live[0]!.pem);
  });

  it('renders a scenario user’s report, marked on every page and in its title, signed by the sandbox key alone', async () => {
    const token = await sandboxToken();
    const { jobId } = await requestReport(token, 'sbx-sanctions');
    const job = await waitForJob(jobId, token);
    expect(job.status).toBe('COMPLETE');
    const pdf = await download(token, jobId);

    const info = pdfinfo(pdf);
    expect(/^Title:\s+(.*)$/m.exec(info)?.[1]).toContain(SANDBOX_REPORT_MARK);
    const pages = Number(/^Pages:\s+(\d+)$/m.exec(info)?.[1]);
    const listed = scenario('sbx-sanctions').report;
    expect(pages).toBe(listed.status === 'COMPLETE' ? listed.pages : Number.NaN);
    expect(pages).toBeGreaterThan(1);
    for (let page = 1; page <= pages; page++)
      expect(squashed(pdfText(pdf, page))).toContain(squashed(SANDBOX_REPORT_MARK));

    const againstSandbox = await verifyReportSignature(pdf, await certificatesFor(token));
    expect(againstSandbox).toMatchObject({ valid: true, signer: { commonName: reportSignerName('local', 'sandbox') } });
    const againstLive = await verifyReportSignature(pdf, await certificatesFor(await liveToken()));
    expect(againstLive).toMatchObject({ valid: false, failure: 'UNKNOWN_SIGNER' });
    // What an auditor's own tool says: poppler's pdfsig finds the signature intact and names the sandbox's signer.
    const signature = pdfsig(pdf);
    expect(signature).toContain('Signature Validation: Signature is Valid.');
    const signer = /^\s*- Signer Certificate Common Name: (.*)$/m.exec(signature)?.[1];
    expect(signer).toBe(reportSignerName('local', 'sandbox'));
    expect(signer).not.toBe(reportSignerName('local'));
  });

  it('ends sbx-fail’s job FAILED with its scenario’s error code', async () => {
    const token = await sandboxToken();
    const { jobId } = await requestReport(token, 'sbx-fail');
    const job = await waitForJob(jobId, token);
    expect(job).toMatchObject({ status: 'FAILED', errorCode: 'RENDER_FAILED' });
  });

  it('completes sbx-slow’s job no sooner than 30 s after it was requested, and then', async () => {
    const token = await sandboxToken();
    const { jobId } = await requestReport(token, 'sbx-slow');
    const report = scenario('sbx-slow').report;
    const seconds = report.status === 'COMPLETE' ? report.completesAfterSeconds : 0;
    expect(seconds).toBe(30);
    const pending = await callApi('GET', `/v1/document/api/${jobId}`, { token });
    expect(pending.body.status).toBe('PENDING');
    const job = await waitForJob(jobId, token, ['COMPLETE', 'FAILED'], 50_000);
    expect(job.status).toBe('COMPLETE');
    expect(Date.parse(job.completedAt as string) - Date.parse(job.createdAt as string)).toBeGreaterThanOrEqual(
      seconds * 1000,
    );
  }, 60_000);

  it('knows no scenario user in live: a live token’s report request for one is 404', async () => {
    const created = await callApi('POST', '/v1/document/api', {
      token: await liveToken(),
      body: { userId: 'sbx-clear' },
    });
    expect(created.status).toBe(404);
  });
});
