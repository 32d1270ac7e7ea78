import { createHash } from 'node:crypto';
import { GetPublicKeyCommand, SignCommand, type KMSClient } from '@aws-sdk/client-kms';
import { SigningCertificateNotValidError, type ReportSigningKey } from '#shared/adapters/signing/report-signing-key.ts';
import { isValidAt, type SigningCertificate } from '#shared/adapters/signing/signing-certificate.ts';
import { REPORT_SIGNING_ALGORITHM } from '#shared/adapters/signing/report-signing-algorithm.ts';

/**
 * The stage's asymmetric KMS key (`REPORT_SIGNING_ALGORITHM`, `SIGN_VERIFY`): the private key never leaves
 * KMS. Each signature is one `kms:Sign` call over a SHA-256 digest computed here (MessageType
 * DIGEST); the public key is asked for once per container (`kms:GetPublicKey`) to pick, among
 * the published certificates, the one that certifies this key.
 */
export class KmsReportSigningKey implements ReportSigningKey {
  private publicKey: Promise<Buffer> | undefined;

  constructor(
    private readonly kms: KMSClient,
    private readonly keyId: string,
    /** The published certificates, current first (read once per container by the caller's source). */
    private readonly certificates: () => Promise<SigningCertificate[]>,
  ) {}

  async certificateAt(at: Date): Promise<SigningCertificate> {
    const [publicKey, certificates] = await Promise.all([this.publicKeyDer(), this.certificates()]);
    const current = certificates.find((certificate) => publicKey.equals(certificate.publicKeyDer));
    if (!current || !isValidAt(current, at)) throw new SigningCertificateNotValidError(at, current);
    return current;
  }

  signSha256 = async (message: Uint8Array): Promise<Uint8Array> => {
    const { Signature } = await this.kms.send(
      new SignCommand({
        KeyId: this.keyId,
        Message: createHash('sha256').update(message).digest(),
        MessageType: 'DIGEST',
        SigningAlgorithm: REPORT_SIGNING_ALGORITHM.kmsSigningAlgorithm,
      }),
    );
    if (!Signature) throw new Error('KMS returned no signature');
    // As CMS and X.509 carry it: the RSA signature's octets (an ECDSA key's would be DER, ECDSA-Sig-Value).
    return Signature;
  };

  /** The key's SubjectPublicKeyInfo (DER), asked of KMS once. */
  publicKeyDer(): Promise<Buffer> {
    this.publicKey ??= this.kms.send(new GetPublicKeyCommand({ KeyId: this.keyId })).then(({ PublicKey }) => {
      if (!PublicKey) throw new Error('KMS returned no public key');
      return Buffer.from(PublicKey);
    });
    // A failed call (KMS down) is asked again by the next report, not remembered.
    this.publicKey.catch(() => (this.publicKey = undefined));
    return this.publicKey;
  }
}
