import { horizontalMetrics, tableView } from './font-file-inspection.ts';

/**
 * Builds small TrueType fonts for the tests: simple glyphs of one straight-sided contour, composite
 * glyphs with the component flags a test asks for, a Unicode cmap and the other tables TrueTypeFont
 * and fontkit read. Written apart from the code under test, like font-file-inspection.ts.
 */

export const ARG_1_AND_2_ARE_WORDS = 0x0001;
export const ARGS_ARE_XY_VALUES = 0x0002;
export const WE_HAVE_A_SCALE = 0x0008;
const MORE_COMPONENTS = 0x0020;
export const WE_HAVE_AN_X_AND_Y_SCALE = 0x0040;
export const WE_HAVE_A_TWO_BY_TWO = 0x0080;
const WE_HAVE_INSTRUCTIONS = 0x0100;

/** Every glyph's advance width is this plus its id, so a subset's hmtx tells which glyph each of its glyphs is. */
const ADVANCE_OF_GLYPH_0 = 500;

/** A component as a test describes it; the builder adds MORE_COMPONENTS and WE_HAVE_INSTRUCTIONS. */
export interface ComponentRecord {
  glyphId: number;
  flags: number;
  /** dx and dy: int16 with ARG_1_AND_2_ARE_WORDS, else int8. */
  args: [number, number];
  /** F2Dot14 values: 1 with WE_HAVE_A_SCALE, 2 with WE_HAVE_AN_X_AND_Y_SCALE, 4 with WE_HAVE_A_TWO_BY_TWO. */
  transform?: number[];
}

export interface CompositeGlyph {
  data: Uint8Array;
  /** Each component's glyph id and the byte of `data` where it is stored. */
  components: { glyphId: number; offset: number }[];
}

const uint8 = (value: number): number[] => [value & 0xff];
const uint16 = (value: number): number[] => [(value >> 8) & 0xff, value & 0xff];
const uint32 = (value: number): number[] => [...uint16(value >>> 16), ...uint16(value & 0xffff)];
const f2dot14 = (value: number): number[] => uint16(Math.round(value * 0x4000));

/** A glyph of one contour through `points`, all on the curve, coordinates stored as int16 deltas. */
export function simpleGlyph(points: [number, number][]): Uint8Array {
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const deltas = (values: number[]): number[] =>
    values.flatMap((value, index) => uint16(value - (values[index - 1] ?? 0)));
  const ON_CURVE_POINT = 0x01;
  return new Uint8Array([
    ...uint16(1), // numberOfContours
    ...[Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)].flatMap(uint16),
    ...uint16(points.length - 1), // endPtsOfContours
    ...uint16(0), // instructionLength
    ...points.map(() => ON_CURVE_POINT),
    ...deltas(xs),
    ...deltas(ys),
  ]);
}

/** A composite glyph of `components`, with `instructions` after the last one when given. */
export function compositeGlyph(components: ComponentRecord[], instructions?: number[]): CompositeGlyph {
  // numberOfContours -1; the bounding box is left 0, as neither reader uses it.
  const bytes = [...uint16(-1), ...uint16(0), ...uint16(0), ...uint16(0), ...uint16(0)];
  const references: CompositeGlyph['components'] = [];
  components.forEach(({ glyphId, flags: layout, args, transform = [] }, index) => {
    const last = index === components.length - 1;
    const flags = layout | (!last ? MORE_COMPONENTS : instructions ? WE_HAVE_INSTRUCTIONS : 0);
    const transformSize =
      flags & WE_HAVE_A_SCALE ? 1 : flags & WE_HAVE_AN_X_AND_Y_SCALE ? 2 : flags & WE_HAVE_A_TWO_BY_TWO ? 4 : 0;
    if (transform.length !== transformSize)
      throw new Error(`component flags 0x${flags.toString(16)} take ${transformSize} transform values`);
    if (!(flags & ARG_1_AND_2_ARE_WORDS) && args.some((arg) => arg < -128 || arg > 127))
      throw new Error(`arguments ${args} need ARG_1_AND_2_ARE_WORDS`);
    bytes.push(...uint16(flags));
    references.push({ glyphId, offset: bytes.length });
    bytes.push(
      ...uint16(glyphId),
      ...args.flatMap(flags & ARG_1_AND_2_ARE_WORDS ? uint16 : uint8),
      ...transform.flatMap(f2dot14),
    );
  });
  if (instructions) bytes.push(...uint16(instructions.length), ...instructions);
  return { data: new Uint8Array(bytes), components: references };
}

