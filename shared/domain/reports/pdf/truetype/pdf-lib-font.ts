import { EventEmitter } from 'node:events';
import type { FontBoundingBox, TrueTypeFont } from './truetype-font.ts';
import { TrueTypeSubset } from './truetype-subset.ts';

/** A glyph of a text run, as pdf-lib reads it: the glyph, the character it draws, its advance. */
export interface PdfLibGlyph {
  id: number;
  codePoints: number[];
  advanceWidth: number;
}

/**
 * The members pdf-lib (1.17) reads from the font its font engine (`registerFontkit`) creates when
 * it embeds a subset (`embedFont(bytes, { subset: true })`), named and valued as fontkit's.
 */
export interface PdfLibFont {
  unitsPerEm: number;
  postscriptName: string | null;
  ascent: number;
  descent: number;
  capHeight: number;
  xHeight: number;
  italicAngle: number;
  bbox: FontBoundingBox;
  cff: false;
  'OS/2': { sFamilyClass: number };
  post: { isFixedPitch: boolean };
  head: { macStyle: { italic: boolean } };
  layout(text: string): { glyphs: PdfLibGlyph[] };
  createSubset(): PdfLibSubset;
}

/** The subset pdf-lib builds while encoding text and writes when the document is saved. */
export interface PdfLibSubset {
  cff: false;
  /** The glyph's id in the subset; 0 is `.notdef`, so included glyphs count from 1. */
  includeGlyph(glyph: PdfLibGlyph): number;
  /** Emits the font file as one `data` event then `end` (or `error`), after the caller's handlers are on. */
  encodeStream(): EventEmitter;
}

/** `font` as pdf-lib's subset embedder reads it. */
export function pdfLibFont(font: TrueTypeFont): PdfLibFont {
  return {
    unitsPerEm: font.unitsPerEm,
    postscriptName: font.postscriptName,
    ascent: font.ascent,
    descent: font.descent,
    capHeight: font.capHeight,
    xHeight: font.xHeight,
    italicAngle: font.italicAngle,
    bbox: font.bbox,
    cff: false,
    'OS/2': { sFamilyClass: font.familyClass },
    post: { isFixedPitch: font.isFixedPitch },
    head: { macStyle: { italic: font.isItalic } },
    layout: (text) => ({ glyphs: glyphRun(font, text) }),
    createSubset: () => pdfLibSubset(new TrueTypeSubset(font)),
  };
}

/**
 * Each character of `text` mapped straight to its glyph, without OpenType shaping: for NFC text
 * without ligatures the same drawing (pdf-lib ignores the positions a shaper computes), at a
 * fraction of the cost. The records are made per call, so nothing a render reads depends on
 * earlier renders in the process.
 */
function glyphRun(font: TrueTypeFont, text: string): PdfLibGlyph[] {
  return Array.from(text, (character) => {
    const codePoint = character.codePointAt(0) ?? 0;
    const id = font.glyphIdForCodePoint(codePoint);
    return { id, codePoints: [codePoint], advanceWidth: font.advanceWidth(id) };
  });
}

function pdfLibSubset(subset: TrueTypeSubset): PdfLibSubset {
  return {
    cff: false,
    includeGlyph: (glyph) => subset.includeGlyph(glyph.id),
    encodeStream: () => {
      const stream = new EventEmitter();
      queueMicrotask(() => {
        let file: Uint8Array;
        try {
          file = subset.encode();
        } catch (error) {
          stream.emit('error', error);
          return;
        }
        stream.emit('data', file);
        stream.emit('end');
      });
      return stream;
    },
  };
}
