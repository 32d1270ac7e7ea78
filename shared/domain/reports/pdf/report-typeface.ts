import fontkit from '@pdf-lib/fontkit';
import type { PDFDocument } from 'pdf-lib';
import type { ReportFonts } from './report-fonts.ts';

export type FontWeight = keyof ReportFonts;

/** What pdf-lib accepts as a font engine: anything with `create(bytes)`. */
type Fontkit = Parameters<PDFDocument['registerFontkit']>[0];
type FontkitFont = ReturnType<Fontkit['create']>;
type GlyphRun = ReturnType<FontkitFont['layout']>;

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
 * A parsed face, kept per process: parsing a TTF and decoding its tables costs more than a whole
 * report, so it is done once per font bytes (once per cold start with `loadReportFonts`).
 */
interface ParsedFace {
  font: FontkitFont;
  /** The face pdf-lib embeds from: `font` with text mapped to glyphs without OpenType shaping. */
  forEmbedding: FontkitFont;
  advances: Map<number, number>;
  unitsPerEm: number;
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
    const font = fontkit.create(bytes);
    face = { font, forEmbedding: font, advances: new Map(), unitsPerEm: font.unitsPerEm };
    face.forEmbedding = withoutShaping(face);
    parsedFaces.set(bytes, face);
  }
  return face;
}

/**
 * pdf-lib turns text into glyphs with fontkit's full OpenType layout, 1 to 2 ms per string on
 * Noto Sans, and then ignores the glyph positions it computed. Mapping each character straight to
 * its glyph gives the same drawing (NFC text, no ligatures) at a fraction of the cost. The glyph
 * records are made per call, so nothing a render reads depends on earlier renders in the process
 * (fontkit caches glyph objects together with the first code points they were asked for).
 * pdf-lib reads only `id`, `codePoints` and `advanceWidth` from them.
 */
function withoutShaping(face: ParsedFace): FontkitFont {
  const layout = (text: string): GlyphRun => {
    const glyphs = Array.from(text, (character) => {
      const codePoint = character.codePointAt(0) ?? 0;
      const glyph = face.font.glyphForCodePoint(codePoint);
      return { id: glyph.id, codePoints: [codePoint], advanceWidth: glyph.advanceWidth };
    });
    return { glyphs } as unknown as GlyphRun;
  };
  const createSubset = (): unknown => withEvenGlyphLengths(face.font.createSubset());
  return new Proxy(face.font, {
    get(target, property) {
      if (property === 'layout') return layout;
      if (property === 'createSubset') return createSubset;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The parts of fontkit's (1.1.1) TrueType subset that `withEvenGlyphLengths` touches. */
interface TrueTypeSubset {
  glyf: Uint8Array[];
  offset: number;
  _addGlyph(glyphId: number): number;
}

/**
 * fontkit 1.1.1 writes a small subset's `loca` table in the short format, which stores offsets
 * halved, but copies glyph data without padding it to an even length. Noto Sans has odd-length
 * glyphs, so most glyphs after the first odd one would be cut and vanish from the page. Padding
 * each glyph with a zero byte, as the TrueType specification expects, fixes this subset only.
 */
function withEvenGlyphLengths<T>(subset: T): T {
  const trueType = subset as unknown as Partial<TrueTypeSubset>;
  const addGlyph = trueType._addGlyph;
  if (typeof addGlyph !== 'function') return subset; // a CFF face
  trueType._addGlyph = function addPaddedGlyph(this: TrueTypeSubset, glyphId: number): number {
    const index = addGlyph.call(this, glyphId);
    const data = this.glyf[index];
    if (data && data.length % 2 === 1) {
      this.glyf[index] = padded(data);
      this.offset += 1;
    }
    return index;
  };
  return subset;
}

interface BufferStatics {
  concat(list: Uint8Array[]): Uint8Array;
  alloc(size: number): Uint8Array;
}

/**
 * `data` and one zero byte, as the same Buffer class: fontkit's bundled stream only accepts its
 * own Buffer polyfill.
 */
function padded(data: Uint8Array): Uint8Array {
  const BufferClass = data.constructor as unknown as BufferStatics;
  return BufferClass.concat([data, BufferClass.alloc(1)]);
}

function hasGlyph(face: ParsedFace, codePoint: number): boolean {
  return face.font.hasGlyphForCodePoint(codePoint);
}

function textWidth(face: ParsedFace, text: string, size: number): number {
  let units = 0;
  for (const character of text) {
    const codePoint = character.codePointAt(0) ?? 0;
    let advance = face.advances.get(codePoint);
    if (advance === undefined) {
      advance = face.font.glyphForCodePoint(codePoint).advanceWidth;
      face.advances.set(codePoint, advance);
    }
    units += advance;
  }
  return (units / face.unitsPerEm) * size;
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
