import fontkit from '@pdf-lib/fontkit';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, decodePDFRawStream, type PDFPage } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { layoutUserReport } from '../../../../shared/domain/reports/pdf/layout-user-report.ts';
import { REPORT_TEMPLATE_VERSION, renderUserReport } from '../../../../shared/domain/reports/pdf/render-user-report.ts';
import { loadReportFonts } from '../../../../shared/domain/reports/pdf/report-fonts.ts';
import { reportTypeface, type FontWeight } from '../../../../shared/domain/reports/pdf/report-typeface.ts';
import type { UserRecord } from '../../../../shared/domain/users/user-record.ts';
import { GENERATED_AT, JOB_ID, ORGANIZATION_NAME, typicalUser, userWithMatches } from './user-report-fixtures.ts';

const fonts = loadReportFonts();

function render(user: UserRecord, generatedAt = GENERATED_AT): Promise<Uint8Array> {
  return renderUserReport({ user, organizationName: ORGANIZATION_NAME, jobId: JOB_ID, generatedAt, fonts });
}

function pageCountOfLayout(user: UserRecord): number {
  const input = { user, organizationName: ORGANIZATION_NAME, jobId: JOB_ID, generatedAt: GENERATED_AT };
  return layoutUserReport({ ...input, templateVersion: REPORT_TEMPLATE_VERSION }, reportTypeface(fonts)).pages.length;
}

/** The embedded font programs of a PDF, parsed back with fontkit. */
async function embeddedFonts(bytes: Uint8Array): Promise<{ name: string; font: ReturnType<typeof fontkit.create> }[]> {
  const doc = await PDFDocument.load(bytes);
  const found: { name: string; font: ReturnType<typeof fontkit.create> }[] = [];
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict) || object.get(PDFName.of('Type')) !== PDFName.of('FontDescriptor')) continue;
    const stream = object.lookup(PDFName.of('FontFile2'));
    if (!(stream instanceof PDFRawStream)) throw new Error('font descriptor without a TrueType font program');
    found.push({
      name: String(object.get(PDFName.of('FontName'))),
      font: fontkit.create(decodePDFRawStream(stream).decode()),
    });
  }
  return found;
}

type FontkitFont = ReturnType<typeof fontkit.create>;

/** A font resource of a page as a reader sees it: which face, its glyph to text map, its font program. */
interface PageFont {
  weight: FontWeight;
  toUnicode: Map<number, string>;
  program: FontkitFont;
}

function streamBytes(stream: unknown): Uint8Array {
  if (!(stream instanceof PDFRawStream)) throw new Error('expected a stream');
  return decodePDFRawStream(stream).decode();
}

function decodedStream(stream: unknown): string {
  return Buffer.from(streamBytes(stream)).toString('latin1');
}

function pageFonts(page: PDFPage): Map<string, PageFont> {
  const fonts = new Map<string, PageFont>();
  const resources = page.node.Resources()!.lookup(PDFName.of('Font'), PDFDict);
  for (const [key, ref] of resources.entries()) {
    const font = page.doc.context.lookup(ref, PDFDict);
    const baseFont = font.lookup(PDFName.of('BaseFont'), PDFName).decodeText();
    const toUnicode = new Map<number, string>();
    for (const [, glyph, text] of decodedStream(font.lookup(PDFName.of('ToUnicode'))).matchAll(
      /<([0-9a-f]+)> <([0-9a-f]+)>/gi,
    )) {
      toUnicode.set(
        Number.parseInt(glyph!, 16),
        String.fromCharCode(...text!.match(/.{4}/g)!.map((unit) => Number.parseInt(unit, 16))),
      );
    }
    const descriptor = font
      .lookup(PDFName.of('DescendantFonts'), PDFArray)
      .lookup(0, PDFDict)
      .lookup(PDFName.of('FontDescriptor'), PDFDict);
    fonts.set(key.asString(), {
      weight: baseFont.endsWith('NotoSans-Bold') ? 'bold' : 'regular',
      toUnicode,
      program: fontkit.create(streamBytes(descriptor.lookup(PDFName.of('FontFile2')))),
    });
  }
  return fonts;
}

