import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/*
 * Checks a downloaded report's PAdES signature offline, with nothing but the file, the published
 * certificates and WebCrypto (Node.js and browsers alike). pkijs parses the CMS and verifies the
 * signature (RSA, or ECDSA for reports signed with the earlier P-256 key); this module only finds the signature in the PDF and says what failed.
 */

const SIGNED_DATA = '1.2.840.113549.1.7.2';
const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const SHA256 = '2.16.840.1.101.3.4.2.1';

/** Why a report does not verify, from the first check that failed. */
export type ReportVerificationFailure =
  /** No signature in the file: not a report of this service, or its signature was removed. */
  | 'NOT_SIGNED'
  /** The signed ranges do not cover the whole file but the signature's own value (bytes appended or moved). */
  | 'BYTE_RANGE'
  /** The signature's value is not a CMS SignedData of one signer with its certificate. */
  | 'MALFORMED_SIGNATURE'
  /** The signed bytes' SHA-256 differs from the one the signature carries: the file was changed after signing. */
  | 'DIGEST_MISMATCH'
  /** The signature over the signed attributes does not verify with the signer certificate's key. */
  | 'SIGNATURE_INVALID'
  /** Valid, but signed by a certificate that is not one of the published ones: not signed by this service. */
  | 'UNKNOWN_SIGNER';

export interface ReportSigner {
  commonName: string;
  sha256Fingerprint: string;
  notBefore: string;
  notAfter: string;
}

export type ReportVerification =
  | {
      valid: true;
      signer: ReportSigner;
      /** `/ByteRange` of the signature: offset and length of the bytes before and after `/Contents`. */
      byteRange: [number, number, number, number];
      /** The signature dictionary's `/M` (the signer's claim, not a trusted timestamp), ISO 8601, if present. */
      signingTime?: string;
    }
  | {
      valid: false;
      failure: ReportVerificationFailure;
      message: string;
      /** The certificate the signature names, when it could be read. */
      signer?: ReportSigner;
    };

/** A published certificate: its PEM (the `pem` of GET /v1/report-signing-certificates, or a PEM file's block). */
export interface TrustedCertificate {
  pem: string;
}

const invalid = (failure: ReportVerificationFailure, message: string, signer?: ReportSigner): ReportVerification => ({
  valid: false,
  failure,
  message,
  ...(signer ? { signer } : {}),
});

/**
 * Verifies a report against the published certificates: the signature's `/ByteRange` covers the
 * whole file except the `/Contents` value; the CMS's message digest equals the SHA-256 of those
 * bytes; the signature over the signed attributes verifies with the signer certificate's public
 * key; and that certificate is one of `trusted`. Never throws for a bad file: the result says why.
 */
export async function verifyReportSignature(
  pdf: Uint8Array,
  trusted: readonly TrustedCertificate[],
): Promise<ReportVerification> {
  // latin1: one character per byte, so string offsets are file offsets.
  const text = new TextDecoder('latin1').decode(pdf);
  const ranges = [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)];
  if (ranges.length === 0) return invalid('NOT_SIGNED', 'the file has no signature');
  if (ranges.length > 1)
    return invalid('BYTE_RANGE', `the file has ${ranges.length} signatures; a report of this service has one`);
  const byteRange = ranges[0]!.slice(1, 5).map(Number) as [number, number, number, number];
  const [start, length, holeEnd, tailLength] = byteRange;
  const contentsHex = text.slice(length + 1, holeEnd - 1);
  if (
    start !== 0 ||
    holeEnd <= length + 2 ||
    holeEnd + tailLength !== pdf.byteLength ||
    text[length] !== '<' ||
    text[holeEnd - 1] !== '>' ||
    !/^[0-9a-fA-F]*$/.test(contentsHex) ||
    !/\/Contents\s*$/.test(text.slice(Math.max(0, length - 32), length))
  ) {
    return invalid(
      'BYTE_RANGE',
      `the signed ranges [${byteRange.join(' ')}] do not cover the whole file (${pdf.byteLength} bytes) except the signature: bytes were added or moved after signing`,
    );
  }

  const parsed = parseSignedData(hexBytes(contentsHex));
  if (typeof parsed === 'string') return invalid('MALFORMED_SIGNATURE', parsed);
  const { signerInfo, signerCertificate } = parsed;
  const signer = await describeSigner(signerCertificate);

  const signedBytes = new Uint8Array(length + tailLength);
  signedBytes.set(pdf.subarray(0, length));
  signedBytes.set(pdf.subarray(holeEnd, holeEnd + tailLength), length);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', signedBytes));
  const messageDigest = signerInfo.signedAttrs!.attributes.find((attribute) => attribute.type === MESSAGE_DIGEST);
  const signedDigest = (messageDigest?.values[0] as asn1js.OctetString | undefined)?.valueBlock.valueHexView;
  if (!signedDigest) return invalid('MALFORMED_SIGNATURE', 'the signature has no message digest attribute', signer);
  if (!equalBytes(digest, signedDigest)) {
    return invalid(
      'DIGEST_MISMATCH',
      'the file was changed after it was signed: the SHA-256 of its signed bytes is not the one the signature carries',
      signer,
    );
  }

  let signatureVerified: boolean;
  try {
    signatureVerified = await pkijs
      .getCrypto(true)
      .verifyWithPublicKey(
        signerInfo.signedAttrs!.encodedValue,
        signerInfo.signature,
        signerCertificate.subjectPublicKeyInfo,
        signerInfo.signatureAlgorithm,
      );
  } catch (error) {
    return invalid(
      'MALFORMED_SIGNATURE',
      `the signature cannot be checked: ${error instanceof Error ? error.message : String(error)}`,
      signer,
    );
  }
  if (!signatureVerified)
    return invalid('SIGNATURE_INVALID', 'the signature does not verify with its certificate’s public key', signer);

  const trustedFingerprints = new Set(
    await Promise.all(trusted.flatMap((certificate) => pemBlocks(certificate.pem)).map(sha256Hex)),
  );
  if (!trustedFingerprints.has(signer.sha256Fingerprint)) {
    return invalid(
      'UNKNOWN_SIGNER',
      `signed by "${signer.commonName}" (certificate SHA-256 ${signer.sha256Fingerprint}), which is not one of the ${trustedFingerprints.size} published report signing certificates`,
      signer,
    );
  }
  const signingTime = signingTimeOf(text);
  return { valid: true, signer, byteRange, ...(signingTime ? { signingTime } : {}) };
}

