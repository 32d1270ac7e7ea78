import { PDFString, type PDFDocument, type PDFRef } from 'pdf-lib';
import type { FontFace } from './font-faces.ts';

/**
 * The faces a document draws with, each embedded as a subset (fontkit's TrueType subsetter) in a
 * Type 0 font with Identity-H encoding: a glyph is shown by a two-byte CID. Each CID is one glyph
 * standing for one text (ToUnicode), so text copies out: shaping can draw one glyph for different
 * characters (Arabic seen and sheen share their base, the dots are a glyph of their own), and each
 * use then gets a CID of its own, mapped to the glyph through `CIDToGIDMap`.
 */
export class PdfFontSubsets {
  private readonly subsets = new Map<FontFace, FontSubset>();

  constructor(private readonly doc: PDFDocument) {}

  /** The subset of `face`, created on first use with the resource name `F1`, `F2`, ... in order of use. */
  of(face: FontFace): FontSubset {
    let subset = this.subsets.get(face);
    if (!subset) {
      subset = new FontSubset(face, `F${this.subsets.size + 1}`, this.doc.context.nextRef());
      this.subsets.set(face, subset);
    }
    return subset;
  }

  all(): FontSubset[] {
    return [...this.subsets.values()];
  }

  /** Writes every subset's font objects; call once, after all text is drawn. */
  embedAll(): void {
    for (const subset of this.subsets.values()) subset.embed(this.doc);
  }
}

/** fontkit's subsetter as it is (its published types name a different signature). */
interface FontkitSubset {
  /** Adds a glyph of the face; its id in the subset. */
  includeGlyph(glyphId: number): number;
  /** Original glyph ids, in subset order. */
  glyphs: number[];
  encode(): Uint8Array;
}

export class FontSubset {
  private readonly subset: FontkitSubset;
  /** `glyph id, text` -> CID. CID 0 is the missing-glyph box, glyph 0. */
  private readonly cids = new Map<string, number>();
  /** Per CID: its glyph in the subset, advance (thousandths of an em) and text. */
  private readonly byCid: Array<{ subsetGlyph: number; width: number; text: string }> = [];

  constructor(
    readonly face: FontFace,
    readonly resourceName: string,
    readonly ref: PDFRef,
  ) {
    this.subset = face.font.createSubset() as unknown as FontkitSubset;
    this.byCid.push({ subsetGlyph: 0, width: face.advance(0), text: '' });
  }

  /** The two-byte code, as hex, showing glyph `glyphId` of the face as `text`. */
  code(glyphId: number, text: string): string {
    const key = glyphId === 0 ? '0' : `${glyphId} ${text}`;
    let cid = this.cids.get(key);
    if (cid === undefined) {
      cid = glyphId === 0 ? 0 : this.byCid.length;
      if (glyphId !== 0) {
        this.byCid.push({ subsetGlyph: this.subset.includeGlyph(glyphId), width: this.face.advance(glyphId), text });
      }
      this.cids.set(key, cid);
    }
    return cid.toString(16).padStart(4, '0');
  }

  /** Default width of a glyph, as the PDF reader will advance after it. */
  widthOf(glyphId: number): number {
    return Math.round(this.face.advance(glyphId));
  }

  embed(doc: PDFDocument): void {
    const { context } = doc;
    const { font } = this.face;
    const bytes = this.subset.encode();
    const name = `${subsetTag(
      this.byCid.map((entry) => entry.subsetGlyph),
      this.subset.glyphs,
    )}+${font.postscriptName || 'Font'}`;
    const scale = (units: number): number => Math.round((units * 1000) / font.unitsPerEm);
    const fontFile = context.register(context.flateStream(bytes, { Length1: bytes.length }));
    const descriptor = context.register(
      context.obj({
        Type: 'FontDescriptor',
        FontName: name,
        Flags: 4,
        FontBBox: [scale(font.bbox.minX), scale(font.bbox.minY), scale(font.bbox.maxX), scale(font.bbox.maxY)],
        ItalicAngle: font.italicAngle,
        Ascent: scale(font.ascent),
        Descent: scale(font.descent),
        CapHeight: scale(font.capHeight || font.ascent),
        StemV: 80,
        FontFile2: fontFile,
      }),
    );
    const widths = context.obj(this.byCid.flatMap((entry, cid) => [cid, [Math.round(entry.width)]]));
    const cidToGid = new Uint8Array(this.byCid.length * 2);
    this.byCid.forEach((entry, cid) => {
      cidToGid[2 * cid] = entry.subsetGlyph >> 8;
      cidToGid[2 * cid + 1] = entry.subsetGlyph & 0xff;
    });
    const cidFont = context.register(
      context.obj({
        Type: 'Font',
        Subtype: 'CIDFontType2',
        BaseFont: name,
        CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
        FontDescriptor: descriptor,
        W: widths,
        CIDToGIDMap: context.register(context.flateStream(cidToGid)),
      }),
    );
    const toUnicode = context.register(context.flateStream(this.toUnicodeCMap()));
    context.assign(
      this.ref,
      context.obj({
        Type: 'Font',
        Subtype: 'Type0',
        BaseFont: name,
        Encoding: 'Identity-H',
        DescendantFonts: [cidFont],
        ToUnicode: toUnicode,
      }),
    );
  }

  /** Glyph code -> text, for every glyph that stands for text (not the missing-glyph box). */
  private toUnicodeCMap(): string {
    const entries = this.byCid
      .map((entry, cid) => [cid, entry.text] as const)
      .filter(([, text]) => text !== '')
      .map(([cid, text]) => `<${cid.toString(16).padStart(4, '0')}> <${utf16Hex(text)}>`);
    const blocks: string[] = [];
    for (let start = 0; start < entries.length; start += 100) {
      const block = entries.slice(start, start + 100);
      blocks.push(`${block.length} beginbfchar\n${block.join('\n')}\nendbfchar`);
    }
    return [
      '/CIDInit /ProcSet findresource begin',
      '12 dict begin',
      'begincmap',
      '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
      '/CMapName /Adobe-Identity-UCS def',
      '/CMapType 2 def',
      '1 begincodespacerange',
      '<0000> <ffff>',
      'endcodespacerange',
      ...blocks,
      'endcmap',
      'CMapName currentdict /CMap defineresource pop',
      'end',
      'end',
    ].join('\n');
  }
}

/** Text as UTF-16BE hex, as ToUnicode maps and `/ActualText` strings hold it. */
export function utf16Hex(text: string): string {
  let hex = '';
  for (let index = 0; index < text.length; index++) hex += text.charCodeAt(index).toString(16).padStart(4, '0');
  return hex;
}

/**
 * The six capital letters before `+` in a subset's name: a hash of the glyphs it holds, so the
 * same glyphs give the same name and a render never depends on an earlier one.
 */
function subsetTag(subsetIds: number[], originalIds: number[]): string {
  let hash = 0x811c9dc5; // FNV-1a, 32 bit
  for (const id of [...subsetIds, ...originalIds]) hash = Math.imul(hash ^ id, 0x01000193) >>> 0;
  let tag = '';
  for (let index = 0; index < 6; index += 1) {
    tag += String.fromCharCode(65 + (hash % 26));
    hash = Math.floor(hash / 26);
  }
  return tag;
}
