import { describe, expect, it } from 'vitest';
import { TrueTypeFont } from '../../../../../shared/domain/reports/pdf/truetype/truetype-font.ts';
import { TrueTypeSubset } from '../../../../../shared/domain/reports/pdf/truetype/truetype-subset.ts';
import { fontkitFont, glyphBytes, tableView } from './font-file-inspection.ts';
import {
  ARG_1_AND_2_ARE_WORDS as WORDS,
  ARGS_ARE_XY_VALUES as XY,
  WE_HAVE_AN_X_AND_Y_SCALE,
  WE_HAVE_A_SCALE,
  WE_HAVE_A_TWO_BY_TWO,
  compositeGlyph,
  simpleGlyph,
  sourceGlyphId,
  syntheticFont,
  type CompositeGlyph,
} from './synthetic-font.ts';

/**
 * Composite glyph records in the layouts Noto Sans does not use, in a synthetic font. Each record
 * has a component of the layout under test followed by another, so a layout whose size is
 * misjudged misplaces the next component's glyph id. The glyph ids are well above those of the
 * subsets (1 to 5), so that a component id left unrewritten names no glyph of the subset; the empty
 * glyphs below them turn most ids misread from other fields into glyphs the subset should not hold.
 */

const SQUARE = 200;
const TRIANGLE = 201;
const ARROW = 202;
const INNER = 203;
const BYTE_ARGUMENTS = 210;
const SCALE = 211;
const X_AND_Y_SCALE = 212;
const TWO_BY_TWO = 213;
const INSTRUCTIONS = 214;
const OUTER = 215;

const SIMPLE_GLYPHS = new Map([
  [
    SQUARE,
    simpleGlyph([
      [0, 0],
      [400, 0],
      [400, 400],
      [0, 400],
    ]),
  ],
  [
    TRIANGLE,
    simpleGlyph([
      [0, 0],
      [300, 0],
      [150, 500],
    ]),
  ],
  [
    ARROW,
    simpleGlyph([
      [0, 100],
      [200, 100],
      [200, 0],
      [350, 200],
      [200, 400],
      [200, 300],
      [0, 300],
    ]),
  ],
]);

const COMPOSITES = new Map<number, CompositeGlyph>([
  [
    BYTE_ARGUMENTS,
    compositeGlyph([
      { glyphId: TRIANGLE, flags: XY, args: [-20, 90] },
      { glyphId: SQUARE, flags: XY | WORDS, args: [300, -400] },
    ]),
  ],
  [
    SCALE,
    compositeGlyph([
      { glyphId: SQUARE, flags: XY | WORDS | WE_HAVE_A_SCALE, args: [150, 0], transform: [0.5] },
      { glyphId: TRIANGLE, flags: XY, args: [10, 10] },
    ]),
  ],
  [
    X_AND_Y_SCALE,
    compositeGlyph([
      { glyphId: TRIANGLE, flags: XY | WE_HAVE_AN_X_AND_Y_SCALE, args: [5, -5], transform: [1.5, -0.25] },
      { glyphId: ARROW, flags: XY | WORDS, args: [500, 600] },
    ]),
  ],
  [
    TWO_BY_TWO,
    compositeGlyph([
      { glyphId: ARROW, flags: XY | WORDS | WE_HAVE_A_TWO_BY_TWO, args: [200, 100], transform: [0, 1, -1, 0.75] },
      { glyphId: SQUARE, flags: XY, args: [0, 0] },
    ]),
  ],
  [
    INSTRUCTIONS,
    compositeGlyph(
      [
        { glyphId: SQUARE, flags: XY | WORDS, args: [-100, 50] },
        { glyphId: TRIANGLE, flags: XY | WE_HAVE_A_SCALE, args: [12, 34], transform: [0.75] },
      ],
      [0xb0, 0x01, 0x21], // PUSHB[0] 1, POP: an odd length, so the record is too
    ),
  ],
  [
    INNER,
    compositeGlyph([
      { glyphId: SQUARE, flags: XY | WE_HAVE_A_SCALE, args: [-30, 40], transform: [0.5] },
      {
        glyphId: TRIANGLE,
        flags: XY | WORDS | WE_HAVE_A_TWO_BY_TWO,
        args: [700, -50],
        transform: [0.5, 0.25, -0.25, 0.5],
      },
    ]),
  ],
  [
    OUTER,
    compositeGlyph([
      { glyphId: INNER, flags: XY | WE_HAVE_AN_X_AND_Y_SCALE, args: [100, -100], transform: [1.25, 0.75] },
      { glyphId: ARROW, flags: XY | WORDS, args: [-1000, 0] },
    ]),
  ],
]);

const CHARACTERS = new Map([
  ['b', BYTE_ARGUMENTS],
  ['s', SCALE],
  ['x', X_AND_Y_SCALE],
  ['t', TWO_BY_TWO],
  ['i', INSTRUCTIONS],
  ['n', INNER],
  ['N', OUTER],
]);

