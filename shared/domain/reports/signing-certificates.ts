/** A certificate of a key reports are (or were) signed with, as the stage publishes it. */
export interface PublishedSigningCertificate {
  pem: string;
  /** SHA-256 of the certificate's DER, lower-case hex. */
  sha256Fingerprint: string;
  notBefore: Date;
  notAfter: Date;
}

/** The stage's published report signing certificates: the current one first, those of earlier keys after it. */
export interface SigningCertificateDirectory {
  list(): Promise<PublishedSigningCertificate[]>;
}

/**
 * The certificates a downloaded report's signature is checked against. Earlier ones stay listed
 * after a key rotation: reports signed before it must still verify.
 */
export function listReportSigningCertificates(deps: { certificates: SigningCertificateDirectory }) {
  return (): Promise<PublishedSigningCertificate[]> => deps.certificates.list();
}