/** The strings a page shows, in order: the font resource each is shown in and its glyph ids. */
function shownStrings(page: PDFPage): { font: string; glyphIds: number[] }[] {
  const contents = page.node.Contents();
  const streams =
    contents instanceof PDFArray ? contents.asArray().map((ref) => page.doc.context.lookup(ref)) : [contents];
  const shown: { font: string; glyphIds: number[] }[] = [];
  let font = '';
  for (const [, fontKey, hex] of streams
    .map(decodedStream)
    .join('\n')
    .matchAll(/(\/F\d+) [\d.]+ Tf|<([0-9A-Fa-f]*)> Tj/g)) {
    if (fontKey) font = fontKey;
    else shown.push({ font, glyphIds: (hex!.match(/.{4}/g) ?? []).map((id) => Number.parseInt(id, 16)) });
  }
  return shown;
}

describe('renderUserReport', () => {
  it('renders a typical user as a two-page A4 PDF', async () => {
    const doc = await PDFDocument.load(await render(typicalUser()));

    expect(doc.getPageCount()).toBe(2);
    for (const page of doc.getPages()) {
      expect(page.getSize()).toEqual({ width: 595.28, height: 841.89 });
    }
  });

  it('has as many pages as its layout, growing with the number of screening matches', async () => {
    const user = userWithMatches(60, 5);

    const doc = await PDFDocument.load(await render(user));

    expect(doc.getPageCount()).toBe(pageCountOfLayout(user));
    expect(doc.getPageCount()).toBeGreaterThan(10);
  });

  it('records title, author, subject, keywords, creator, producer and both dates from generatedAt', async () => {
    const doc = await PDFDocument.load(await render(typicalUser()), { updateMetadata: false });

    expect(doc.getTitle()).toBe('User status report: user usr-0001');
    expect(doc.getAuthor()).toBe(ORGANIZATION_NAME);
    expect(doc.getSubject()).toContain(JOB_ID);
    expect(doc.getKeywords()).toContain(REPORT_TEMPLATE_VERSION);
    expect(doc.getCreator()).toBe('Onboarding reports service');
    expect(doc.getProducer()).toBe(`Onboarding reports service, template ${REPORT_TEMPLATE_VERSION}`);
    expect(doc.getCreationDate()).toEqual(GENERATED_AT);
    expect(doc.getModificationDate()).toEqual(GENERATED_AT);
  });

  it('gives byte-identical output for the same input and clock, whatever was rendered before', async () => {
    const first = await render(typicalUser());
    await render({ ...userWithMatches(12, 3), name: 'Ζωή Παπαδοπούλου 山田太郎 Дмитрий' });
    const again = await render(typicalUser());

    expect(Buffer.from(again).equals(Buffer.from(first))).toBe(true);
  });

  it('gives the same bytes when renders run concurrently', async () => {
    const sequential = [await render(typicalUser()), await render(userWithMatches(20))];

    const concurrent = await Promise.all([render(typicalUser()), render(userWithMatches(20))]);

    expect(concurrent.map((bytes) => Buffer.from(bytes).toString('base64'))).toEqual(
      sequential.map((bytes) => Buffer.from(bytes).toString('base64')),
    );
  });

  it('gives different output for a different generatedAt', async () => {
    const first = await render(typicalUser());
    const later = await render(typicalUser(), new Date('2026-11-03T14:05:10.000Z'));

    expect(Buffer.from(later).equals(Buffer.from(first))).toBe(false);
  });

  it('renders Greek, Cyrillic and accented Latin names', async () => {
    const user = typicalUser({
      name: 'Ζωή Παπαδοπούλου',
      first_name: 'Дмитрий',
      last_name: 'Шостакович',
      middle_name: 'Zoë Ångström-Núñez',
      guardian_name: 'Łukasz Żółć, Çağrı Şeker, François Dvořák',
    });

    const doc = await PDFDocument.load(await render(user));

    expect(doc.getPageCount()).toBe(2);
    const typeface = reportTypeface(fonts);
    for (const name of [user.name, user.first_name, user.last_name, user.middle_name, user.guardian_name]) {
      expect(typeface.printable(name ?? '')).toBe(name);
    }
  });

  it('renders characters the font lacks (CJK, emoji) as "?" instead of failing', async () => {
    const user = typicalUser({ name: '山田太郎', first_name: 'Tarō 🙂', override_notes: '审核通过\u200b.' });

    const doc = await PDFDocument.load(await render(user));

    expect(doc.getPageCount()).toBe(2);
    const typeface = reportTypeface(fonts);
    expect(typeface.printable('山田太郎')).toBe('????');
    expect(typeface.printable('Tarō 🙂')).toBe('Tarō ?');
    expect(typeface.printable('审核通过\u200b.')).toBe('????.');
  });

  it('embeds subset fonts named by a six-letter tag, every glyph of which is intact', async () => {
    const embedded = await embeddedFonts(await render(userWithMatches(8, 2)));

    const names = embedded.map(({ name }) => name).sort();
    expect(names).toEqual([
      expect.stringMatching(/^\/[A-Z]{6}\+NotoSans-Bold$/),
      expect.stringMatching(/^\/[A-Z]{6}\+NotoSans-Regular$/),
    ]);
    for (const { font } of embedded) {
      const glyphs = Array.from({ length: font.numGlyphs }, (_, id) => font.getGlyph(id));
      const empty = glyphs.filter((glyph) => glyph.path.toSVG() === '');
      expect(empty.length).toBeLessThanOrEqual(1); // the space
    }
  });

  it('shows each laid-out text in its face, with the glyph of each character, mapped back to the text', async () => {
    const user = typicalUser({
      name: 'Ζωή Παπαδοπούλου',
      first_name: 'Дмитрий',
      middle_name: 'Zoë Ångström-Núñez',
      guardian_name: 'Łukasz Żółć, Çağrı Şeker, François Dvořák, Erdős Pál',
      override_notes: '审核通过 🙂',
    });
    await render(userWithMatches(3, 1)); // glyphs another report used before must leave no trace
    const layout = layoutUserReport(
      {
        user,
        organizationName: ORGANIZATION_NAME,
        jobId: JOB_ID,
        generatedAt: GENERATED_AT,
        templateVersion: REPORT_TEMPLATE_VERSION,
      },
      reportTypeface(fonts),
    );
    const originals = {
      regular: fontkit.create(Buffer.from(fonts.regular)),
      bold: fontkit.create(Buffer.from(fonts.bold)),
    };

    const doc = await PDFDocument.load(await render(user));

    expect(doc.getPageCount()).toBe(layout.pages.length);
    doc.getPages().forEach((page, pageIndex) => {
      const fontsOfPage = pageFonts(page);
      const shown = shownStrings(page).map(({ font, glyphIds }) => {
        const { weight, toUnicode, program } = fontsOfPage.get(font)!;
        return {
          weight,
          text: glyphIds.map((glyphId) => toUnicode.get(glyphId)).join(''),
          outlines: glyphIds.map((glyphId) => program.getGlyph(glyphId).path.toSVG()),
        };
      });
      const expected = layout.pages[pageIndex]!.texts.map(({ weight, text }) => ({
        weight,
        text,
        outlines: Array.from(text, (character) =>
          originals[weight].glyphForCodePoint(character.codePointAt(0)!).path.toSVG(),
        ),
      }));
      expect(shown).toEqual(expected);
    });
  });

  it('keeps a typical report well under 80 KB', async () => {
    const bytes = await render(typicalUser());

    expect(bytes.byteLength).toBeLessThan(80 * 1024);
  });
});
