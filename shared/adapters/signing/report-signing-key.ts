import type { SignSha256, SigningCertificate } from './signing-certificate.ts';

/** The key reports are signed with: a KMS key in AWS, a key in `.local/` locally. */
export interface ReportSigningKey {
  /**
   * The certificate to sign with at `at`: the key's current one. Throws
   * `SigningCertificateNotValidError` when it is not valid then (expired, or not yet valid).
   */
  certificateAt(at: Date): Promise<SigningCertificate>;
  signSha256: SignSha256;
}

/** No certificate of the key is valid now: a report is never signed with an expired one. */
export class SigningCertificateNotValidError extends Error {
  override name = 'SigningCertificateNotValidError';
  constructor(at: Date, certificate?: Pick<SigningCertificate, 'notBefore' | 'notAfter' | 'sha256Fingerprint'>) {
    super(
      certificate
        ? `the report signing certificate ${certificate.sha256Fingerprint} is valid from ${certificate.notBefore.toISOString()} to ${certificate.notAfter.toISOString()}, not at ${at.toISOString()}`
        : `no report signing certificate certifies the signing key at ${at.toISOString()}`,
    );
  }
}
