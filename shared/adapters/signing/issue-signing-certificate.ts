import { randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { REPORT_SIGNING_ALGORITHM } from './report-signing-algorithm.ts';
import { describeCertificate, type SignSha256, type SigningCertificate } from './signing-certificate.ts';

/*
 * Certificates are issued outside the worker only: at deploy by the certificate publisher
 * (functions/publish-report-signing-certificates.ts) and by the local stack (local/report-signing-key.ts).
 * pkijs encodes them; the worker's bundle never loads it.
 */

export interface CertificateRequest {
  /** SubjectPublicKeyInfo (DER) of the key being certified. */
  publicKeyDer: Uint8Array;
  /** The certificate's subject and issuer (its one attribute: pkijs would put more in one multi-valued RDN). */
  commonName: string;
  notBefore: Date;
  notAfter: Date;
  signSha256: SignSha256;
}

const COMMON_NAME = '2.5.4.3';
const BASIC_CONSTRAINTS = '2.5.29.19';
const KEY_USAGE = '2.5.29.15';
/** digitalSignature and nonRepudiation (contentCommitment): the bits a document signing certificate carries. */
const DOCUMENT_SIGNING_KEY_USAGE = new Uint8Array([0b1100_0000]);

const signatureAlgorithm = (): pkijs.AlgorithmIdentifier => {
  const { oid, nullParameters } = REPORT_SIGNING_ALGORITHM.signatureAlgorithm;
  return new pkijs.AlgorithmIdentifier({
    algorithmId: oid,
    ...(nullParameters ? { algorithmParams: new asn1js.Null() } : {}),
  });
};

/**
 * 16 random octets as a positive INTEGER in minimal DER (RFC 5280 4.1.2.2): the first octet is
 * 0x40-0x7f, never 0x00, which OpenSSL refuses as padding when the next octet is below 0x80, and
 * never 0x80 or above, which would make the number negative.
 */
export function certificateSerialNumber(random: Uint8Array = randomBytes(16)): Uint8Array {
  const serial = new Uint8Array(random);
  serial[0] = 0x40 | (serial[0]! & 0x3f);
  return serial;
}

/**
 * A self-issued X.509 v3 certificate for a report signing key, signed by that key (locally with
 * node:crypto, in AWS through `kms:Sign`): pkijs encodes it, `signSha256` signs the TBS part.
 */
export async function issueSigningCertificate(request: CertificateRequest): Promise<SigningCertificate> {
  const name = (): pkijs.RelativeDistinguishedNames =>
    new pkijs.RelativeDistinguishedNames({
      typesAndValues: [
        new pkijs.AttributeTypeAndValue({
          type: COMMON_NAME,
          value: new asn1js.Utf8String({ value: request.commonName }),
        }),
      ],
    });
  const certificate = new pkijs.Certificate({
    version: 2,
    serialNumber: new asn1js.Integer({ valueHex: certificateSerialNumber() }),
    signature: signatureAlgorithm(),
    issuer: name(),
    subject: name(),
    notBefore: new pkijs.Time({ type: pkijs.TimeType.UTCTime, value: request.notBefore }),
    notAfter: new pkijs.Time({ type: pkijs.TimeType.UTCTime, value: request.notAfter }),
    subjectPublicKeyInfo: pkijs.PublicKeyInfo.fromBER(new Uint8Array(request.publicKeyDer)),
    extensions: [
      new pkijs.Extension({
        extnID: BASIC_CONSTRAINTS,
        critical: true,
        extnValue: new pkijs.BasicConstraints({ cA: false }).toSchema().toBER(),
      }),
      new pkijs.Extension({
        extnID: KEY_USAGE,
        critical: true,
        extnValue: new asn1js.BitString({ valueHex: DOCUMENT_SIGNING_KEY_USAGE, unusedBits: 6 }).toBER(),
      }),
    ],
    signatureAlgorithm: signatureAlgorithm(),
  });
  certificate.tbsView = new Uint8Array(certificate.encodeTBS().toBER());
  certificate.signatureValue = new asn1js.BitString({
    valueHex: new Uint8Array(await request.signSha256(certificate.tbsView)),
  });
  return describeCertificate(new Uint8Array(certificate.toSchema(true).toBER()));
}
