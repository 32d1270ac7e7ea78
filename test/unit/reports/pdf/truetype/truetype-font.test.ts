import { describe, expect, it } from 'vitest';
import { TrueTypeFont } from '../../../../../shared/domain/reports/pdf/truetype/truetype-font.ts';
import { REPORT_FACES, fontkitFont, patched, tableRecords } from './font-file-inspection.ts';

/** Code points neither Noto Sans face has: CJK, emoji, private use, past Unicode's end. */
const ABSENT = [0x4e2d, 0x5c71, 0x1f642, 0x1f600, 0xe000, 0x110000];

/** A copy of `bytes` whose cmap lists the platform/encoding subtable `from` as `to`, so readers skip it. */
function withCmapEncodingRenamed(bytes: Uint8Array, from: [number, number], to: [number, number]): Uint8Array {
  return patched(bytes, 'cmap', (cmap) => {
    for (let index = 0; index < cmap.getUint16(2); index += 1) {
      const record = 4 + index * 8;
      if (cmap.getUint16(record) === from[0] && cmap.getUint16(record + 2) === from[1]) {
        cmap.setUint16(record, to[0]);
        cmap.setUint16(record + 2, to[1]);
      }
    }
  });
}

function cmapSubtableFormats(bytes: Uint8Array): string[] {
  const font = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const cmap = tableRecords(bytes).find((record) => record.tag === 'cmap')!;
  return Array.from({ length: font.getUint16(cmap.offset + 2) }, (_, index) => {
    const record = cmap.offset + 4 + index * 8;
    const format = font.getUint16(cmap.offset + font.getUint32(record + 4));
    return `${font.getUint16(record)}/${font.getUint16(record + 2)}: ${format}`;
  });
}

describe.each(REPORT_FACES)('TrueTypeFont, Noto Sans %s, against fontkit', (_face, bytes) => {
  const reference = fontkitFont(bytes);
  const font = new TrueTypeFont(bytes);

  it('has fontkit’s face-wide metrics and names', () => {
    expect({
      unitsPerEm: font.unitsPerEm,
      numGlyphs: font.numGlyphs,
      ascent: font.ascent,
      descent: font.descent,
      capHeight: font.capHeight,
      xHeight: font.xHeight,
      italicAngle: font.italicAngle,
      postscriptName: font.postscriptName,
      bbox: font.bbox,
    }).toEqual({
      unitsPerEm: reference.unitsPerEm,
      numGlyphs: reference.numGlyphs,
      ascent: reference.ascent,
      descent: reference.descent,
      capHeight: reference.capHeight,
      xHeight: reference.xHeight,
      italicAngle: reference.italicAngle,
      postscriptName: reference.postscriptName,
      bbox: {
        minX: reference.bbox.minX,
        minY: reference.bbox.minY,
        maxX: reference.bbox.maxX,
        maxY: reference.bbox.maxY,
      },
    });
    expect(font.familyClass).toBe(reference['OS/2'].sFamilyClass);
    expect(font.isFixedPitch).toBe(Boolean(reference.post.isFixedPitch));
    expect(font.isItalic).toBe(reference.head.macStyle.italic);
  });

  it('maps every code point fontkit knows to fontkit’s glyph, with fontkit’s advance width', () => {
    const characterSet = reference.characterSet;
    expect(characterSet.length).toBeGreaterThan(3000);

    const mismatches = characterSet.filter((codePoint) => {
      const glyph = reference.glyphForCodePoint(codePoint);
      const glyphId = font.glyphIdForCodePoint(codePoint);
      return glyphId !== glyph.id || font.advanceWidth(glyphId) !== glyph.advanceWidth;
    });
    expect(mismatches).toEqual([]);
  });

  it('reports no glyph for CJK, emoji, private use and out-of-range code points', () => {
    for (const codePoint of ABSENT) {
      expect(font.glyphIdForCodePoint(codePoint)).toBe(0);
      if (codePoint <= 0x10ffff) expect(reference.hasGlyphForCodePoint(codePoint)).toBe(false);
    }
  });

  it('has the advance width of .notdef for glyph 0', () => {
    expect(font.advanceWidth(0)).toBe(reference.getGlyph(0).advanceWidth);
  });

  it('reads the format 4 subtable (3/1) as fontkit reads the format 12 one, when there is no 3/10 subtable', () => {
    const withoutFullRepertoire = withCmapEncodingRenamed(bytes, [3, 10], [9, 9]);
    expect(cmapSubtableFormats(withoutFullRepertoire)).toContain('3/1: 4');
    const bmpFont = new TrueTypeFont(withoutFullRepertoire);

    const bmp = reference.characterSet.filter((codePoint) => codePoint <= 0xffff);
    const mismatches = bmp.filter(
      (codePoint) => bmpFont.glyphIdForCodePoint(codePoint) !== reference.glyphForCodePoint(codePoint).id,
    );
    expect(mismatches).toEqual([]);
    expect(bmpFont.glyphIdForCodePoint(0x4e2d)).toBe(0);
  });

  it('falls back to a Unicode platform subtable when there is no Windows one', () => {
    const unicodeOnly = withCmapEncodingRenamed(withCmapEncodingRenamed(bytes, [3, 10], [9, 9]), [3, 1], [9, 8]);
    const unicodeFont = new TrueTypeFont(unicodeOnly);

    for (const codePoint of reference.characterSet.filter((_, index) => index % 50 === 0)) {
      expect(unicodeFont.glyphIdForCodePoint(codePoint)).toBe(reference.glyphForCodePoint(codePoint).id);
    }
  });

  it('gives glyphs past hhea.numberOfHMetrics the last advance width, as fontkit does', () => {
    const fewMetrics = patched(bytes, 'hhea', (hhea) => hhea.setUint16(34, 100));
    const reread = fontkitFont(fewMetrics);
    const shortened = new TrueTypeFont(fewMetrics);

    for (const glyphId of [0, 1, 99, 100, 101, 2000, font.numGlyphs - 1]) {
      expect(shortened.advanceWidth(glyphId)).toBe(reread.getGlyph(glyphId).advanceWidth);
    }
    expect(shortened.advanceWidth(2000)).toBe(font.advanceWidth(99));
  });

  it('refuses glyph ids the font does not have', () => {
    for (const glyphId of [-1, font.numGlyphs, 1.5, Number.NaN]) {
      expect(() => font.glyphData(glyphId)).toThrow(RangeError);
      expect(() => font.advanceWidth(glyphId)).toThrow(RangeError);
    }
  });
});

