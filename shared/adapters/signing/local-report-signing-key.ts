import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as v from 'valibot';
import type { ReportSigningKey } from './report-signing-key.ts';
import { SigningCertificateNotValidError } from './report-signing-key.ts';
import { certificatesFromPem, describeCertificate, isValidAt, type SigningCertificate } from './signing-certificate.ts';

/**
 * `.local/report-signing-key.json`: the local stack's key (PKCS #8 PEM, `REPORT_SIGNING_ALGORITHM`) and its certificates,
 * the current one (for this key) first, those of earlier keys after it, so reports signed before a
 * rotation still verify against the published list.
 */
export const LocalSigningKeyFile = v.object({
  privateKey: v.pipe(v.string(), v.startsWith('-----BEGIN PRIVATE KEY-----')),
  certificates: v.pipe(v.array(v.pipe(v.string(), v.startsWith('-----BEGIN CERTIFICATE-----'))), v.minLength(1)),
});
export type LocalSigningKeyFile = v.InferOutput<typeof LocalSigningKeyFile>;

export function parseLocalSigningKeyFile(text: string, file: string): LocalSigningKeyFile {
  const parsed = v.safeParse(LocalSigningKeyFile, JSON.parse(text));
  if (!parsed.success) throw new Error(`${file} is not a report signing key file; delete it to create a new one`);
  return parsed.output;
}

/** The local stack's signing key, read from its file once per container (at first use). */
export class LocalReportSigningKey implements ReportSigningKey {
  private contents: Promise<{ privateKey: KeyObject; certificates: SigningCertificate[] }> | undefined;

  constructor(private readonly file: string) {}

  /** Every certificate the file lists, current first. */
  async listCertificates(): Promise<SigningCertificate[]> {
    return (await this.load()).certificates;
  }

  async certificateAt(at: Date): Promise<SigningCertificate> {
    const { privateKey, certificates } = await this.load();
    const publicKey = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
    const current = certificates.find((certificate) => publicKey.equals(certificate.publicKeyDer));
    if (!current || !isValidAt(current, at)) throw new SigningCertificateNotValidError(at, current);
    return current;
  }

  async signSha256(message: Uint8Array): Promise<Uint8Array> {
    return signWith((await this.load()).privateKey, message);
  }

  private load(): Promise<{ privateKey: KeyObject; certificates: SigningCertificate[] }> {
    this.contents ??= readFile(this.file, 'utf8').then((text) => {
      const contents = parseLocalSigningKeyFile(text, this.file);
      return {
        privateKey: createPrivateKey(contents.privateKey),
        certificates: contents.certificates.flatMap(certificatesFromPem).map(describeCertificate),
      };
    });
    return this.contents;
  }
}

export function signWith(privateKey: KeyObject, message: Uint8Array): Uint8Array {
  return new Uint8Array(sign('sha256', message, { key: privateKey, dsaEncoding: 'der' }));
}
