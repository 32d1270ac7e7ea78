import { DecryptCommand, EncryptCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { SecretSealer } from '#shared/domain/webhooks/ports.ts';

const PREFIX = 'kms:';

/**
 * Endpoint secrets encrypted with the stack's KMS key. The organization and endpoint id are the
 * encryption context, so a sealed secret copied onto another endpoint's item does not decrypt.
 */
export class KmsSecretSealer implements SecretSealer {
  constructor(
    private readonly kms: KMSClient,
    private readonly keyId: string,
  ) {}

  async seal(secret: string, context: { orgId: string; endpointId: string }): Promise<string> {
    const { CiphertextBlob } = await this.kms.send(
      new EncryptCommand({
        KeyId: this.keyId,
        Plaintext: Buffer.from(secret, 'utf8'),
        EncryptionContext: { orgId: context.orgId, endpointId: context.endpointId },
      }),
    );
    if (!CiphertextBlob) throw new Error('KMS returned no ciphertext');
    return PREFIX + Buffer.from(CiphertextBlob).toString('base64');
  }

  async open(sealed: string, context: { orgId: string; endpointId: string }): Promise<string> {
    if (!sealed.startsWith(PREFIX)) throw new Error('not a KMS-sealed secret');
    const { Plaintext } = await this.kms.send(
      new DecryptCommand({
        KeyId: this.keyId,
        CiphertextBlob: Buffer.from(sealed.slice(PREFIX.length), 'base64'),
        EncryptionContext: { orgId: context.orgId, endpointId: context.endpointId },
      }),
    );
    if (!Plaintext) throw new Error('KMS returned no plaintext');
    return Buffer.from(Plaintext).toString('utf8');
  }
}
