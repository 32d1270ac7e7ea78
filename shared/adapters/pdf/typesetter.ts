import bidiFactory from 'bidi-js';
import { FontFaces, type FontFace } from './font-faces.ts';
import type { FontWeight, ReportFontFamily, ReportFonts } from './report-fonts.ts';

/** One glyph as drawn: advance and offsets in thousandths of an em, and the text it stands for. */
export interface ShapedGlyph {
  id: number;
  advance: number;
  xOffset: number;
  yOffset: number;
  text: string;
}

/** Glyphs of one face, in visual (left to right) order. */
export interface ShapedRun {
  face: FontFace;
  glyphs: ShapedGlyph[];
  /**
   * The run's text, when its glyphs do not read back as it one by one from left to right (shaping
   * reordered or merged them, as Devanagari does, or a character has no glyph): the renderer adds
   * it as `/ActualText`. Right-to-left runs have none: their glyphs are in visual order, each mapped
   * to its characters, and readers (pdftotext, viewers) turn visual order back into logical order,
   * as for any PDF with Arabic or Hebrew text.
   */
  actualText?: string;
}

export interface ShapedLine {
  /** Runs in visual order. */
  runs: ShapedRun[];
  /** Sum of the advances, in thousandths of an em. */
  advance: number;
}

/** Direction of a paragraph: set by its first strong character (Unicode Bidirectional Algorithm, rules P2–P3). */
export type TextDirection = 'ltr' | 'rtl';

/** Reports a character no shipped font has (it is drawn as the missing-glyph box). */
export type MissingGlyphListener = (codePoint: number) => void;

const bidi = bidiFactory();
const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/**
 * Characters drawn glyph by glyph from Noto Sans without shaping: Latin, Greek and Cyrillic letters
 * (precomposed, after NFC), digits and common punctuation. Text made only of these, in a face that
 * has them all, is laid out by adding advances, which keeps a Latin report fast; anything else goes
 * through fontkit's OpenType shaping.
 */
const SIMPLE =
  /^[\u0020-\u007e\u00a0-\u02af\u0370-\u03ff\u0400-\u052f\u1e00-\u1fff\u2010-\u2027\u2030-\u205e\u20a0-\u20c0\u2100-\u214f]*$/u;
const DROPPED_ALL = /[\p{Cc}\p{Cf}]/gu;
/** Zero-width joiner and non-joiner steer shaping (Arabic, Indic): kept. */
const KEPT_FORMAT = /[\u200c\u200d]/u;
const SPACES = /\s/gu;

const SCRIPT_FAMILY: Array<[RegExp, ReportFontFamily | 'han']> = [
  [/\p{Script=Arabic}/u, 'arabic'],
  [/\p{Script=Hebrew}/u, 'hebrew'],
  [/\p{Script=Devanagari}/u, 'devanagari'],
  [/\p{Script=Thai}/u, 'thai'],
  [/\p{Script=Hangul}/u, 'kr'],
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'jp'],
  [/\p{Script=Bopomofo}/u, 'tc'],
  [/\p{Script=Han}/u, 'han'],
];
const NEUTRAL = /[\p{Script=Common}\p{Script=Inherited}]/u;
/** Neutral characters used by one script group (Arabic comma, Devanagari danda, ...): their faces. */
const EXTENSION_FAMILY: Array<[RegExp, ReportFontFamily | 'han']> = [
  [/\p{Script_Extensions=Arabic}/u, 'arabic'],
  [/\p{Script_Extensions=Hebrew}/u, 'hebrew'],
  [/\p{Script_Extensions=Devanagari}/u, 'devanagari'],
  [/\p{Script_Extensions=Thai}/u, 'thai'],
  [
    /[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}\p{Script_Extensions=Hangul}]/u,
    'han',
  ],
];
/** CJK punctuation, full-width forms and the like: drawn with the CJK face of the text. */
const CJK_SYMBOL = /[\u2e80-\u2fff\u3000-\u303f\u31c0-\u31ef\u3200-\u33ff\ufe30-\ufe4f\uff00-\uffef]/u;
const HAN_FAMILIES: ReportFontFamily[] = ['sc', 'tc', 'jp', 'kr'];
const CJK_FAMILIES = new Set<ReportFontFamily>(HAN_FAMILIES);
const MARK = /[\p{M}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff]/u;

