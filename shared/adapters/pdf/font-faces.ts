import * as fontkit from 'fontkit';
import type { FontWeight, ReportFontFamily, ReportFonts } from './report-fonts.ts';

/**
 * A parsed face: the fontkit font and what the typesetter asks of it most (glyph ids and advances
 * of single characters), cached. Parsed once per process per file: fontkit reads tables lazily,
 * so a large CJK face costs only what a report uses of it.
 */
export class FontFace {
  readonly unitsPerEm: number;
  private readonly glyphIds = new Map<number, number>();
  private readonly advances = new Map<number, number>();

  constructor(
    readonly family: ReportFontFamily,
    readonly weight: FontWeight,
    readonly font: fontkit.Font,
  ) {
    this.unitsPerEm = font.unitsPerEm;
  }

  /** The face's glyph for a character without shaping; 0 (.notdef) when it has none. */
  glyphId(codePoint: number): number {
    let id = this.glyphIds.get(codePoint);
    if (id === undefined) {
      id = this.font.hasGlyphForCodePoint(codePoint) ? this.font.glyphForCodePoint(codePoint).id : 0;
      this.glyphIds.set(codePoint, id);
    }
    return id;
  }

  has(codePoint: number): boolean {
    return this.glyphId(codePoint) !== 0;
  }

  /** Advance of a glyph in thousandths of an em (PDF text space). */
  advance(glyphId: number): number {
    let advance = this.advances.get(glyphId);
    if (advance === undefined) {
      advance = (this.font.getGlyph(glyphId).advanceWidth * 1000) / this.unitsPerEm;
      this.advances.set(glyphId, advance);
    }
    return advance;
  }

  /** From font units to thousandths of an em. */
  scale(units: number): number {
    return (units * 1000) / this.unitsPerEm;
  }
}

const parsed = new WeakMap<Uint8Array, fontkit.Font>();

/** The faces of a render: each family and weight parsed on first use (and kept for the process). */
export class FontFaces {
  private readonly faces = new Map<string, FontFace>();

  constructor(private readonly fonts: ReportFonts) {}

  get(family: ReportFontFamily, weight: FontWeight): FontFace {
    const key = `${family}/${weight}`;
    let face = this.faces.get(key);
    if (!face) {
      face = new FontFace(family, weight, parse(this.fonts.read(family, weight)));
      this.faces.set(key, face);
    }
    return face;
  }
}

function parse(bytes: Uint8Array): fontkit.Font {
  let font = parsed.get(bytes);
  if (!font) {
    const created = fontkit.create(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (!('unitsPerEm' in created)) throw new Error('a report font file is a font collection, not a single face');
    font = created;
    parsed.set(bytes, font);
  }
  return font;
}