function parseSignedData(
  der: Uint8Array,
): { signerInfo: pkijs.SignerInfo; signerCertificate: pkijs.Certificate } | string {
  try {
    const { result, offset } = asn1js.fromBER(der);
    if (offset === -1) return 'the signature value is not DER';
    const contentInfo = new pkijs.ContentInfo({ schema: result });
    if (contentInfo.contentType !== SIGNED_DATA) return 'the signature value is not a CMS SignedData';
    const signedData = new pkijs.SignedData({ schema: contentInfo.content });
    if (signedData.encapContentInfo.eContent) return 'the signature is not detached (it carries its own content)';
    if (signedData.signerInfos.length !== 1)
      return `the signature has ${signedData.signerInfos.length} signers; a report's has one`;
    const signerInfo = signedData.signerInfos[0]!;
    if (signerInfo.digestAlgorithm.algorithmId !== SHA256) return 'the signature does not use SHA-256';
    if (!signerInfo.signedAttrs) return 'the signature has no signed attributes';
    const sid = signerInfo.sid as pkijs.IssuerAndSerialNumber;
    if (!(sid instanceof pkijs.IssuerAndSerialNumber)) return 'the signer is not named by issuer and serial number';
    const signerCertificate = (signedData.certificates ?? []).find(
      (certificate): certificate is pkijs.Certificate =>
        certificate instanceof pkijs.Certificate &&
        certificate.issuer.isEqual(sid.issuer) &&
        certificate.serialNumber.isEqual(sid.serialNumber),
    );
    if (!signerCertificate) return 'the signature does not carry its signer’s certificate';
    return { signerInfo, signerCertificate };
  } catch (error) {
    return `the signature cannot be read: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function describeSigner(certificate: pkijs.Certificate): Promise<ReportSigner> {
  const commonName = certificate.subject.typesAndValues.find((entry) => entry.type === '2.5.4.3');
  return {
    commonName: commonName ? String(commonName.value.valueBlock.value) : '',
    sha256Fingerprint: await sha256Hex(new Uint8Array(certificate.toSchema().toBER())),
    notBefore: certificate.notBefore.value.toISOString(),
    notAfter: certificate.notAfter.value.toISOString(),
  };
}

/** The `/M (D:YYYYMMDDHHmmSS…)` of the signature dictionary, as an ISO instant (UTC offsets applied). */
function signingTimeOf(text: string): string | undefined {
  const match = /\/M\s*\(D:(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(Z|([+-])(\d{2})'?(\d{2})'?)?/.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, zone, sign, offsetHours, offsetMinutes] = match;
  const utc = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
  const offsetMs =
    zone && zone !== 'Z' ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000 : 0;
  const at = new Date(utc - offsetMs);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** Every certificate of a PEM text, as DER. */
export function pemBlocks(pem: string): Array<Uint8Array<ArrayBuffer>> {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map((match) =>
    Uint8Array.from(atob(match[1]!.replace(/\s+/g, '')), (character) => character.charCodeAt(0)),
  );
}

function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length >> 1);
  for (let index = 0; index < bytes.length; index += 1)
    bytes[index] = parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((byte, index) => byte === b[index]);
}
