import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Direction marks pdftotext wraps right-to-left text in (RLE ... PDF); they are not text. */
const DIRECTION_MARKS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * The text of a PDF (or of one of its pages) as a reader copies it: `pdftotext` (poppler-utils)
 * in its physical-layout mode, direction marks removed.
 */
export function pdfText(pdf: Uint8Array, page?: number): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pdf-text-'));
  try {
    const file = path.join(dir, 'report.pdf');
    writeFileSync(file, pdf);
    const pages = page === undefined ? [] : ['-f', String(page), '-l', String(page)];
    return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', ...pages, file, '-'], { encoding: 'utf8' }).replace(
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
export function textLines(pdf: Uint8Array, page?: number): string[] {
  return pdfText(pdf, page)
    .split('\n')
    .map((line) => line.replace(/\s+/gu, ' ').trim())
    .filter((line) => line !== '');
}

/** A word as `pdftotext -bbox` finds it: its text and box, in points from the page's top left. */
export interface WordBox {
  text: string;
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
}

/** The words of one page with their positions (`pdftotext -bbox`). */
export function wordBoxes(pdf: Uint8Array, page: number): WordBox[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'pdf-words-'));
  try {
    const file = path.join(dir, 'report.pdf');
    writeFileSync(file, pdf);
    const html = execFileSync(
      'pdftotext',
      ['-bbox', '-enc', 'UTF-8', '-f', String(page), '-l', String(page), file, '-'],
      {
        encoding: 'utf8',
      },
    );
    const words = html.matchAll(
      /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
    );
    return Array.from(words, ([, xMin, yMin, xMax, yMax, text]) => ({
      text: text!.replace(DIRECTION_MARKS, '').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>'),
      xMin: Number(xMin),
      yMin: Number(yMin),
      xMax: Number(xMax),
      yMax: Number(yMax),
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `pdfinfo` (poppler-utils) on a PDF with `options` (`-meta`, `-struct-text`, ...): its report. */
export function pdfinfo(pdf: Uint8Array, ...options: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pdfinfo-'));
  try {
    const file = path.join(dir, 'report.pdf');
    writeFileSync(file, pdf);
    return execFileSync('pdfinfo', [...options, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A structure element as `pdfinfo -struct-text` lists it: its type, depth, and its text with its descendants'. */
export interface StructureElement {
  type: string;
  depth: number;
  /** The element's text and then its descendants', each marked-content piece separated by a space. */
  text: string;
}

/**
 * The structure tree in reading order, from `pdfinfo -struct-text`: one line per element, two
 * spaces of indent a level (`TH:` when attributes follow on `/...` lines), its text in quotes on
 * the lines below.
 */
export function structureElements(pdf: Uint8Array): StructureElement[] {
  const elements: Array<StructureElement & { own: string[] }> = [];
  for (const line of pdfinfo(pdf, '-struct-text').split('\n')) {
    const content = line.trimStart();
    if (content === '' || content.startsWith('/')) continue;
    const depth = (line.length - content.length) / 2;
    if (content.startsWith('"')) {
      elements.at(-1)?.own.push(content.slice(1, -1));
      continue;
    }
    elements.push({ type: content.split(/[\s:]/u)[0]!, depth, text: '', own: [] });
  }
  return elements.map((element, index) => {
    const pieces = [...element.own];
    for (const later of elements.slice(index + 1)) {
      if (later.depth <= element.depth) break;
      pieces.push(...later.own);
    }
    return { type: element.type, depth: element.depth, text: pieces.join(' ') };
  });
}