const FONT = syntheticFont(
  new Map([...SIMPLE_GLYPHS, ...[...COMPOSITES].map(([glyphId, { data }]) => [glyphId, data] as const)]),
  CHARACTERS,
);
const reference = fontkitFont(FONT);

/** The subset of the glyphs of `text`, as a PDF's text would make it. */
function subsetFile(text: string): Uint8Array {
  const font = new TrueTypeFont(FONT);
  const subset = new TrueTypeSubset(font);
  for (const character of text) subset.includeGlyph(font.glyphIdForCodePoint(character.codePointAt(0)!));
  return subset.encode();
}

/** The glyph ids of the subset `file`, 0 up. */
function subsetGlyphIds(file: Uint8Array): number[] {
  return Array.from({ length: tableView(file, 'maxp').getUint16(4) }, (_, glyphId) => glyphId);
}

/** How many contours glyph `glyphId` draws: one per simple glyph it is made of. */
function contourCount(glyphId: number): number {
  const composite = COMPOSITES.get(glyphId);
  return composite ? composite.components.reduce((count, component) => count + contourCount(component.glyphId), 0) : 1;
}

describe('the synthetic font', () => {
  it('is read by fontkit as its builder meant: each composite drawn as all the simple glyphs it is made of', () => {
    for (const glyphId of COMPOSITES.keys()) {
      expect(reference.getGlyph(glyphId).path.toSVG().match(/Z/g), `glyph ${glyphId}`).toHaveLength(
        contourCount(glyphId),
      );
    }
    expect(reference.getGlyph(BYTE_ARGUMENTS).path.toSVG()).toMatch(/^M-20 90L280 90L130 590Z/);
    expect(reference.getGlyph(SCALE).path.toSVG()).toMatch(/^M150 0L350 0L350 200L150 200Z/);
  });
});

describe.each([
  ['byte-sized arguments (ARG_1_AND_2_ARE_WORDS clear)', 'b', [BYTE_ARGUMENTS, TRIANGLE, SQUARE]],
  ['WE_HAVE_A_SCALE', 's', [SCALE, SQUARE, TRIANGLE]],
  ['WE_HAVE_AN_X_AND_Y_SCALE and byte-sized arguments', 'x', [X_AND_Y_SCALE, TRIANGLE, ARROW]],
  ['WE_HAVE_A_TWO_BY_TWO', 't', [TWO_BY_TWO, ARROW, SQUARE]],
  ['WE_HAVE_INSTRUCTIONS after the last component', 'i', [INSTRUCTIONS, SQUARE, TRIANGLE]],
  ['a composite component (two levels of nesting)', 'N', [OUTER, INNER, ARROW, SQUARE, TRIANGLE]],
  ['a composite component the text also uses', 'nN', [INNER, OUTER, SQUARE, TRIANGLE, ARROW]],
])('subsetting a composite glyph with %s', (_layout, text, glyphIds) => {
  it('holds the glyphs of the text and every glyph they are made of, directly or through other composites, and no other', () => {
    const file = subsetFile(text);

    const sources = subsetGlyphIds(file).map((glyphId) => sourceGlyphId(file, glyphId));

    expect(sources.slice(0, text.length + 1)).toEqual([0, ...glyphIds.slice(0, text.length)]);
    expect([...sources].sort((a, b) => a - b)).toEqual([0, ...glyphIds].sort((a, b) => a - b));
  });

  it('rewrites each component’s glyph id to that glyph’s id in the subset, leaving every other byte of the record as it was', () => {
    const file = subsetFile(text);
    let composites = 0;

    for (const glyphId of subsetGlyphIds(file)) {
      const original = COMPOSITES.get(sourceGlyphId(file, glyphId));
      if (!original) continue;
      composites += 1;
      const copy = new Uint8Array(glyphBytes(file, glyphId));
      const view = new DataView(copy.buffer);
      for (const component of original.components) {
        expect(
          sourceGlyphId(file, view.getUint16(component.offset)),
          `component at byte ${component.offset} of glyph ${glyphId}`,
        ).toBe(component.glyphId);
        view.setUint16(component.offset, component.glyphId);
      }
      const padded = new Uint8Array((original.data.byteLength + 3) & ~3);
      padded.set(original.data);
      expect(Array.from(copy), `glyph ${glyphId} with its original component ids`).toEqual(Array.from(padded));
    }
    expect(composites).toBe(glyphIds.filter((glyphId) => COMPOSITES.has(glyphId)).length);
  });

  it('is read back by fontkit with the outline of every glyph as in the font', () => {
    const file = subsetFile(text);
    const parsed = fontkitFont(file);

    for (const glyphId of subsetGlyphIds(file)) {
      const source = sourceGlyphId(file, glyphId);
      expect(parsed.getGlyph(glyphId).path.toSVG(), `glyph ${glyphId}, ${source} in the font`).toBe(
        reference.getGlyph(source).path.toSVG(),
      );
    }
  });
});
