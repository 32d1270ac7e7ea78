import { componentReferences } from './composite-glyph.ts';
import { dataView } from './font-data.ts';
import { writeFontFile } from './font-file-writer.ts';
import type { TrueTypeFont } from './truetype-font.ts';

/** Hinting tables copied whole: glyph instructions may call into them. */
const HINTING_TABLES = ['cvt ', 'fpgm', 'prep'];
/** The largest glyf table the short loca format (offsets halved, 16 bits) can address. */
const SHORT_LOCA_LIMIT = 0xffff * 2;

/**
 * A font holding some glyphs of `font`, renumbered in the order they are included, after
 * `.notdef` (always glyph 0). Written as the tables a PDF needs to draw an Identity-encoded
 * CIDFontType2 (head, hhea, maxp, hmtx, loca, glyf and the hinting tables): no cmap, name, OS/2
 * or post.
 */
export class TrueTypeSubset {
  private readonly glyphIds: number[] = [0];
  private readonly newIds = new Map<number, number>([[0, 0]]);

  constructor(private readonly font: TrueTypeFont) {}

  /** The id `glyphId` of the font has in the subset, included now if it was not yet. */
  includeGlyph(glyphId: number): number {
    let newId = this.newIds.get(glyphId);
    if (newId === undefined) {
      this.font.assertGlyphId(glyphId);
      newId = this.glyphIds.length;
      this.glyphIds.push(glyphId);
      this.newIds.set(glyphId, newId);
    }
    return newId;
  }

  /**
   * The subset as a TrueType font file. The components of composite glyphs are added after the
   * included glyphs (whose ids are already handed out) and the composites rewritten to their new
   * ids. Leaves the subset as it was: encoding twice gives the same bytes.
   */
  encode(): Uint8Array {
    const glyphIds = [...this.glyphIds];
    const newIds = new Map(this.newIds);
    const glyphs: Uint8Array[] = [];
    // Also visits the components appended to `glyphIds` on the way, so theirs are included too.
    for (const glyphId of glyphIds) {
      const data = this.font.glyphData(glyphId);
      const components = componentReferences(data);
      if (components.length === 0) {
        glyphs.push(data);
        continue;
      }
      const rewritten = new Uint8Array(data);
      const view = dataView(rewritten);
      for (const component of components) {
        let newId = newIds.get(component.glyphId);
        if (newId === undefined) {
          newId = glyphIds.length;
          glyphIds.push(component.glyphId);
          newIds.set(component.glyphId, newId);
        }
        view.setUint16(component.offset, newId);
      }
      glyphs.push(rewritten);
    }
    return writeFontFile(this.tables(glyphIds, glyphs));
  }

  private tables(glyphIds: number[], glyphs: Uint8Array[]): Map<string, Uint8Array> {
    const { glyf, offsets } = glyphTable(glyphs);
    const locaIsShort = glyf.byteLength <= SHORT_LOCA_LIMIT;
    const loca = new Uint8Array(offsets.length * (locaIsShort ? 2 : 4));
    const locaView = dataView(loca);
    offsets.forEach((offset, index) => {
      if (locaIsShort) locaView.setUint16(index * 2, offset / 2);
      else locaView.setUint32(index * 4, offset);
    });

    const hmtx = new Uint8Array(glyphIds.length * 4);
    const hmtxView = dataView(hmtx);
    glyphIds.forEach((glyphId, index) => {
      hmtxView.setUint16(index * 4, this.font.advanceWidth(glyphId));
      hmtxView.setInt16(index * 4 + 2, this.font.leftSideBearing(glyphId));
    });

    const head = this.copyOf('head');
    dataView(head).setInt16(50, locaIsShort ? 0 : 1); // indexToLocFormat
    const hhea = this.copyOf('hhea');
    dataView(hhea).setUint16(34, glyphIds.length); // numberOfHMetrics
    const maxp = this.copyOf('maxp');
    dataView(maxp).setUint16(4, glyphIds.length); // numGlyphs

    const tables = new Map([
      ['head', head],
      ['hhea', hhea],
      ['maxp', maxp],
      ['hmtx', hmtx],
      ['loca', loca],
      ['glyf', glyf],
    ]);
    for (const tag of HINTING_TABLES) {
      const table = this.font.tables.get(tag);
      if (table) tables.set(tag, table);
    }
    return tables;
  }

  private copyOf(tag: string): Uint8Array {
    const table = this.font.tables.get(tag);
    if (!table) throw new Error(`TrueType font has no '${tag}' table`);
    return new Uint8Array(table);
  }
}

/** `glyphs` one after another, each zero padded to 4 bytes, and where each starts and the last ends. */
function glyphTable(glyphs: Uint8Array[]): { glyf: Uint8Array; offsets: number[] } {
  const padded = (glyph: Uint8Array): number => (glyph.byteLength + 3) & ~3;
  const glyf = new Uint8Array(glyphs.reduce((size, glyph) => size + padded(glyph), 0));
  const offsets: number[] = [];
  let offset = 0;
  for (const glyph of glyphs) {
    offsets.push(offset);
    glyf.set(glyph, offset);
    offset += padded(glyph);
  }
  offsets.push(offset);
  return { glyf, offsets };
}
