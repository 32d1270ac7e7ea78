import fontkit from '@pdf-lib/fontkit';
import { PDFDict, PDFDocument, PDFName, PDFRawStream, decodePDFRawStream } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { layoutUserReport } from '../../../../shared/domain/reports/pdf/layout-user-report.ts';
import { REPORT_TEMPLATE_VERSION, renderUserReport } from '../../../../shared/domain/reports/pdf/render-user-report.ts';
import { loadReportFonts } from '../../../../shared/domain/reports/pdf/report-fonts.ts';
import { reportTypeface } from '../../../../shared/domain/reports/pdf/report-typeface.ts';
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
    found.push({ name: String(object.get(PDFName.of('FontName'))), font: fontkit.create(decodePDFRawStream(stream).decode()) });
  }
  return found;
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
    expect(names).toEqual([expect.stringMatching(/^\/[A-Z]{6}\+NotoSans-Bold$/), expect.stringMatching(/^\/[A-Z]{6}\+NotoSans-Regular$/)]);
    for (const { font } of embedded) {
      const glyphs = Array.from({ length: font.numGlyphs }, (_, id) => font.getGlyph(id));
      const empty = glyphs.filter((glyph) => glyph.path.toSVG() === '');
      expect(empty.length).toBeLessThanOrEqual(1); // the space
    }
  });

  it('keeps a typical report well under 80 KB', async () => {
    const bytes = await render(typicalUser());

    expect(bytes.byteLength).toBeLessThan(80 * 1024);
  });
});
