import { describe, expect, it } from 'vitest';
import { writeFontFile } from '../../../../../shared/domain/reports/pdf/truetype/font-file-writer.ts';
import { TrueTypeFont } from '../../../../../shared/domain/reports/pdf/truetype/truetype-font.ts';
import { TrueTypeSubset } from '../../../../../shared/domain/reports/pdf/truetype/truetype-subset.ts';
import {
  REPORT_FACES,
  checksum,
  fontkitFont,
  fontkitSubset,
  glyphOffsets,
  horizontalMetrics,
  isCompositeGlyph,
  tableBytes,
  tableRecords,
  tableView,
} from './font-file-inspection.ts';

/** ASCII, Latin-1 and Latin Extended letters with accents (composite glyphs in Noto Sans), Greek, Cyrillic. */
const MIXED_TEXT =
  'Report 2026: Zoë Ångström-Núñez, Łukasz Żółć, Erdős Pál, Çağrı Şeker, é; Ζωή Παπαδοπούλου, Дмитрий Шостакович.';

/** What a PDF needs of an embedded TrueType font, as fontkit's subsetter writes it. */
const REQUIRED_TABLES = ['glyf', 'head', 'hhea', 'hmtx', 'loca', 'maxp'];
const HINTING_TABLES = ['cvt ', 'fpgm', 'prep'];

