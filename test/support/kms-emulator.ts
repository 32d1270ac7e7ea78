import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Just enough of KMS (JSON 1.1: `TrentService.Encrypt` and `TrentService.Decrypt` with an
 * encryption context) for the fault tier to run the functions' real KMS sealer
 * (shared/adapters/kms/kms-secret-sealer.ts) behind a fault proxy: the local stack's own stand-in,
 * an AES key in the functions' process, cannot be unavailable. One key, AES-256-GCM, the
 * encryption context as additional authenticated data, as KMS binds it.
 */

export const EMULATED_KMS_KEY_ID = 'alias/onboarding-fault-tier';

const contextBytes = (context: Record<string, string> = {}): Buffer =>
  Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))));

export async function startKmsEmulator(): Promise<{ endpoint: string; port: number; stop(): Promise<void> }> {
  const key = randomBytes(32);
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, body: Record<string, unknown>) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(body));
      };
      try {
        const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          Plaintext?: string;
          CiphertextBlob?: string;
          EncryptionContext?: Record<string, string>;
        };
        const action = String(request.headers['x-amz-target'] ?? '');
        if (action === 'TrentService.Encrypt') {
          const iv = randomBytes(12);
          const cipher = createCipheriv('aes-256-gcm', key, iv);
          cipher.setAAD(contextBytes(input.EncryptionContext));
          const sealed = Buffer.concat([cipher.update(Buffer.from(input.Plaintext ?? '', 'base64')), cipher.final()]);
          const blob = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
          answer(200, { CiphertextBlob: blob, KeyId: EMULATED_KMS_KEY_ID, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' });
        } else if (action === 'TrentService.Decrypt') {
          const blob = Buffer.from(input.CiphertextBlob ?? '', 'base64');
          const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(0, 12));
          decipher.setAAD(contextBytes(input.EncryptionContext));
          decipher.setAuthTag(blob.subarray(12, 28));
          const plaintext = Buffer.concat([decipher.update(blob.subarray(28)), decipher.final()]);
          answer(200, {
            Plaintext: plaintext.toString('base64'),
            KeyId: EMULATED_KMS_KEY_ID,
            EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
          });
        } else {
          answer(400, { __type: 'UnsupportedOperationException', message: `${action} is not emulated` });
        }
      } catch {
        answer(400, { __type: 'InvalidCiphertextException', message: 'the ciphertext does not decrypt' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