/**
 * A font of `glyphs` by id, the ids between them (and .notdef, 0, unless given) empty glyphs, each
 * character of `characters` mapped to its glyph id: long loca, glyph data unpadded, a format 12
 * cmap, glyph `id` `ADVANCE_OF_GLYPH_0 + id` wide.
 */
export function syntheticFont(
  glyphs: ReadonlyMap<number, Uint8Array>,
  characters: ReadonlyMap<string, number>,
): Uint8Array {
  const numGlyphs = Math.max(...glyphs.keys()) + 1;
  const data = Array.from({ length: numGlyphs }, (_, glyphId) => glyphs.get(glyphId) ?? new Uint8Array(0));
  const offsets = [0];
  for (const glyph of data) offsets.push(offsets.at(-1)! + glyph.byteLength);
  const mappings = [...characters]
    .map(([character, glyphId]) => [character.codePointAt(0)!, glyphId] as const)
    .sort(([a], [b]) => a - b);
  return fontFile({
    cmap: [
      ...[0, 1, 3, 10].flatMap(uint16), // version, one encoding record: Windows, Unicode full repertoire
      ...uint32(12),
      ...[12, 0].flatMap(uint16), // format 12
      ...[16 + mappings.length * 12, 0, mappings.length].flatMap(uint32),
      ...mappings.flatMap(([codePoint, glyphId]) => [codePoint, codePoint, glyphId].flatMap(uint32)),
    ],
    glyf: data.flatMap((glyph) => [...glyph]),
    head: [
      ...[0x00010000, 0, 0, 0x5f0f3cf5].flatMap(uint32), // version, fontRevision, checkSumAdjustment, magicNumber
      ...[0, 1000].flatMap(uint16), // flags, unitsPerEm
      ...new Array<number>(16).fill(0), // created, modified
      ...[0, 0, 0, 0, 0, 0, 2, 1, 0].flatMap(uint16), // bounding box, macStyle, lowestRecPPEM, fontDirectionHint, indexToLocFormat, glyphDataFormat
    ],
    hhea: [
      ...uint32(0x00010000),
      ...[800, -200, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0].flatMap(uint16), // ascender, descender, ..., caretSlopeRise, ...
      ...uint16(numGlyphs), // numberOfHMetrics
    ],
    hmtx: data.flatMap((_, glyphId) => [ADVANCE_OF_GLYPH_0 + glyphId, 0].flatMap(uint16)),
    loca: offsets.flatMap(uint32),
    maxp: [...uint32(0x00010000), ...uint16(numGlyphs), ...new Array<number>(26).fill(0)],
  });
}

/** The id in the font `syntheticFont` wrote of glyph `glyphId` of `subset`, a subset of it: told by its advance width. */
export function sourceGlyphId(subset: Uint8Array, glyphId: number): number {
  const numGlyphs = tableView(subset, 'maxp').getUint16(4);
  if (glyphId >= numGlyphs) throw new Error(`glyph ${glyphId} is not in the subset (it has ${numGlyphs} glyphs)`);
  return horizontalMetrics(subset, glyphId).advance - ADVANCE_OF_GLYPH_0;
}

/** A font file of `tables`, each 4-byte aligned; checksums are left 0, as neither reader checks them. */
function fontFile(tables: Record<string, number[]>): Uint8Array {
  const tags = Object.keys(tables).sort();
  const directory = [...uint32(0x00010000), ...[tags.length, 0, 0, 0].flatMap(uint16)];
  const data: number[] = [];
  for (const tag of tags) {
    const table = tables[tag]!;
    const offset = 12 + tags.length * 16 + data.length;
    directory.push(
      ...Array.from(tag, (character) => character.charCodeAt(0)),
      ...[0, offset, table.length].flatMap(uint32),
    );
    data.push(...table, ...new Array<number>(-table.length & 3).fill(0));
  }
  return new Uint8Array([...directory, ...data]);
}
