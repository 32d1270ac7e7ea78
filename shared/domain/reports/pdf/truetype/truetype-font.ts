import { readCharacterMap, type CharacterMap } from './character-map.ts';
import { dataView } from './font-data.ts';
import { readPostScriptName } from './naming-table.ts';
import { readTableDirectory, type FontTables } from './table-directory.ts';

/** A box in font units. */
export interface FontBoundingBox {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/**
 * A TrueType font read from its file: the face-wide metrics up front, and per character or glyph
 * only what is asked for (cmap lookups, metrics, outline data), straight from the file's bytes.
 * Metrics follow fontkit's choices: ascent and descent from `hhea`, cap and x height from `OS/2`
 * (from version 2; else the ascent and 0), the bounding box from `head`, the italic angle from `post`.
 */
export class TrueTypeFont {
  readonly tables: FontTables;
  readonly numGlyphs: number;
  readonly unitsPerEm: number;
  readonly bbox: FontBoundingBox;
  readonly isItalic: boolean;
  readonly ascent: number;
  readonly descent: number;
  readonly capHeight: number;
  readonly xHeight: number;
  /** The `OS/2` IBM font family class, 0 without that table. */
  readonly familyClass: number;
  /** Counter-clockwise degrees from the vertical. */
  readonly italicAngle: number;
  readonly isFixedPitch: boolean;
  readonly postscriptName: string | null;

  private readonly glyphIdFor: CharacterMap;
  private readonly hmtx: DataView;
  private readonly numberOfHMetrics: number;
  private readonly glyf: Uint8Array;
  private readonly loca: DataView;
  private readonly locaIsLong: boolean;

  constructor(bytes: Uint8Array) {
    this.tables = readTableDirectory(bytes);
    if (!this.tables.has('glyf')) throw new Error('font has no glyf table: only TrueType outlines are supported');
    const table = (tag: string, minimumLength: number): Uint8Array => {
      const data = this.tables.get(tag);
      if (!data) throw new Error(`TrueType font has no '${tag}' table`);
      if (data.byteLength < minimumLength) throw new Error(`TrueType '${tag}' table is truncated`);
      return data;
    };

    const head = dataView(table('head', 54));
    this.unitsPerEm = head.getUint16(18);
    this.bbox = { minX: head.getInt16(36), minY: head.getInt16(38), maxX: head.getInt16(40), maxY: head.getInt16(42) };
    this.isItalic = (head.getUint16(44) & 0b10) !== 0;
    this.locaIsLong = head.getInt16(50) === 1;

    const hhea = dataView(table('hhea', 36));
    this.ascent = hhea.getInt16(4);
    this.descent = hhea.getInt16(6);
    this.numberOfHMetrics = hhea.getUint16(34);

    this.numGlyphs = dataView(table('maxp', 6)).getUint16(4);
    if (this.numberOfHMetrics < 1 || this.numberOfHMetrics > this.numGlyphs) {
      throw new Error('TrueType hhea numberOfHMetrics is out of range');
    }
    this.hmtx = dataView(table('hmtx', this.numberOfHMetrics * 4 + (this.numGlyphs - this.numberOfHMetrics) * 2));
    this.loca = dataView(table('loca', (this.numGlyphs + 1) * (this.locaIsLong ? 4 : 2)));
    this.glyf = table('glyf', 0);
    this.glyphIdFor = readCharacterMap(table('cmap', 4));

    const os2 = this.tables.get('OS/2');
    const os2View = os2 && os2.byteLength >= 32 ? dataView(os2) : undefined;
    this.familyClass = os2View?.getInt16(30) ?? 0;
    const hasHeights = os2View !== undefined && os2View.getUint16(0) >= 2 && os2View.byteLength >= 90;
    this.xHeight = hasHeights ? os2View.getInt16(86) : 0;
    this.capHeight = hasHeights ? os2View.getInt16(88) : this.ascent;

    const post = this.tables.get('post');
    const postView = post && post.byteLength >= 16 ? dataView(post) : undefined;
    this.italicAngle = postView ? postView.getInt32(4) / 0x10000 : 0;
    this.isFixedPitch = postView ? postView.getUint32(12) !== 0 : false;

    const name = this.tables.get('name');
    this.postscriptName = name ? readPostScriptName(name) : null;
  }

  /** The glyph drawing `codePoint`; 0 (`.notdef`) when the font has none. */
  glyphIdForCodePoint(codePoint: number): number {
    const glyphId = this.glyphIdFor(codePoint);
    return glyphId < this.numGlyphs ? glyphId : 0;
  }

  advanceWidth(glyphId: number): number {
    this.assertGlyphId(glyphId);
    return this.hmtx.getUint16(Math.min(glyphId, this.numberOfHMetrics - 1) * 4);
  }

  leftSideBearing(glyphId: number): number {
    this.assertGlyphId(glyphId);
    if (glyphId < this.numberOfHMetrics) return this.hmtx.getInt16(glyphId * 4 + 2);
    return this.hmtx.getInt16(this.numberOfHMetrics * 4 + (glyphId - this.numberOfHMetrics) * 2);
  }

  /** The glyph's `glyf` data as stored, a view into the font; empty for a glyph without outline. */
  glyphData(glyphId: number): Uint8Array {
    this.assertGlyphId(glyphId);
    const start = this.glyphOffset(glyphId);
    const end = this.glyphOffset(glyphId + 1);
    if (end < start || end > this.glyf.byteLength)
      throw new Error(`TrueType loca entry of glyph ${glyphId} is out of range`);
    return this.glyf.subarray(start, end);
  }

  /** Throws a RangeError unless the font has a glyph `glyphId`. */
  assertGlyphId(glyphId: number): void {
    if (!Number.isInteger(glyphId) || glyphId < 0 || glyphId >= this.numGlyphs) {
      throw new RangeError(`glyph id ${glyphId} is not in the font (it has ${this.numGlyphs} glyphs)`);
    }
  }

  private glyphOffset(index: number): number {
    return this.locaIsLong ? this.loca.getUint32(index * 4) : this.loca.getUint16(index * 2) * 2;
  }
}
