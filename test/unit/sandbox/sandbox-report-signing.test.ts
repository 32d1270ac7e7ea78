import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyReportSignature } from '#client/verify-report.ts';
import { SANDBOX_REPORT_MARK } from '#shared/adapters/pdf/layout-user-report.ts';
import { renderUserReport } from '#shared/adapters/pdf/render-user-report.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import { LocalReportSigningKey } from '#shared/adapters/signing/local-report-signing-key.ts';
import { padesReportSigner, reportSignaturePlaceholder } from '#shared/adapters/signing/pades-report-signer.ts';
import { reportSignerName } from '#shared/adapters/signing/report-signer-name.ts';
import { reportSigningSettingsFrom } from '#shared/config/report-signing-config.ts';
import { scenarioUser } from '#shared/domain/sandbox/scenarios.ts';
import { listReportSigningCertificates } from '#shared/domain/reports/signing-certificates.ts';
import {
  ensureLocalReportSigningKey,
  REPORT_SIGNING_KEY_FILE,
  SANDBOX_REPORT_SIGNING_KEY_FILE,
} from '#local/report-signing-key.ts';
import { pdfinfo, pdfText, squashed } from '#test/unit/reports/pdf/pdf-text.ts';

/**
 * docs/contract.md §23: a sandbox report is signed with the sandbox's key (locally a second key
 * file beside the live one, made the same way), whose certificate names the sandbox; it verifies
 * against the sandbox certificates and never against the live ones (the client's verification,
 * which the CLI and the dashboard use), and poppler reads its mark back on every page.
 */

let keysDir: string;
let live: LocalReportSigningKey;
let sandbox: LocalReportSigningKey;

beforeAll(async () => {
  keysDir = await mkdtemp(join(tmpdir(), 'sandbox-signing-'));
  live = new LocalReportSigningKey(await ensureLocalReportSigningKey(keysDir));
  sandbox = new LocalReportSigningKey(await ensureLocalReportSigningKey(keysDir, new Date(), 'sandbox'));
});
afterAll(() => rm(keysDir, { recursive: true, force: true }));

const certificatesOf = async (key: LocalReportSigningKey) =>
  (await key.listCertificates()).map((certificate) => ({ pem: certificate.pem }));

async function sandboxReport(): Promise<Uint8Array> {
  const generatedAt = new Date();
  const unsigned = await renderUserReport({
    user: scenarioUser('sbx-sanctions', 'acme', generatedAt),
    organizationName: 'acme',
    jobId: '6f1c1a4e-8d5b-4c1e-9a3e-2f4b5c6d7e8f',
    generatedAt,
    fonts: loadReportFonts(),
    signaturePlaceholder: reportSignaturePlaceholder(),
    sandbox: true,
  });
  return padesReportSigner(sandbox)(unsigned, generatedAt);
}

describe('sandbox report signing', () => {
  it('keeps the sandbox key in a file of its own beside the live one, a different key whose certificate names the sandbox', async () => {
    const liveFile = JSON.parse(await readFile(join(keysDir, REPORT_SIGNING_KEY_FILE), 'utf8')) as {
      privateKey: string;
    };
    const sandboxFile = JSON.parse(await readFile(join(keysDir, SANDBOX_REPORT_SIGNING_KEY_FILE), 'utf8')) as {
      privateKey: string;
    };
    expect(sandboxFile.privateKey).not.toBe(liveFile.privateKey);
    const now = new Date();
    const [liveCertificate, sandboxCertificate] = await Promise.all([
      live.certificateAt(now),
      sandbox.certificateAt(now),
    ]);
    expect(liveCertificate.commonName).toBe(reportSignerName('local'));
    expect(sandboxCertificate.commonName).toBe(reportSignerName('local', 'sandbox'));
    expect(sandboxCertificate.commonName).toContain('SANDBOX');
    expect(liveCertificate.commonName).not.toContain('SANDBOX');
  });

  it('verifies a sandbox report against the sandbox certificates and never against the live ones', async () => {
    const pdf = await sandboxReport();

    const againstSandbox = await verifyReportSignature(pdf, await certificatesOf(sandbox));
    expect(againstSandbox).toMatchObject({ valid: true, signer: { commonName: reportSignerName('local', 'sandbox') } });
    expect(await verifyReportSignature(pdf, await certificatesOf(live))).toMatchObject({
      valid: false,
      failure: 'UNKNOWN_SIGNER',
    });
  });

  it('marks every page and the document title, as poppler reads them', async () => {
    const pdf = await sandboxReport();
    const info = pdfinfo(pdf);
    expect(/^Title:\s+(.*)$/m.exec(info)?.[1]).toContain(SANDBOX_REPORT_MARK);
    const pages = Number(/^Pages:\s+(\d+)$/m.exec(info)?.[1]);
    expect(pages).toBeGreaterThan(1);
    for (let page = 1; page <= pages; page++)
      expect(squashed(pdfText(pdf, page))).toContain(squashed(SANDBOX_REPORT_MARK));
  });

  it('reads the sandbox key from its own settings, refusing to start without them', () => {
    expect(reportSigningSettingsFrom({ REPORT_SIGNING_KEY_FILE: 'live.json' })).toEqual({ keyFile: 'live.json' });
    expect(
      reportSigningSettingsFrom(
        { REPORT_SIGNING_KEY_FILE: 'live.json', REPORT_SANDBOX_SIGNING_KEY_FILE: 'sandbox.json' },
        'sandbox',
      ),
    ).toEqual({ keyFile: 'sandbox.json' });
    expect(reportSigningSettingsFrom({ REPORT_SANDBOX_SIGNING_KEY_ID: 'arn:sandbox' }, 'sandbox')).toEqual({
      kmsKeyId: 'arn:sandbox',
    });
    expect(() => reportSigningSettingsFrom({ REPORT_SIGNING_KEY_ID: 'arn:live' }, 'sandbox')).toThrow(
      /REPORT_SANDBOX_SIGNING_KEY_ID/,
    );
  });
});

describe('listReportSigningCertificates', () => {
  it('answers a sandbox caller with the sandbox certificates alone, a live caller with the live ones', async () => {
    const now = new Date();
    const list = listReportSigningCertificates({
      certificates: { list: async () => [await live.certificateAt(now)] },
      sandboxCertificates: { list: async () => [await sandbox.certificateAt(now)] },
    });
    expect((await list('sandbox')).map((certificate) => certificate.pem)).toEqual([
      (await sandbox.certificateAt(now)).pem,
    ]);
    expect((await list('live')).map((certificate) => certificate.pem)).toEqual([(await live.certificateAt(now)).pem]);
  });
});