/**
 * Cleans, measures and shapes report text, choosing a face per character (per script, with
 * fallbacks), resolving direction with the Unicode Bidirectional Algorithm (bidi-js) and shaping
 * with fontkit. One per render: it caches shaped text, which both layout and painting use.
 */
export class Typesetter {
  readonly faces: FontFaces;
  private readonly shaped = new Map<string, ShapedLine>();
  private readonly reported = new Set<number>();

  constructor(
    fonts: ReportFonts,
    private readonly onMissingGlyph: MissingGlyphListener = () => {},
  ) {
    this.faces = new FontFaces(fonts);
  }

  /** Whether any text set so far has a character no shipped font has (drawn as `.notdef`). */
  get drewMissingGlyph(): boolean {
    return this.reported.size > 0;
  }

  /**
   * `text` as it is drawn: NFC, white space as plain spaces, control and format characters dropped
   * (but the joiners shaping needs). Characters no face has stay: they are drawn as the box.
   */
  printable(text: string): string {
    return text
      .normalize('NFC')
      .replace(SPACES, ' ')
      .replace(DROPPED_ALL, (character) => (KEPT_FORMAT.test(character) ? character : ''));
  }

  /** Width in points of printable `text` at `size`. */
  width(text: string, weight: FontWeight, size: number): number {
    // Plain text is measured by adding advances, without building its glyph run (layout measures
    // every piece between two break opportunities).
    if (SIMPLE.test(text)) {
      const latin = this.faces.get('latin', weight);
      let advance = 0;
      for (const character of text) {
        const id = latin.glyphId(character.codePointAt(0) ?? 0);
        if (id === 0) return (this.shape(text, weight).advance * size) / 1000;
        advance += latin.advance(id);
      }
      return (advance * size) / 1000;
    }
    return (this.shape(text, weight).advance * size) / 1000;
  }

  /**
   * The direction of a paragraph of printable text: right to left when its first strong character
   * is (Hebrew, Arabic, ...). Left to right when it has none.
   */
  direction(paragraph: string): TextDirection {
    if (SIMPLE.test(paragraph)) return 'ltr';
    return bidi.getEmbeddingLevels(paragraph, 'auto').paragraphs[0]?.level === 1 ? 'rtl' : 'ltr';
  }

  /**
   * One line of printable text, shaped, in visual order. `direction` is the direction of the
   * paragraph the line was broken from: a line of a right-to-left paragraph keeps it even where
   * it starts with digits or Latin, and its neutrals (a final full stop, brackets) are placed
   * right to left. Without it the line is a paragraph of its own.
   */
  shape(text: string, weight: FontWeight, direction?: TextDirection): ShapedLine {
    // Keyed by the direction it resolves to: a right-to-left line measured (no direction) and
    // painted (its paragraph's direction) is shaped once.
    const resolved = direction ?? this.direction(text);
    const key = `${weight}\u0000${resolved}\u0000${text}`;
    let line = this.shaped.get(key);
    if (!line) {
      line = this.shapeLine(text, weight, resolved);
      this.shaped.set(key, line);
    }
    return line;
  }

  private shapeLine(text: string, weight: FontWeight, direction: TextDirection): ShapedLine {
    const latin = this.faces.get('latin', weight);
    if (direction !== 'rtl' && SIMPLE.test(text) && allIn(latin, text)) {
      const run = simpleRun(latin, text);
      return { runs: [run], advance: advanceOf(run) };
    }
    const { levels } = bidi.getEmbeddingLevels(text, direction);
    const mirrored = bidi.getMirroredCharactersMap(text, levels);
    const runs = this.logicalRuns(text, weight, levels);
    const visual = reorder(runs).map((run) => this.shapeRun(run, text, mirrored));
    return { runs: visual, advance: visual.reduce((sum, run) => sum + advanceOf(run), 0) };
  }

