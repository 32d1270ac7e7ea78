import { createPrivateKey, randomUUID } from 'node:crypto';
import { chmod, link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  parseLocalSigningKeyFile,
  signWith,
  type LocalSigningKeyFile,
} from '#shared/adapters/signing/local-report-signing-key.ts';
import { issueSigningCertificate } from '#shared/adapters/signing/issue-signing-certificate.ts';
import { certificatesFromPem, describeCertificate } from '#shared/adapters/signing/signing-certificate.ts';
import { reportSignerName, signingCertificatesObjectKey } from '#shared/adapters/signing/report-signer-name.ts';
import type { Mode } from '#shared/domain/identity/tenant.ts';
import { isOfReportSigningSpec, newReportSigningKeyPair } from '#shared/adapters/signing/report-signing-algorithm.ts';
import { s3SigningCertificateStore } from '#shared/adapters/s3/published-signing-certificates.ts';
import { S3Client } from '@aws-sdk/client-s3';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './emulators.ts';

export const REPORT_SIGNING_KEY_FILE = 'report-signing-key.json';
/** The sandbox's key, beside the live one and made the same way; its certificate names the sandbox. */
export const SANDBOX_REPORT_SIGNING_KEY_FILE = 'report-signing-key-sandbox.json';

const keyFileOf = (mode: Mode): string =>
  mode === 'sandbox' ? SANDBOX_REPORT_SIGNING_KEY_FILE : REPORT_SIGNING_KEY_FILE;

/** How long a local certificate is valid: the local stack issues a new key and certificate after that. */
const LOCAL_CERTIFICATE_DAYS = 5 * 365;

/** A new local key and its self-issued certificate, naming the service and the stage. */
export async function newLocalSigningKey(
  commonName: string,
  now: Date,
): Promise<{ privateKey: string; certificate: string }> {
  const { privateKey, publicKey } = newReportSigningKeyPair();
  const certificate = await issueSigningCertificate({
    commonName,
    publicKeyDer: new Uint8Array(publicKey.export({ type: 'spki', format: 'der' })),
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + LOCAL_CERTIFICATE_DAYS * 86_400_000),
    signSha256: (message) => Promise.resolve(signWith(privateKey, message)),
  });
  return { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), certificate: certificate.pem };
}

/** A certificate this close to its end is replaced at the next start, so a running stack never signs with an expired one. */
const RENEW_BEFORE_MS = 30 * 86_400_000;

/**
 * The local stack's report signing key, `report-signing-key.json` in the keys directory: created
 * on first start (dir 0700, file 0600) and kept across restarts, so reports signed earlier still
 * verify. A key whose certificate is within 30 days of its end, or that is not of the configured
 * spec (`REPORT_SIGNING_ALGORITHM`: a file written when the key was ECC P-256), is rotated at
 * start: a new key and certificate come first, the earlier certificates stay listed. Returns the
 * file's path. The sandbox's key (`mode` sandbox) is `report-signing-key-sandbox.json`, kept alike.
 */
export async function ensureLocalReportSigningKey(
  keysDir: string,
  now = new Date(),
  mode: Mode = 'live',
): Promise<string> {
  const fileName = keyFileOf(mode);
  const file = join(keysDir, fileName);
  const existing = await readKeyFile(file);
  if (existing && !needsRotation(existing, now)) return file;

  await mkdir(keysDir, { recursive: true, mode: 0o700 });
  const created = await newLocalSigningKey(reportSignerName('local', mode), now);
  const next: LocalSigningKeyFile = {
    privateKey: created.privateKey,
    certificates: [created.certificate, ...(existing?.certificates ?? [])],
  };
  // Written aside, then linked (first creation: fails if another process won) or renamed (rotation) into place.
  const temporary = join(keysDir, `.${fileName}.${process.pid}.${randomUUID()}`);
  await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(temporary, 0o600);
  try {
    if (existing) await rename(temporary, file);
    else await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(temporary, { force: true });
  }
  return file;
}

function needsRotation(contents: LocalSigningKeyFile, now: Date): boolean {
  if (!isOfReportSigningSpec(createPrivateKey(contents.privateKey))) return true;
  const [current] = certificatesFromPem(contents.certificates[0]!).map(describeCertificate);
  return !current || current.notAfter.getTime() - now.getTime() < RENEW_BEFORE_MS;
}

async function readKeyFile(file: string): Promise<LocalSigningKeyFile | undefined> {
  try {
    return parseLocalSigningKeyFile(await readFile(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * What the deploy-time certificate resource does in AWS: writes the key file's certificates
 * (current first, earlier ones after) to `report-signing/certificates.pem` in the local reports
 * bucket (the sandbox key's to `report-signing/sandbox-certificates.pem`), where
 * GET /v1/report-signing-certificates reads them.
 */
export async function publishLocalSigningCertificates(
  keyFile: string,
  reportsBucket: { s3Endpoint: string; bucketName: string },
  mode: Mode = 'live',
): Promise<void> {
  const contents = parseLocalSigningKeyFile(await readFile(keyFile, 'utf8'), keyFile);
  const s3 = new S3Client({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: reportsBucket.s3Endpoint,
    forcePathStyle: true,
  });
  try {
    await s3SigningCertificateStore(s3, reportsBucket.bucketName, signingCertificatesObjectKey(mode)).write(
      contents.certificates.join(''),
    );
  } finally {
    s3.destroy();
  }
}
