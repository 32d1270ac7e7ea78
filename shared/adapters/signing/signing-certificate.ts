import { createHash, X509Certificate } from 'node:crypto';

/**
 * Signs SHA-256(message) with the report signing key (`REPORT_SIGNING_ALGORITHM`); the signature
 * as X.509 and CMS carry it (RSA: its octets).
 */
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

/** Reads a DER certificate's validity, fingerprint, public key and subject with node:crypto. */
export function describeCertificate(der: Uint8Array): SigningCertificate {
  const certificate = new X509Certificate(der);
  return {
    der,
    pem: pemOf(der),
    sha256Fingerprint: createHash('sha256').update(der).digest('hex'),
    notBefore: certificate.validFromDate,
    notAfter: certificate.validToDate,
    publicKeyDer: new Uint8Array(certificate.publicKey.export({ type: 'spki', format: 'der' })),
    commonName: commonNameOf(certificate.subject),
  };
}

/** `CN=` of node's subject text (one attribute a line, `,` `+` `\\` escaped with a backslash). */
function commonNameOf(subject: string): string {
  const line = subject.split('\n').find((entry) => entry.startsWith('CN='));
  return line ? line.slice(3).replace(/\\(.)/g, '$1') : '';
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