  /** Consecutive graphemes of one face and one embedding level. */
  private logicalRuns(text: string, weight: FontWeight, levels: Uint8Array): LogicalRun[] {
    const hanFamily = hanFamilyFor(text);
    const runs: LogicalRun[] = [];
    let previous: FontFace | undefined;
    for (const { segment, index } of graphemes.segment(text)) {
      const face = this.faceFor(segment, weight, previous, hanFamily);
      const missing = face === undefined;
      const level = levels[index] ?? 0;
      const drawnWith = face ?? this.faces.get('latin', weight);
      const last = runs.at(-1);
      if (last && !missing && !last.missing && last.face === drawnWith && last.level === level) {
        last.end = index + segment.length;
      } else {
        runs.push({ face: drawnWith, level, start: index, end: index + segment.length, missing });
      }
      if (missing) this.reportMissing(segment);
      else previous = face;
    }
    return runs;
  }

  /** The face for one grapheme, by the script of its first character; undefined when no face has it. */
  private faceFor(
    grapheme: string,
    weight: FontWeight,
    previous: FontFace | undefined,
    hanFamily: ReportFontFamily,
  ): FontFace | undefined {
    const codePoint = grapheme.codePointAt(0) ?? 0;
    const character = String.fromCodePoint(codePoint);
    const has = (face: FontFace): boolean => Array.from(grapheme).every((c) => face.has(c.codePointAt(0) ?? 0));
    // Faces are read on first use: a later family is loaded only when the earlier ones lack the character.
    const first = (families: ReportFontFamily[]): FontFace | undefined => {
      for (const family of families) {
        const face = this.faces.get(family, weight);
        if (has(face)) return face;
      }
      return undefined;
    };
    const script = SCRIPT_FAMILY.find(([pattern]) => pattern.test(character))?.[1];
    if (script === 'han') return first([hanFamily, ...HAN_FAMILIES.filter((family) => family !== hanFamily)]);
    if (script) return first([script]);
    if (NEUTRAL.test(character)) {
      // Digits, spaces and punctuation go with the text around them where its face has them.
      if (previous && has(previous)) return previous;
      const extension = EXTENSION_FAMILY.find(([pattern]) => pattern.test(character))?.[1];
      const families: ReportFontFamily[] = extension === 'han' ? [hanFamily] : extension ? [extension] : [];
      if (CJK_SYMBOL.test(character)) families.push(hanFamily);
      return first([...families, 'latin']);
    }
    return first(['latin']);
  }

  private reportMissing(grapheme: string): void {
    for (const character of grapheme) {
      const codePoint = character.codePointAt(0) ?? 0;
      if (this.reported.has(codePoint)) continue;
      this.reported.add(codePoint);
      this.onMissingGlyph(codePoint);
    }
  }

  private shapeRun(run: LogicalRun, text: string, mirrored: Map<number, string>): ShapedRun {
    const { face } = run;
    const source = text.slice(run.start, run.end);
    if (run.missing) {
      // One box per grapheme: fontkit's .notdef is glyph 0 in every face.
      const glyphs = Array.from(graphemes.segment(source), ({ segment }) => ({
        id: 0,
        advance: face.advance(0),
        xOffset: 0,
        yOffset: 0,
        text: segment,
      }));
      return { face, glyphs, actualText: source };
    }
    const rtl = run.level % 2 === 1;
    if (!rtl && face.family === 'latin' && SIMPLE.test(source)) return simpleRun(face, source);
    // Horizontal CJK needs no shaping (one glyph per character, no marks): the large CJK faces'
    // substitution tables are then never parsed, which keeps a cold render fast.
    if (!rtl && CJK_FAMILIES.has(face.family) && !MARK.test(source)) return simpleRun(face, source);
    let input = '';
    for (let index = run.start; index < run.end; index++) input += mirrored.get(index) ?? text[index];
    const layout = face.font.layout(input, undefined, undefined, undefined, rtl ? 'rtl' : 'ltr');
    const texts = glyphTexts(
      layout.glyphs.map((glyph) => glyph.codePoints ?? []),
      // Right to left, a mirrored bracket reads as the bracket it shows.
      rtl ? input : source,
      rtl,
    );
    const glyphs = layout.glyphs.map((glyph, index) => {
      const position = layout.positions[index]!;
      return {
        id: glyph.id,
        advance: face.scale(position.xAdvance),
        xOffset: face.scale(position.xOffset),
        yOffset: face.scale(position.yOffset),
        text: texts[index]!,
      };
    });
    // Left to right, glyphs that do not read back as the text one by one, or marks placed by
    // offsets (Thai vowels and tone marks, Indic matras: a reader sorting glyphs by position would
    // misplace them), are read from /ActualText instead.
    const positioned = glyphs.some((glyph) => glyph.xOffset !== 0 || glyph.yOffset !== 0 || glyph.advance === 0);
    if (rtl || (texts.join('') === source && !positioned)) return { face, glyphs };
    return { face, glyphs, actualText: source };
  }
}