describe('TrueTypeFont, reading fonts it cannot use', () => {
  const [, bytes] = REPORT_FACES[0]!;

  it('rejects an OpenType font with CFF outlines, saying so', () => {
    const cff = new Uint8Array(bytes);
    cff.set([0x4f, 0x54, 0x54, 0x4f]); // 'OTTO'

    expect(() => new TrueTypeFont(cff)).toThrow(/CFF outlines \(OTTO\) are not supported/);
  });

  it('rejects bytes that are no font', () => {
    expect(() => new TrueTypeFont(new TextEncoder().encode('%PDF-1.7 not a font'))).toThrow(/not a TrueType font/);
    expect(() => new TrueTypeFont(new Uint8Array(4))).toThrow(/not a TrueType font/);
  });

  it('rejects a table directory or table that runs past the end of the file', () => {
    expect(() => new TrueTypeFont(bytes.subarray(0, 40))).toThrow(/past the end/);
    expect(() => new TrueTypeFont(bytes.subarray(0, bytes.byteLength - 1000))).toThrow(/past the end/);
  });

  it('rejects a font without glyf table as not TrueType outlines', () => {
    const noGlyf = new Uint8Array(bytes);
    const glyf = tableRecords(noGlyf).findIndex((record) => record.tag === 'glyf');
    noGlyf.set([0x67, 0x6c, 0x79, 0x58], 12 + glyf * 16); // 'glyX'

    expect(() => new TrueTypeFont(noGlyf)).toThrow(/only TrueType outlines/);
  });

  it('rejects a font without a Unicode cmap subtable', () => {
    const noUnicode = patched(bytes, 'cmap', (cmap) => {
      for (let index = 0; index < cmap.getUint16(2); index += 1) cmap.setUint16(4 + index * 8, 7);
    });

    expect(() => new TrueTypeFont(noUnicode)).toThrow(/no Unicode cmap subtable/);
  });
});
