import { generateKeyPairSync, type KeyObject } from 'node:crypto';

/**
 * The report signing key's algorithm, defined once: the CDK key, the KMS signer, the local key,
 * the certificates and the CMS SignerInfo all read it. RSA 2048 with PKCS #1 v1.5 and SHA-256:
 * KMS prices its requests as symmetric ones ($0.03 per 10,000, against $0.15 for every other
 * asymmetric spec), and every PDF reader verifies it (docs/reports.md, docs/cost.md). Changing it
 * is a new key: its certificate is published first, the earlier ones stay listed.
 * Plain values and node:crypto only, so the CDK app and the worker import it without pkijs.
 */
export const REPORT_SIGNING_ALGORITHM = {
  /** The KMS key's `KeySpec` (CDK `KeySpec.RSA_2048`). */
  kmsKeySpec: 'RSA_2048',
  /** `SigningAlgorithm` of every `kms:Sign` with it; the key policy allows no other. */
  kmsSigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256',
  /**
   * The signature algorithm in the certificates and the CMS SignerInfo: sha256WithRSAEncryption
   * (RFC 4055), whose parameters are an explicit NULL.
   */
  signatureAlgorithm: { oid: '1.2.840.113549.1.1.11', nullParameters: true },
  /** A local key of the same spec (node:crypto). */
  localKey: { type: 'rsa', modulusLength: 2048 },
} as const;

/** A new key pair of the configured spec, as the local stack and the tests make it. */
export function newReportSigningKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync(REPORT_SIGNING_ALGORITHM.localKey.type, {
    modulusLength: REPORT_SIGNING_ALGORITHM.localKey.modulusLength,
  });
}

/** Whether a local key is of the configured spec (a key file written before a change of spec is not). */
export function isOfReportSigningSpec(key: KeyObject): boolean {
  return (
    key.asymmetricKeyType === REPORT_SIGNING_ALGORITHM.localKey.type &&
    key.asymmetricKeyDetails?.modulusLength === REPORT_SIGNING_ALGORITHM.localKey.modulusLength
  );
}
