import type { PDFDocument } from 'pdf-lib';
import type { ReportFonts } from './report-fonts.ts';
import { pdfLibFont } from './truetype/pdf-lib-font.ts';
import { TrueTypeFont } from './truetype/truetype-font.ts';

export type FontWeight = keyof ReportFonts;

/** What pdf-lib accepts as a font engine: anything with `create(bytes)`. */
type Fontkit = Parameters<PDFDocument['registerFontkit']>[0];
type FontkitFont = ReturnType<Fontkit['create']>;

/** Measures and cleans text for the report's two faces. */
export interface ReportTypeface {
  /**
   * `text` as the faces can draw it: NFC, white space as plain spaces, control and format
   * characters dropped, every character either face lacks (CJK, emoji) replaced by `?`.
   */
  printable(text: string): string;
  /** Width in points of printable `text` at `size`. */
  width(text: string, weight: FontWeight, size: number): number;
  /** A font engine for `PDFDocument.registerFontkit` that serves the parsed faces. */
  fontkit: Fontkit;
}

/**
 * A parsed face, kept per process (once per cold start with `loadReportFonts`). Parsing reads
 * only the table directory and a few header fields; characters are looked up as they come.
 */
interface ParsedFace {
  font: TrueTypeFont;
  /** The face as pdf-lib embeds it, text mapped to glyphs without OpenType shaping. */
  forEmbedding: FontkitFont;
}

const parsedFaces = new WeakMap<Uint8Array, ParsedFace>();

export function reportTypeface(fonts: ReportFonts): ReportTypeface {
  const faces = { regular: parsedFace(fonts.regular), bold: parsedFace(fonts.bold) };
  return {
    printable: (text) =>
      printable(text, (codePoint) => hasGlyph(faces.regular, codePoint) && hasGlyph(faces.bold, codePoint)),
    width: (text, weight, size) => textWidth(faces[weight], text, size),
    fontkit: { create: (bytes) => parsedFace(bytes).forEmbedding },
  };
}

/**
 * The PDF name of a subset face: a six-letter tag, `+`, the face's PostScript name, the form the
 * PDF specification gives subsets. The tag is a hash of the characters the subset holds: the same
 * text gives the same name, different subsets get different names. (Left alone, pdf-lib appends a
 * number from a generator it seeds afresh per document: stable too, but an accident of its
 * internals rather than a promise.)
 */
export function subsetFontName(bytes: Uint8Array, text: string): string {
  const codePoints = [...new Set(Array.from(text, (character) => character.codePointAt(0) ?? 0))].sort((a, b) => a - b);
  let hash = 0x811c9dc5; // FNV-1a, 32 bit
  for (const codePoint of codePoints) {
    hash = Math.imul(hash ^ codePoint, 0x01000193) >>> 0;
  }
  let tag = '';
  for (let index = 0; index < 6; index += 1) {
    tag += String.fromCharCode(65 + (hash % 26));
    hash = Math.floor(hash / 26);
  }
  return `${tag}+${parsedFace(bytes).font.postscriptName || 'Font'}`;
}

function parsedFace(bytes: Uint8Array): ParsedFace {
  let face = parsedFaces.get(bytes);
  if (!face) {
    const font = new TrueTypeFont(bytes);
    // pdf-lib types a font engine's font as fontkit's whole API; embedding a subset reads only
    // the members PdfLibFont has.
    face = { font, forEmbedding: pdfLibFont(font) as unknown as FontkitFont };
    parsedFaces.set(bytes, face);
  }
  return face;
}

function hasGlyph(face: ParsedFace, codePoint: number): boolean {
  return face.font.glyphIdForCodePoint(codePoint) !== 0;
}

function textWidth(face: ParsedFace, text: string, size: number): number {
  let units = 0;
  for (const character of text) {
    units += face.font.advanceWidth(face.font.glyphIdForCodePoint(character.codePointAt(0) ?? 0));
  }
  return (units / face.font.unitsPerEm) * size;
}

const DROPPED = /[\p{Cc}\p{Cf}]/u;
const SPACE = /\s/u;

function printable(text: string, isSupported: (codePoint: number) => boolean): string {
  let out = '';
  for (const character of text.normalize('NFC')) {
    if (SPACE.test(character)) out += ' ';
    else if (DROPPED.test(character)) continue;
    else out += isSupported(character.codePointAt(0) ?? 0) ? character : '?';
  }
  return out;
}
