import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalReportSigningKey } from '#shared/adapters/signing/local-report-signing-key.ts';
import { padesReportSigner, reportSignaturePlaceholder } from '#shared/adapters/signing/pades-report-signer.ts';
import { SigningCertificateNotValidError } from '#shared/adapters/signing/report-signing-key.ts';
import { ensureLocalReportSigningKey } from '#local/report-signing-key.ts';
import { opensslCmsVerify, pdfsig, signatureOf } from '#test/support/pdf-signature.ts';
import { pdfText } from '#test/unit/reports/pdf/pdf-text.ts';
import { renderTypicalReport } from '#test/support/signed-report.ts';

describe('padesReportSigner (local key)', () => {
  let keysDir: string;
  let unsigned: Uint8Array;
  let signed: Uint8Array;
  let key: LocalReportSigningKey;
  const signedAt = new Date();

  beforeAll(async () => {
    keysDir = await mkdtemp(join(tmpdir(), 'report-signing-'));
    key = new LocalReportSigningKey(await ensureLocalReportSigningKey(keysDir));
    unsigned = await renderTypicalReport(reportSignaturePlaceholder());
    signed = await padesReportSigner(key)(unsigned, signedAt);
  });
  afterAll(() => rm(keysDir, { recursive: true, force: true }));

  it('signs the whole file with a PAdES signature pdfsig finds valid: ETSI.CAdES.detached, SHA-256, the service and stage as signer', () => {
    const report = pdfsig(signed);

    expect(report).toContain('Signature Type: ETSI.CAdES.detached');
    expect(report).toContain('Signing Hash Algorithm: SHA-256');
    expect(report).toContain('Signer Certificate Common Name: Onboarding reports service, report signing, stage local');
    expect(report).toContain('Total document signed');
    expect(report).toContain('Signature Validation: Signature is Valid.');
  });

  it('is invalid for pdfsig once any byte inside the signed range changes', () => {
    const bytes = Buffer.from(signed);
    const offsets = {
      header: 10, // the binary comment line after %PDF-1.7
      firstStream: bytes.indexOf('stream\n') + 20, // inside the first (compressed) stream
      signingTime: bytes.indexOf('/M (D:') + 8, // the signature dictionary's /M, after /Contents
    };
    const { byteRange } = signatureOf(signed);
    expect(offsets.firstStream).toBeLessThan(byteRange[1]);
    expect(offsets.signingTime).toBeGreaterThan(byteRange[2]);
    for (const offset of Object.values(offsets)) {
      const altered = Uint8Array.from(signed);
      altered[offset] = altered[offset]! ^ 0x01;

      const report = pdfsig(altered);
      expect(report).toContain('Signature Validation: Digest Mismatch.');
      expect(report).not.toContain('Signature is Valid.');
    }
  });

  it('carries the PAdES B-B signed attributes: content type, the SHA-256 of the signed bytes, the signing certificate (v2); no signing time', async () => {
    const { signedBytes, signedData } = signatureOf(signed);
    const [signerInfo] = signedData.signerInfos;
    const attributes = new Map(signerInfo!.signedAttrs!.attributes.map((attribute) => [attribute.type, attribute]));
    const certificate = await key.certificateAt(signedAt);

    expect([...attributes.keys()]).toEqual([
      '1.2.840.113549.1.9.3',
      '1.2.840.113549.1.9.4',
      '1.2.840.113549.1.9.16.2.47',
    ]);
    const messageDigest = (
      attributes.get('1.2.840.113549.1.9.4')!.values[0] as { valueBlock: { valueHexView: Uint8Array } }
    ).valueBlock.valueHexView;
    expect(Buffer.from(messageDigest).toString('hex')).toBe(createHash('sha256').update(signedBytes).digest('hex'));
    expect(
      Buffer.from(attributes.get('1.2.840.113549.1.9.16.2.47')!.values[0]!.toBER()).includes(
        createHash('sha256').update(certificate.der).digest(),
      ),
    ).toBe(true);
    expect(signedData.certificates).toHaveLength(1);
  });

  it('leaves the report as it was: an invisible signature (a widget without area), the same text', async () => {
    const doc = await PDFDocument.load(signed);
    const widget = doc.getPage(0).node.Annots()!.lookup(0, PDFDict);

    expect(widget.lookup(PDFName.of('FT'), PDFName)).toBe(PDFName.of('Sig'));
    expect(widget.lookup(PDFName.of('Rect'), PDFArray).asRectangle()).toMatchObject({ width: 0, height: 0 });
    expect(pdfText(signed)).toBe(pdfText(unsigned));
  });

  it('never signs with a certificate that is not valid at the signing time', async () => {
    const afterExpiry = new Date((await key.certificateAt(signedAt)).notAfter.getTime() + 1_000);

    await expect(padesReportSigner(key)(unsigned, afterExpiry)).rejects.toBeInstanceOf(SigningCertificateNotValidError);
  });

  it('refuses a report rendered without the signature placeholder: nothing is returned unsigned', async () => {
    const withoutPlaceholder = await renderTypicalReport();

    await expect(padesReportSigner(key)(withoutPlaceholder, signedAt)).rejects.toThrow(/ByteRange/);
  });

  it('writes the CMS as DER that OpenSSL reads as a detached SignedData of the signed bytes, verifying with the certificate', async () => {
    const { signedBytes, der } = signatureOf(signed);
    const certificate = await key.certificateAt(signedAt);
    expect(opensslCmsVerify(der, signedBytes, certificate.pem)).toContain('Verification successful');
    const altered = Uint8Array.from(signedBytes);
    altered[100] = altered[100]! ^ 0x01;
    expect(opensslCmsVerify(der, altered, certificate.pem)).toContain('Verification failure');
  });
});
