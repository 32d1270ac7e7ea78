import { execFileSync } from 'node:child_process';
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
} {
  const text = Buffer.from(pdf).toString('latin1');
  const match = /\/ByteRange \[(\d+) (\d+) (\d+) (\d+) *\]/.exec(text);
  if (!match) throw new Error('no /ByteRange in the PDF');
  const byteRange = match.slice(1, 5).map(Number) as [number, number, number, number];
  const [start, length, secondStart, secondLength] = byteRange;
  const contentsHex = text.slice(start + length + 1, secondStart - 1);
  const { result } = asn1js.fromBER(Buffer.from(contentsHex, 'hex'));
  const contentInfo = new pkijs.ContentInfo({ schema: result });
  return {
    byteRange,
    signedBytes: Buffer.concat([
      pdf.subarray(start, start + length),
      pdf.subarray(secondStart, secondStart + secondLength),
    ]),
    signedData: new pkijs.SignedData({ schema: contentInfo.content }),
  };
}
