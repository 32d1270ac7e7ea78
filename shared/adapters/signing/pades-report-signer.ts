import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { SignPdf } from '@signpdf/signpdf';
import { Signer, SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import { PDFDocument } from 'pdf-lib';
import type { ReportSigner } from '#shared/domain/reports/ports.ts';
import { detachedCadesSignature } from './cades-signature.ts';
import type { ReportSigningKey } from './report-signing-key.ts';
import type { SignSha256 } from './signing-certificate.ts';

/** Room for the CMS in `/Contents` (bytes): the signature and one certificate take about 900. */
const SIGNATURE_ROOM_BYTES = 4096;

/** @signpdf's signer interface over our CMS: it hands over the bytes of the signed range. */
class CadesSigner extends Signer {
  constructor(private readonly signer: { certificateDer: Uint8Array; signSha256: SignSha256 }) {
    super();
  }

  override async sign(signedRange: Buffer): Promise<Buffer> {
    return Buffer.from(await detachedCadesSignature(signedRange, this.signer));
  }
}

/**
 * The report signer port: an invisible PAdES baseline B-B signature (`ETSI.CAdES.detached`,
 * SHA-256) over the whole rendered file. pdf-lib reads the rendered PDF back and @signpdf adds
 * the signature field and its placeholder, fills in the byte range and places the CMS. The
 * signature names the certificate's subject (the service and the stage); it is made only with a
 * certificate valid at `signedAt`.
 */
export function padesReportSigner(key: ReportSigningKey, reason: string): ReportSigner {
  const signPdf = new SignPdf();
  return async (pdf, signedAt) => {
    const certificate = await key.certificateAt(signedAt);
    const doc = await PDFDocument.load(pdf, { updateMetadata: false });
    pdflibAddPlaceholder({
      pdfDoc: doc,
      reason,
      contactInfo: '',
      name: certificate.commonName,
      location: '',
      signingTime: signedAt,
      signatureLength: SIGNATURE_ROOM_BYTES,
      subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    });
    // Without object streams: re-compressing them took most of the signing time (bench 4), for ~3.5 KB of a typical report.
    const prepared = await doc.save({ useObjectStreams: false, addDefaultPage: false, updateFieldAppearances: false });
    const signed = await signPdf.sign(
      Buffer.from(prepared),
      new CadesSigner({ certificateDer: certificate.der, signSha256: key.signSha256 }),
    );
    return new Uint8Array(signed.buffer, signed.byteOffset, signed.byteLength);
  };
}
