import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Direction marks pdftotext wraps right-to-left text in (RLE ... PDF); they are not text. */
const DIRECTION_MARKS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * The text of a PDF as a reader copies it: `pdftotext` (poppler-utils) in its physical-layout
 * mode, direction marks removed.
 */
export function pdfText(pdf: Uint8Array): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pdf-text-'));
  try {
    const file = path.join(dir, 'report.pdf');
    writeFileSync(file, pdf);
    return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }).replace(
      DIRECTION_MARKS,
      '',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `text` without white space: a value wrapped over lines still reads as one. */
export function squashed(text: string): string {
  return text.replace(/\s+/gu, '');
}

/** The lines of the PDF's text, each with runs of white space as one space. */
export function textLines(pdf: Uint8Array): string[] {
  return pdfText(pdf)
    .split('\n')
    .map((line) => line.replace(/\s+/gu, ' ').trim())
    .filter((line) => line !== '');
}
