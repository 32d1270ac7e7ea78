import { createHash, randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/** ecdsa-with-SHA256: the one signature algorithm of the report signing keys (KMS `ECC_NIST_P256`, or a local P-256 key). */
export const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';

/** Signs SHA-256(message) with the report signing key; the signature DER-encoded (ECDSA-Sig-Value). */
export type SignSha256 = (message: Uint8Array) => Promise<Uint8Array>;

/** A certificate as the signing-certificates endpoint and the signer see it. */
export interface SigningCertificate {
  der: Uint8Array;
  pem: string;
  sha256Fingerprint: string;
  notBefore: Date;
  notAfter: Date;
  /** The certified public key (SubjectPublicKeyInfo, DER), to match the certificate with its key. */
  publicKeyDer: Uint8Array;
  /** The subject's common name: the signer's name a reader shows. */
  commonName: string;
}

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
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f; // a positive INTEGER
  const certificate = new pkijs.Certificate({
    version: 2,
    serialNumber: new asn1js.Integer({ valueHex: serial }),
    signature: new pkijs.AlgorithmIdentifier({ algorithmId: ECDSA_WITH_SHA256 }),
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
    signatureAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: ECDSA_WITH_SHA256 }),
  });
  certificate.tbsView = new Uint8Array(certificate.encodeTBS().toBER());
  certificate.signatureValue = new asn1js.BitString({
    valueHex: new Uint8Array(await request.signSha256(certificate.tbsView)),
  });
  return describeCertificate(new Uint8Array(certificate.toSchema(true).toBER()));
}

/** Reads a DER certificate's validity, fingerprint and public key. */
export function describeCertificate(der: Uint8Array): SigningCertificate {
  const certificate = pkijs.Certificate.fromBER(new Uint8Array(der));
  return {
    der,
    pem: pemOf(der),
    sha256Fingerprint: createHash('sha256').update(der).digest('hex'),
    notBefore: certificate.notBefore.value,
    notAfter: certificate.notAfter.value,
    publicKeyDer: new Uint8Array(certificate.subjectPublicKeyInfo.toSchema().toBER()),
    commonName: String(
      certificate.subject.typesAndValues.find((entry) => entry.type === COMMON_NAME)?.value.valueBlock.value ?? '',
    ),
  };
}

export function pemOf(der: Uint8Array): string {
  const lines =
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** Every certificate of a PEM bundle, in order, as DER. */
export function certificatesFromPem(pem: string): Uint8Array[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map(
    (match) => new Uint8Array(Buffer.from(match[1]!.replace(/\s+/g, ''), 'base64')),
  );
}

/** Whether the certificate may sign at `at`: never before it starts or after it expires. */
export function isValidAt(certificate: Pick<SigningCertificate, 'notBefore' | 'notAfter'>, at: Date): boolean {
  return certificate.notBefore.getTime() <= at.getTime() && at.getTime() <= certificate.notAfter.getTime();
}
