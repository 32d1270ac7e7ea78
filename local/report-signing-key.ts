import { randomUUID } from 'node:crypto';
import { chmod, link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  newLocalSigningKey,
  parseLocalSigningKeyFile,
  type LocalSigningKeyFile,
} from '#shared/adapters/signing/local-report-signing-key.ts';
import { certificatesFromPem, describeCertificate } from '#shared/adapters/signing/signing-certificate.ts';
import { reportSignerName } from '#shared/adapters/signing/report-signer-name.ts';

export const REPORT_SIGNING_KEY_FILE = 'report-signing-key.json';
/** A certificate this close to its end is replaced at the next start, so a running stack never signs with an expired one. */
const RENEW_BEFORE_MS = 30 * 86_400_000;

/**
 * The local stack's report signing key, `report-signing-key.json` in the keys directory: created
 * on first start (dir 0700, file 0600) and kept across restarts, so reports signed earlier still
 * verify. A certificate within 30 days of its end is rotated at start: a new key and certificate
 * come first, the earlier certificates stay listed. Returns the file's path.
 */
export async function ensureLocalReportSigningKey(keysDir: string, now = new Date()): Promise<string> {
  const file = join(keysDir, REPORT_SIGNING_KEY_FILE);
  const existing = await readKeyFile(file);
  if (existing && !needsRotation(existing, now)) return file;

  await mkdir(keysDir, { recursive: true, mode: 0o700 });
  const created = await newLocalSigningKey(reportSignerName('local'), now);
  const next: LocalSigningKeyFile = {
    privateKey: created.privateKey,
    certificates: [created.certificate, ...(existing?.certificates ?? [])],
  };
  // Written aside, then linked (first creation: fails if another process won) or renamed (rotation) into place.
  const temporary = join(keysDir, `.${REPORT_SIGNING_KEY_FILE}.${process.pid}.${randomUUID()}`);
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
