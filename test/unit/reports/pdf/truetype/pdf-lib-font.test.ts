import type { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { pdfLibFont } from '../../../../../shared/domain/reports/pdf/truetype/pdf-lib-font.ts';
import { TrueTypeFont } from '../../../../../shared/domain/reports/pdf/truetype/truetype-font.ts';
import { REPORT_FACES, fontkitFont, patched } from './font-file-inspection.ts';

/** The events `stream` emits, in order, until it ends or fails; with the data it carried. */
function eventsOf(stream: EventEmitter): Promise<{ events: string[]; data: Uint8Array[]; error?: unknown }> {
  const events: string[] = [];
  const data: Uint8Array[] = [];
  return new Promise((resolve) => {
    stream
      .on('data', (part: Uint8Array) => {
        events.push('data');
        data.push(part);
      })
      .on('end', () => {
        events.push('end');
        resolve({ events, data });
      })
      .on('error', (error: unknown) => {
        events.push('error');
        resolve({ events, data, error });
      });
  });
}

describe.each(REPORT_FACES)('pdfLibFont, Noto Sans %s', (_face, bytes) => {
  const font = pdfLibFont(new TrueTypeFont(bytes));
  const reference = fontkitFont(bytes);

  it('has fontkit’s values for every member pdf-lib reads when embedding a subset', () => {
    const { minX, minY, maxX, maxY } = reference.bbox;

    expect({
      unitsPerEm: font.unitsPerEm,
      postscriptName: font.postscriptName,
      ascent: font.ascent,
      descent: font.descent,
      capHeight: font.capHeight,
      xHeight: font.xHeight,
      italicAngle: font.italicAngle,
      bbox: font.bbox,
      cff: font.cff,
      familyClass: font['OS/2'].sFamilyClass,
      fixedPitch: font.post.isFixedPitch,
      italic: font.head.macStyle.italic,
    }).toEqual({
      unitsPerEm: reference.unitsPerEm,
      postscriptName: reference.postscriptName,
      ascent: reference.ascent,
      descent: reference.descent,
      capHeight: reference.capHeight,
      xHeight: reference.xHeight,
      italicAngle: reference.italicAngle,
      bbox: { minX, minY, maxX, maxY },
      cff: Boolean(reference.cff),
      familyClass: reference['OS/2'].sFamilyClass,
      fixedPitch: Boolean(reference.post.isFixedPitch),
      italic: reference.head.macStyle.italic,
    });
  });

  it('lays text out one glyph per character, without ligatures, each with its code point and fontkit’s glyph and advance', () => {
    const text = 'office fl Ångström Дмитрий 🙂';

    const { glyphs } = font.layout(text);

    expect(glyphs).toEqual(
      Array.from(text, (character) => {
        const codePoint = character.codePointAt(0)!;
        const glyph = reference.glyphForCodePoint(codePoint);
        return { id: glyph.id, codePoints: [codePoint], advanceWidth: glyph.advanceWidth };
      }),
    );
    expect(glyphs.at(-1)!.id).toBe(0);
  });

  it('numbers subset glyphs from 1 and emits the font file once the caller’s handlers are attached', async () => {
    const subset = font.createSubset();
    const { glyphs } = font.layout('Zoë');

    expect(glyphs.map((glyph) => subset.includeGlyph(glyph))).toEqual([1, 2, 3]);
    const { events, data } = await eventsOf(subset.encodeStream());

    expect(events).toEqual(['data', 'end']);
    const parsed = fontkitFont(data[0]!);
    glyphs.forEach((glyph, index) => {
      expect(parsed.getGlyph(index + 1).path.toSVG()).toBe(reference.getGlyph(glyph.id).path.toSVG());
    });
  });

  it('emits an error when the font cannot be subset', async () => {
    const glyphId = reference.glyphForCodePoint(0x41).id;
    const brokenLoca = patched(bytes, 'loca', (loca) => loca.setUint32((glyphId + 1) * 4, 0xffffffff));
    const broken = pdfLibFont(new TrueTypeFont(brokenLoca));
    const subset = broken.createSubset();
    subset.includeGlyph(broken.layout('A').glyphs[0]!);

    const { events, error } = await eventsOf(subset.encodeStream());

    expect(events).toEqual(['error']);
    expect(String(error)).toMatch(/loca entry of glyph \d+ is out of range/);
  });
});
