import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/** `pdfsig` (poppler-utils) on a PDF: its report of every signature (stdout; its parse warnings are dropped). */
export function pdfsig(pdf: Uint8Array): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pdfsig-'));
  try {
    const file = path.join(dir, 'report.pdf');
    writeFileSync(file, pdf);
    try {
      return execFileSync('pdfsig', [file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      // pdfsig exits non-zero when a signature does not verify; its report is still on stdout.
      return String((error as { stdout?: string }).stdout ?? '');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The signature's byte range, the bytes it covers and its CMS SignedData, read from the file as a verifier does. */
export function signatureOf(pdf: Uint8Array): {
  byteRange: [number, number, number, number];
  signedBytes: Uint8Array;
  signedData: pkijs.SignedData;
  /** The CMS as placed in `/Contents`, without the zero padding after it. */
  der: Uint8Array;
} {
  const text = Buffer.from(pdf).toString('latin1');
  const match = /\/ByteRange \[(\d+) (\d+) (\d+) (\d+) *\]/.exec(text);
  if (!match) throw new Error('no /ByteRange in the PDF');
  const byteRange = match.slice(1, 5).map(Number) as [number, number, number, number];
  const [start, length, secondStart, secondLength] = byteRange;
  const contentsHex = text.slice(start + length + 1, secondStart - 1);
  const padded = Buffer.from(contentsHex, 'hex');
  const { result, offset } = asn1js.fromBER(padded);
  const contentInfo = new pkijs.ContentInfo({ schema: result });
  return {
    byteRange,
    der: new Uint8Array(padded.subarray(0, offset)),
    signedBytes: Buffer.concat([
      pdf.subarray(start, start + length),
      pdf.subarray(secondStart, secondStart + secondLength),
    ]),
    signedData: new pkijs.SignedData({ schema: contentInfo.content }),
  };
}

/** `openssl cms -verify` of a detached CMS over `content`, trusting `certificatePem` alone: its report (stdout and stderr). */
export function opensslCmsVerify(cms: Uint8Array, content: Uint8Array, certificatePem: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cms-'));
  try {
    const files = {
      cms: path.join(dir, 'signature.der'),
      content: path.join(dir, 'content'),
      ca: path.join(dir, 'ca.pem'),
    };
    writeFileSync(files.cms, cms);
    writeFileSync(files.content, content);
    writeFileSync(files.ca, certificatePem);
    const args = ['cms', '-verify', '-binary', '-inform', 'DER', '-in', files.cms, '-content', files.content];
    // OpenSSL reports "CMS Verification successful" on stderr.
    const { stdout, stderr } = spawnSync(
      'openssl',
      [...args, '-CAfile', files.ca, '-purpose', 'any', '-out', '/dev/null'],
      {
        encoding: 'utf8',
      },
    );
    return `${stdout}${stderr}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