describe.each(REPORT_FACES)('TrueTypeSubset, Noto Sans %s', (_face, bytes) => {
  const font = new TrueTypeFont(bytes);
  const reference = fontkitFont(bytes);
  const glyphIdsOf = (text: string): number[] => [
    ...new Set(Array.from(text, (character) => reference.glyphForCodePoint(character.codePointAt(0)!).id)),
  ];

  /** The subset of `glyphIds`, and the original glyph each new id stands for. */
  function subsetOf(glyphIds: number[]): { file: Uint8Array; originals: Map<number, number> } {
    const subset = new TrueTypeSubset(font);
    const originals = new Map<number, number>([[0, 0]]);
    for (const glyphId of glyphIds) originals.set(subset.includeGlyph(glyphId), glyphId);
    return { file: subset.encode(), originals };
  }

  function expectSameGlyphs(file: Uint8Array, originals: Map<number, number>): void {
    const parsed = fontkitFont(file);
    for (const [newId, originalId] of originals) {
      const original = reference.getGlyph(originalId);
      const copy = parsed.getGlyph(newId);
      expect(copy.path.toSVG(), `glyph ${originalId}, ${newId} in the subset`).toBe(original.path.toSVG());
      expect(copy.advanceWidth, `advance of glyph ${originalId}`).toBe(original.advanceWidth);
      expect(horizontalMetrics(file, newId), `hmtx of glyph ${originalId}`).toEqual(
        horizontalMetrics(bytes, originalId),
      );
    }
  }

  it('holds the glyphs of mixed-script text, numbered from 1 in the order included, with their outlines and metrics', () => {
    const glyphIds = glyphIdsOf(MIXED_TEXT);

    const { file, originals } = subsetOf(glyphIds);

    expect([...originals.keys()]).toEqual([0, ...glyphIds.map((_, index) => index + 1)]);
    expectSameGlyphs(file, originals);
  });

  it('adds the components of composite glyphs, as many as fontkit’s subsetter adds, so that composites draw whole', async () => {
    const glyphIds = glyphIdsOf(MIXED_TEXT);
    const composites = glyphIds.filter((glyphId) => isCompositeGlyph(bytes, glyphId));
    expect(composites.length).toBeGreaterThanOrEqual(10);
    for (const character of 'éÅőŻή')
      expect(composites).toContain(reference.glyphForCodePoint(character.codePointAt(0)!).id);

    const { file, originals } = subsetOf(glyphIds);
    const parsed = fontkitFont(file);

    const needed = fontkitFont(await fontkitSubset(reference, glyphIds)).numGlyphs;
    expect(parsed.numGlyphs).toBe(needed);
    expect(parsed.numGlyphs).toBeGreaterThan(originals.size);
    for (const composite of composites) {
      const newId = [...originals].find(([, originalId]) => originalId === composite)![0];
      expect(isCompositeGlyph(file, newId)).toBe(true);
      expect(parsed.getGlyph(newId).path.toSVG()).toBe(reference.getGlyph(composite).path.toSVG());
    }
    for (let glyphId = originals.size; glyphId < parsed.numGlyphs; glyphId += 1) {
      expect(parsed.getGlyph(glyphId).path.toSVG(), `component glyph ${glyphId}`).not.toBe('');
    }
  });

  it('holds a single glyph after .notdef', () => {
    const { file, originals } = subsetOf(glyphIdsOf('A'));

    expect(fontkitFont(file).numGlyphs).toBe(2);
    expectSameGlyphs(file, originals);
  });

  it('holds only .notdef when nothing was included', () => {
    const { file, originals } = subsetOf([]);

    expect(fontkitFont(file).numGlyphs).toBe(1);
    expectSameGlyphs(file, originals);
  });

  it('holds every glyph of the font when asked, in the long loca format', () => {
    const all = Array.from({ length: font.numGlyphs - 1 }, (_, index) => index + 1);

    const { file, originals } = subsetOf(all);

    expect(glyphOffsets(file).long).toBe(true);
    expect(fontkitFont(file).numGlyphs).toBe(font.numGlyphs);
    expectSameGlyphs(file, originals);
  });

  describe.each([
    ['mixed-script text', (): number[] => glyphIdsOf(MIXED_TEXT)],
    ['no glyph', (): number[] => []],
    ['every glyph', (): number[] => Array.from({ length: font.numGlyphs - 1 }, (_, index) => index + 1)],
  ])('the font file of a subset of %s', (_subset, glyphIds) => {
    const { file } = subsetOf(glyphIds());
    const records = tableRecords(file);

    it('has the tables a PDF needs, with the hinting tables of the font, sorted by tag', () => {
      const hinting = HINTING_TABLES.filter((tag) => tableRecords(bytes).some((record) => record.tag === tag));
      expect(hinting.length).toBeGreaterThan(0);

      expect(records.map((record) => record.tag)).toEqual([...REQUIRED_TABLES, ...hinting].sort());
      for (const tag of hinting) {
        expect(Buffer.from(tableBytes(file, tag)).equals(Buffer.from(tableBytes(bytes, tag))), tag).toBe(true);
      }
    });

    it('has a valid table directory: search fields, 4-byte aligned tables inside the file, correct checksums', () => {
      const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
      let power = 1;
      while (power * 2 <= records.length) power *= 2;
      expect(view.getUint32(0)).toBe(0x00010000);
      expect([view.getUint16(6), view.getUint16(8), view.getUint16(10)]).toEqual([
        power * 16,
        Math.log2(power),
        (records.length - power) * 16,
      ]);

      for (const record of records) {
        expect(record.offset % 4, record.tag).toBe(0);
        expect(record.offset + record.length).toBeLessThanOrEqual(file.byteLength);
        const table = new Uint8Array(file.subarray(record.offset, record.offset + record.length));
        if (record.tag === 'head') table.fill(0, 8, 12); // checkSumAdjustment is left out of the head checksum
        expect(record.checksum, record.tag).toBe(checksum(table));
      }
      expect(checksum(file)).toBe(0xb1b0afba);
    });

    it('has glyph counts that agree across maxp, hhea, hmtx and loca, and loca offsets that address glyf', () => {
      const numGlyphs = tableView(file, 'maxp').getUint16(4);
      const { long, offsets } = glyphOffsets(file);

      expect(numGlyphs).toBeGreaterThanOrEqual(glyphIds().length + 1);
      expect(tableView(file, 'hhea').getUint16(34)).toBe(numGlyphs);
      expect(tableView(file, 'hmtx').byteLength).toBe(numGlyphs * 4);
      expect(offsets).toHaveLength(numGlyphs + 1);
      expect(offsets[0]).toBe(0);
      expect(offsets.at(-1)).toBe(tableView(file, 'glyf').byteLength);
      for (let index = 1; index < offsets.length; index += 1) {
        expect(offsets[index]! % 4).toBe(0);
        expect(offsets[index]!).toBeGreaterThanOrEqual(offsets[index - 1]!);
      }
      expect(long).toBe(offsets.at(-1)! > 0x1fffe);
    });
  });

  it('is read back by TrueTypeFont (short loca): each glyph’s data as in the font, zero padded to 4 bytes', () => {
    const glyphIds = glyphIdsOf('Ab9 ,.é');
    const { file, originals } = subsetOf(glyphIds);
    expect(glyphOffsets(file).long).toBe(false);
    // TrueTypeFont wants a cmap, which a subset for PDF leaves out; the font's own will do.
    const tables = new Map(tableRecords(file).map(({ tag }) => [tag, tableBytes(file, tag)]));
    const reread = new TrueTypeFont(writeFontFile(tables.set('cmap', tableBytes(bytes, 'cmap'))));

    for (const [newId, originalId] of originals) {
      const original = font.glyphData(originalId);
      const copy = reread.glyphData(newId);
      expect(copy.byteLength).toBe((original.byteLength + 3) & ~3);
      expect(copy.subarray(original.byteLength).every((byte) => byte === 0)).toBe(true);
      if (!isCompositeGlyph(bytes, originalId))
        expect(Buffer.from(copy.subarray(0, original.byteLength))).toEqual(Buffer.from(original));
      expect(reread.advanceWidth(newId)).toBe(font.advanceWidth(originalId));
    }
  });

  it('leaves the font’s bytes as they were', () => {
    const before = Buffer.from(bytes);

    subsetOf(glyphIdsOf(MIXED_TEXT));

    expect(Buffer.from(bytes).equals(before)).toBe(true);
  });

  it('keeps the id a glyph was given when it is included again, and .notdef as 0', () => {
    const subset = new TrueTypeSubset(font);
    const [a, b] = glyphIdsOf('ab');

    expect([subset.includeGlyph(a!), subset.includeGlyph(b!), subset.includeGlyph(a!), subset.includeGlyph(0)]).toEqual(
      [1, 2, 1, 0],
    );
  });

  it('refuses glyph ids the font does not have', () => {
    const subset = new TrueTypeSubset(font);

    expect(() => subset.includeGlyph(font.numGlyphs)).toThrow(RangeError);
    expect(() => subset.includeGlyph(-1)).toThrow(RangeError);
  });

  it('writes the same bytes for the same glyphs, and can be encoded again after more are included', () => {
    const [composite, plain] = glyphIdsOf('éx');
    const subset = new TrueTypeSubset(font);
    subset.includeGlyph(composite!);
    const first = subset.encode();
    expect(Buffer.from(subset.encode()).equals(Buffer.from(first))).toBe(true);

    expect(subset.includeGlyph(plain!)).toBe(2);
    const second = fontkitFont(subset.encode());

    expect(second.getGlyph(1).path.toSVG()).toBe(reference.getGlyph(composite!).path.toSVG());
    expect(second.getGlyph(2).path.toSVG()).toBe(reference.getGlyph(plain!).path.toSVG());
  });
});
