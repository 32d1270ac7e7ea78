import { SignPdf } from '@signpdf/signpdf';
import { DEFAULT_BYTE_RANGE_PLACEHOLDER, Signer, SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import { PDFHexString, PDFInvalidObject, PDFName, PDFString, type PDFDocument } from 'pdf-lib';
import type { ReportSigner } from '#shared/domain/reports/ports.ts';
import { detachedCadesSignature } from './cades-signature.ts';
import type { ReportSigningKey } from './report-signing-key.ts';
import { REPORT_SIGNATURE_NAME, REPORT_SIGNING_REASON } from './report-signer-name.ts';
import type { SignSha256 } from './signing-certificate.ts';
import type { SignatureTimestamper } from './rfc3161-timestamper.ts';

/** Room for the CMS in `/Contents` (bytes): the RSA signature and one certificate take about 1,300. */
const SIGNATURE_ROOM_BYTES = 4096;
/** With a timestamp token (B-T): the authority's SignedData and its certificate chain, a few KB more. */
const TIMESTAMPED_SIGNATURE_ROOM_BYTES = 16_384;

/** Adds the empty signature to a report being rendered, before its one save. */
export type SignaturePlaceholder = (doc: PDFDocument, signingTime: Date) => void;

/** The placeholder every report is rendered with: the service's signature name and reason; more room for a timestamp. */
export const reportSignaturePlaceholder = (options: { timestamped?: boolean } = {}): SignaturePlaceholder =>
  padesSignaturePlaceholder(
    REPORT_SIGNATURE_NAME,
    REPORT_SIGNING_REASON,
    options.timestamped ? TIMESTAMPED_SIGNATURE_ROOM_BYTES : SIGNATURE_ROOM_BYTES,
  );

/**
 * The signature field a report is rendered with: invisible (a widget without area on the first
 * page), PAdES (`ETSI.CAdES.detached`), its `/M` the report's `generatedAt`, `/Contents` zeros with
 * room for the CMS and `/ByteRange` @signpdf's placeholder, both filled in by `padesReportSigner`.
 * The signature dictionary is written as it is, outside the object streams, so the renderer saves
 * once, as it does unsigned, and the signer reads nothing of the file back. (What
 * @signpdf/placeholder-pdf-lib does, with pdf-lib's ES modules: that package requires pdf-lib as
 * CommonJS, which kept all of pdf-lib, its parser too, in the worker's bundle.)
 */
export function padesSignaturePlaceholder(
  signerName: string,
  reason: string,
  roomBytes = SIGNATURE_ROOM_BYTES,
): SignaturePlaceholder {
  return (doc, signingTime) => {
    const { context } = doc;
    const signature = context.obj({
      Type: 'Sig',
      Filter: 'Adobe.PPKLite',
      SubFilter: SUBFILTER_ETSI_CADES_DETACHED,
      // Before /Contents: @signpdf looks for /Contents after the byte range.
      ByteRange: [0, ...Array.from({ length: 3 }, () => PDFName.of(DEFAULT_BYTE_RANGE_PLACEHOLDER))],
      Contents: PDFHexString.of('0'.repeat(roomBytes * 2)),
      Reason: PDFString.of(reason),
      M: PDFString.fromDate(signingTime),
      Name: PDFString.of(signerName),
    });
    const signatureBytes = new Uint8Array(signature.sizeInBytes());
    signature.copyBytesInto(signatureBytes, 0);
    const signatureRef = context.register(PDFInvalidObject.of(signatureBytes));

    const page = doc.getPage(0);
    const widgetRef = context.register(
      context.obj({
        Type: 'Annot',
        Subtype: 'Widget',
        FT: 'Sig',
        Rect: [0, 0, 0, 0],
        V: signatureRef,
        T: PDFString.of('Signature1'),
        F: ANNOTATION_PRINT | ANNOTATION_LOCKED,
        P: page.ref,
        AP: { N: context.register(context.formXObject([], { BBox: [0, 0, 0, 0], Resources: {} })) },
      }),
    );
    page.node.addAnnot(widgetRef);
    doc.catalog.set(
      PDFName.of('AcroForm'),
      context.obj({ SigFlags: SIG_FLAGS_SIGNATURES_EXIST_APPEND_ONLY, Fields: [widgetRef] }),
    );
  };
}

const ANNOTATION_PRINT = 4;
const ANNOTATION_LOCKED = 128;
const SIG_FLAGS_SIGNATURES_EXIST_APPEND_ONLY = 3;

/** @signpdf's signer interface over our CMS: it hands over the bytes of the signed range. */
class CadesSigner extends Signer {
  constructor(
    private readonly signer: { certificateDer: Uint8Array; signSha256: SignSha256 },
    private readonly timestamp: SignatureTimestamper | undefined,
  ) {
    super();
  }

  override async sign(signedRange: Buffer): Promise<Buffer> {
    return Buffer.from(await detachedCadesSignature(signedRange, this.signer, this.timestamp));
  }
}

/**
 * The report signer port: fills in the signature a report was rendered with
 * (`padesSignaturePlaceholder`): @signpdf sets the byte range (the whole file but `/Contents`) and
 * places the CMS, signed with a certificate valid at `signedAt` only. A file without the
 * placeholder is refused, never stored unsigned. With `timestamp` the signature is B-T (render with
 * `reportSignaturePlaceholder({ timestamped: true })`); a failed timestamp fails the signature.
 */
export function padesReportSigner(key: ReportSigningKey, timestamp?: SignatureTimestamper): ReportSigner {
  const signPdf = new SignPdf();
  return async (pdf, signedAt) => {
    const certificate = await key.certificateAt(signedAt);
    const signed = await signPdf.sign(
      Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength),
      new CadesSigner({ certificateDer: certificate.der, signSha256: (message) => key.signSha256(message) }, timestamp),
    );
    return new Uint8Array(signed.buffer, signed.byteOffset, signed.byteLength);
  };
}
