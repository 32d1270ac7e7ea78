import type { Mode } from '#shared/domain/identity/tenant.ts';

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
 * after a key rotation: reports signed before it must still verify. A sandbox caller gets the
 * sandbox key's certificates and never the live ones (docs/contract.md §23), so a sandbox report
 * verifies against what it is shown and never against live.
 */
export function listReportSigningCertificates(deps: {
  certificates: SigningCertificateDirectory;
  sandboxCertificates?: SigningCertificateDirectory;
}) {
  return (mode: Mode = 'live'): Promise<PublishedSigningCertificate[]> => {
    if (mode === 'live') return deps.certificates.list();
    if (!deps.sandboxCertificates) throw new Error('the sandbox certificates are not configured');
    return deps.sandboxCertificates.list();
  };
}