/**
 * The text each glyph of a shaped run stands for. Left to right: the characters fontkit says it
 * was shaped from (a run whose glyphs then do not read back as its text gets `/ActualText`).
 * Right to left (glyphs in visual order): the run's characters handed out in logical order, as
 * many to each glyph as it was shaped from (a lam-alef ligature takes two, a mark split off its
 * base none), so the glyphs always read back as the stored text; a ligature's characters are given
 * in visual order, as a reader reverses right-to-left text character by character. (fontkit names
 * the character a glyph was decomposed from after the decomposition: sheen's base reads as seen.)
 */
function glyphTexts(codePointsOfGlyphs: number[][], source: string, rtl: boolean): string[] {
  if (!rtl) return codePointsOfGlyphs.map((codePoints) => String.fromCodePoint(...codePoints));
  const characters = Array.from(source);
  const texts: string[] = codePointsOfGlyphs.map(() => '');
  let next = 0;
  for (let index = codePointsOfGlyphs.length - 1; index >= 0; index--) {
    const count = codePointsOfGlyphs[index]!.length;
    if (count === 0) continue;
    texts[index] = characters
      .slice(next, next + count)
      .reverse()
      .join('');
    next += count;
  }
  if (next < characters.length && texts.length > 0) {
    texts[0] = characters.slice(next).reverse().join('') + texts[0];
  }
  return texts;
}

interface LogicalRun {
  face: FontFace;
  level: number;
  start: number;
  end: number;
  /** Characters no face has: drawn as boxes. */
  missing: boolean;
}

/**
 * Runs in visual order (rule L2 of the bidi algorithm, applied to whole runs): from the highest
 * level down to the lowest odd one, every maximal sequence of runs at that level or higher is reversed.
 */
function reorder(runs: LogicalRun[]): LogicalRun[] {
  const ordered = [...runs];
  const levels = ordered.map((run) => run.level);
  const highest = Math.max(0, ...levels);
  const lowestOdd = Math.min(...levels.filter((level) => level % 2 === 1), highest + 1);
  for (let level = highest; level >= lowestOdd; level--) {
    let start = 0;
    while (start < ordered.length) {
      if (ordered[start]!.level < level) {
        start++;
        continue;
      }
      let end = start;
      while (end < ordered.length && ordered[end]!.level >= level) end++;
      ordered.splice(start, end - start, ...ordered.slice(start, end).reverse());
      start = end;
    }
  }
  return ordered;
}

/** The CJK face for the Han characters of `text`: Japanese beside kana, Korean beside Hangul, else Simplified Chinese. */
function hanFamilyFor(text: string): ReportFontFamily {
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) return 'jp';
  if (/\p{Script=Hangul}/u.test(text)) return 'kr';
  if (/\p{Script=Bopomofo}/u.test(text)) return 'tc';
  return 'sc';
}

function allIn(face: FontFace, text: string): boolean {
  for (const character of text) if (!face.has(character.codePointAt(0) ?? 0)) return false;
  return true;
}

function simpleRun(face: FontFace, text: string): ShapedRun {
  const glyphs: ShapedGlyph[] = [];
  for (const character of text) {
    const id = face.glyphId(character.codePointAt(0) ?? 0);
    glyphs.push({ id, advance: face.advance(id), xOffset: 0, yOffset: 0, text: character });
  }
  return { face, glyphs };
}

function advanceOf(run: ShapedRun): number {
  let sum = 0;
  for (const glyph of run.glyphs) sum += glyph.advance;
  return sum;
}
