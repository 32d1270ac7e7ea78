import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretSealer } from '#shared/domain/webhooks/ports.ts';

const PREFIX = 'aes256gcm:';

/**
 * The local stack's stand-in for KMS: AES-256-GCM with a key the local stack keeps beside its
 * signing keys, the organization and endpoint id as additional authenticated data.
 */
export class LocalSecretSealer implements SecretSealer {
  private readonly key: Buffer;

  constructor(base64Key: string) {
    this.key = Buffer.from(base64Key, 'base64');
    if (this.key.length !== 32) throw new Error('the local webhook secret key must be 32 bytes (base64)');
  }

  seal(secret: string, context: { orgId: string; endpointId: string }): Promise<string> {
    return Promise.resolve().then(() => this.sealNow(secret, context));
  }

  open(sealed: string, context: { orgId: string; endpointId: string }): Promise<string> {
    // A sealed secret that does not authenticate rejects rather than throws.
    return Promise.resolve().then(() => this.openNow(sealed, context));
  }

  private sealNow(secret: string, context: { orgId: string; endpointId: string }): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(`${context.orgId}:${context.endpointId}`));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    const sealed = [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64')).join('.');
    return PREFIX + sealed;
  }

  private openNow(sealed: string, context: { orgId: string; endpointId: string }): string {
    if (!sealed.startsWith(PREFIX)) throw new Error('not a locally sealed secret');
    const [iv, tag, ciphertext] = sealed
      .slice(PREFIX.length)
      .split('.')
      .map((part) => Buffer.from(part, 'base64'));
    if (!iv || !tag || !ciphertext) throw new Error('malformed sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAAD(Buffer.from(`${context.orgId}:${context.endpointId}`));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  }
}
