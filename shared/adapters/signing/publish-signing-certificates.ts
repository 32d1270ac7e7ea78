import {
  certificatesFromPem,
  describeCertificate,
  isValidAt,
  type SignSha256,
  type SigningCertificate,
} from './signing-certificate.ts';
import { issueSigningCertificate } from './issue-signing-certificate.ts';

/** Where the published certificates are kept: a PEM bundle, the current certificate first. */
export interface SigningCertificateStore {
  /** The published bundle, or undefined before the first publication. */
  read(): Promise<string | undefined>;
  write(pem: string): Promise<void>;
}

/** How long a self-issued certificate is valid. */
export const SELF_ISSUED_CERTIFICATE_DAYS = 2 * 365;
/** A self-issued certificate with less than this left is replaced by a new one at the next publication. */
export const RENEW_BEFORE_DAYS = 90;
const DAY_MS = 86_400_000;

export interface PublishSigningCertificatesInput {
  key: { publicKeyDer(): Promise<Uint8Array>; signSha256: SignSha256 };
  store: SigningCertificateStore;
  /** The subject (and issuer) of a self-issued certificate. */
  commonName: string;
  /**
   * A certificate for the key issued under the operator's CA (PEM, the key's certificate first,
   * then its CA chain); without it the certificate is self-issued.
   */
  operatorCertificatesPem?: string | undefined;
  now: Date;
}

export interface PublishedSigningCertificates {
  /** The certificate the worker signs with: the first of the bundle that certifies the key. */
  current: SigningCertificate;
  /** Whether a new self-issued certificate was made by this publication. */
  issued: boolean;
  certificates: SigningCertificate[];
}

/** The operator's certificate does not certify the stage's key, or is not valid now. */
export class OperatorCertificateRejectedError extends Error {
  override name = 'OperatorCertificateRejectedError';
}

/**
 * The deploy-time step that keeps the published certificates right for the stage's key: the
 * operator's certificate when one is configured (checked to certify the key and to be valid now),
 * else a self-issued one, made again when none for this key has `RENEW_BEFORE_DAYS` left. The
 * current certificate goes first; every certificate published before stays listed after it (a
 * replaced key's or an expired one), so reports signed earlier still verify.
 */
export async function publishSigningCertificates(
  input: PublishSigningCertificatesInput,
): Promise<PublishedSigningCertificates> {
  const publicKey = Buffer.from(await input.key.publicKeyDer());
  const certifiesKey = (certificate: SigningCertificate) => publicKey.equals(certificate.publicKeyDer);
  const published = certificatesFromPem((await input.store.read()) ?? '').map(describeCertificate);
  const operator = certificatesFromPem(input.operatorCertificatesPem ?? '').map(describeCertificate);

  let current: SigningCertificate | undefined;
  let issued = false;
  if (operator.length > 0) {
    const [leaf] = operator;
    if (!certifiesKey(leaf!))
      throw new OperatorCertificateRejectedError(
        'the first operator certificate does not certify the report signing key',
      );
    if (!isValidAt(leaf!, input.now))
      throw new OperatorCertificateRejectedError(
        `the operator certificate is valid from ${leaf!.notBefore.toISOString()} to ${leaf!.notAfter.toISOString()}, not now`,
      );
    current = leaf;
  } else {
    const renewAt = input.now.getTime() + RENEW_BEFORE_DAYS * DAY_MS;
    current = published.find(
      (certificate) =>
        certifiesKey(certificate) && isValidAt(certificate, input.now) && certificate.notAfter.getTime() > renewAt,
    );
  }
  if (!current) {
    current = await issueSigningCertificate({
      commonName: input.commonName,
      publicKeyDer: publicKey,
      notBefore: new Date(input.now.getTime() - 60_000),
      notAfter: new Date(input.now.getTime() + SELF_ISSUED_CERTIFICATE_DAYS * DAY_MS),
      signSha256: input.key.signSha256,
    });
    issued = true;
  }

  const seen = new Set<string>();
  const certificates = [current, ...operator, ...published].filter((certificate) => {
    if (seen.has(certificate.sha256Fingerprint)) return false;
    seen.add(certificate.sha256Fingerprint);
    return true;
  });
  await input.store.write(certificates.map((certificate) => certificate.pem).join(''));
  return { current, issued, certificates };
}
