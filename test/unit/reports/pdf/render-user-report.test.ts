import * as fontkit from 'fontkit';
import { PDFDict, PDFDocument, PDFName, PDFRawStream, decodePDFRawStream } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { layoutUserReport } from '#shared/adapters/pdf/layout-user-report.ts';
import { REPORT_TEMPLATE_VERSION, renderUserReport } from '#shared/adapters/pdf/render-user-report.ts';
import { loadReportFonts, type ReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import { Typesetter } from '#shared/adapters/pdf/typesetter.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { squashed, textLines, wordBoxes } from './pdf-text.ts';
import { CONTENT_RIGHT, PAGE } from '#shared/adapters/pdf/report-style.ts';
import {
  GENERATED_AT,
  JOB_ID,
  ORGANIZATION_NAME,
  hebrewDemoUser,
  multiScriptUser,
  typicalUser,
  userWithMatches,
} from './user-report-fixtures.ts';

const fonts = loadReportFonts();

function render(user: UserRecord, generatedAt = GENERATED_AT, with_: ReportFonts = fonts): Promise<Uint8Array> {
  return renderUserReport({ user, organizationName: ORGANIZATION_NAME, jobId: JOB_ID, generatedAt, fonts: with_ });
}

function pageCountOfLayout(user: UserRecord): number {
  const input = { user, organizationName: ORGANIZATION_NAME, jobId: JOB_ID, generatedAt: GENERATED_AT };
  return layoutUserReport({ ...input, templateVersion: REPORT_TEMPLATE_VERSION }, new Typesetter(fonts)).pages.length;
}

/** The embedded font programs of a PDF, parsed back with fontkit. */
async function embeddedFonts(bytes: Uint8Array): Promise<{ name: string; font: fontkit.Font }[]> {
  const doc = await PDFDocument.load(bytes);
  const found: { name: string; font: fontkit.Font }[] = [];
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict) || object.get(PDFName.of('Type')) !== PDFName.of('FontDescriptor')) continue;
    const stream = object.lookup(PDFName.of('FontFile2'));
    if (!(stream instanceof PDFRawStream)) throw new Error('font descriptor without a TrueType font program');
    found.push({
      name: String(object.get(PDFName.of('FontName'))),
      font: fontkit.create(Buffer.from(decodePDFRawStream(stream).decode())) as fontkit.Font,
    });
  }
  return found;
}

describe('renderUserReport', () => {
  it('renders a typical user as a three-page A4 PDF', async () => {
    const doc = await PDFDocument.load(await render(typicalUser()));

    expect(doc.getPageCount()).toBe(3);
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
    await render({ ...userWithMatches(12, 3), name: 'Ζωή Παπαδοπούλου 山田太郎 محمد हिन्दी 🙂' });
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

  it('renders Greek, Cyrillic and accented Latin names that copy out as stored', async () => {
    const user = typicalUser({
      name: 'Ζωή Παπαδοπούλου',
      first_name: 'Дмитрий',
      last_name: 'Шостакович',
      middle_name: 'Zoë Ångström-Núñez',
      guardian_name: 'Łukasz Żółć, Çağrı Şeker, François Dvořák',
    });

    const pdf = await render(user);

    expect((await PDFDocument.load(pdf)).getPageCount()).toBe(3);
    const lines = textLines(pdf);
    expect(lines).toContain(`Name ${user.name}`);
    expect(lines).toContain(`First name ${user.first_name}`);
    expect(lines).toContain(`Last name ${user.last_name}`);
    expect(lines).toContain(`Middle name ${user.middle_name}`);
    expect(lines).toContain(`Guardian name ${user.guardian_name}`);
  });

  it('reads only the Noto Sans files for a Latin report, and embeds each face as a subset named by a six-letter tag', async () => {
    const read: string[] = [];
    const recording: ReportFonts = {
      read: (family, weight) => {
        read.push(`${family}/${weight}`);
        return fonts.read(family, weight);
      },
    };

    const embedded = await embeddedFonts(await render(userWithMatches(8, 2), GENERATED_AT, recording));

    expect(new Set(read)).toEqual(new Set(['latin/regular', 'latin/bold']));
    const names = embedded.map(({ name }) => name);
    for (const name of names) expect(name).toMatch(/^\/[A-Z]{6}\+NotoSans-(Regular|Bold)$/);
    expect(names.map((name) => name.replace(/^\/[A-Z]{6}\+/, '')).sort()).toEqual([
      'NotoSans-Bold',
      'NotoSans-Regular',
    ]);
  });

  it('reads only the families its text needs: Chinese, Arabic and Devanagari, no other CJK face', async () => {
    const read = new Set<string>();
    const recording: ReportFonts = {
      read: (family, weight) => {
        read.add(`${family}/${weight}`);
        return fonts.read(family, weight);
      },
    };

    await render(multiScriptUser(), GENERATED_AT, recording);

    expect([...read].map((face) => face.split('/')[0])).toEqual(
      expect.arrayContaining(['latin', 'sc', 'arabic', 'devanagari']),
    );
    for (const unused of ['tc', 'jp', 'kr', 'hebrew', 'thai']) {
      expect(
        [...read].some((face) => face.startsWith(`${unused}/`)),
        unused,
      ).toBe(false);
    }
  });

  it('embeds subsets whose every glyph is intact, in every face a multi-script report uses', async () => {
    const user = typicalUser({
      name: '山田 たろう',
      first_name: 'محمد',
      last_name: 'देवनागरी',
      middle_name: 'สมชาย',
      guardian_name: 'שלום 김민준',
      city: '北京市',
    });

    const embedded = await embeddedFonts(await render(user));

    expect(embedded.map(({ name }) => name.replace(/^\/[A-Z]{6}\+/, '')).sort()).toEqual(
      expect.arrayContaining([
        'NotoSans-Regular',
        'NotoSansArabic-Regular',
        'NotoSansDevanagari-Regular',
        'NotoSansHebrew',
        'NotoSansJP-Regular',
        'NotoSansKR-Regular',
        'NotoSansSC-Regular',
        'NotoSansThai-Regular',
      ]),
    );
    for (const { name, font } of embedded) {
      const glyphs = Array.from({ length: font.numGlyphs }, (_, id) => font.getGlyph(id));
      const empty = glyphs.filter((glyph) => glyph.path.toSVG() === '');
      expect(empty.length, name).toBeLessThanOrEqual(1); // the space
      expect(font.numGlyphs, name).toBeLessThan(200);
    }
  });

  it('copies out a long override note wrapped over several lines', async () => {
    const user = typicalUser();

    const text = squashed(textLines(await render(user)).join(' '));

    expect(text).toContain(squashed(user.override_notes!));
  });

  it('keeps a typical report well under 80 KB', async () => {
    const bytes = await render(typicalUser());

    expect(bytes.byteLength).toBeLessThan(80 * 1024);
  });
});

describe('renderUserReport: what page 1 says, as text copied out of the PDF', () => {
  const renderFor = (user: UserRecord, more: { generatedAt?: Date; requestedBy?: string } = {}) =>
    renderUserReport({
      user,
      organizationName: ORGANIZATION_NAME,
      jobId: JOB_ID,
      generatedAt: more.generatedAt ?? GENERATED_AT,
      requestedBy: more.requestedBy,
      fonts,
    });

  it('shows the summary with the flagged screening, its match counts and the requester on page 1', async () => {
    const user = typicalUser({ mobile_registration_status: 'REGISTRATION_COMPLETED' });

    const page1 = textLines(await renderFor(user, { requestedBy: 'auth0|64f1c2a3' }), 1);

    expect(page1).toContain('Summary');
    expect(page1).toContain('Registration Activated');
    expect(page1).toContain('Mobile registration Registration completed (REGISTRATION_COMPLETED)');
    expect(page1).toContain('Screening Flagged');
    expect(page1).toContain('Matches 1 PEP match, 1 sanction match');
    expect(page1).toContain('Flags Screening flagged: 2 matches to review');
    expect(page1).toContain('Requested by auth0|64f1c2a3');
    expect(page1.indexOf('Flags Screening flagged: 2 matches to review')).toBeLessThan(page1.indexOf('Identity'));
  });

  it('says "—" for the requester of a job that recorded none', async () => {
    expect(textLines(await renderFor(typicalUser()), 1)).toContain('Requested by —');
  });

  it('gives the Hebrew demo user her age on the generation date, from her date of birth', async () => {
    const pdf = await renderFor(hebrewDemoUser(), { generatedAt: new Date('2026-11-25T10:00:00.000Z') });

    const page1 = textLines(pdf, 1);
    expect(page1).toContain('Date of birth 2007-10-20');
    expect(page1).toContain('Age 19');
    expect(page1).toContain('Flags None');
  });

  it('ends a right-to-left line at the right margin, its full stop drawn leftmost', async () => {
    const pdf = await renderFor(hebrewDemoUser());

    const words = wordBoxes(pdf, 1);
    const label = words.find(
      (word) => word.text === 'Address' && words.some((w) => w.text === '1' && w.yMin === word.yMin),
    )!;
    const line = words.filter((word) => Math.abs(word.yMin - label.yMin) < 1 && word.xMin > label.xMax + 100);
    // -bbox gives the words as drawn, left to right: the Hebrew letters in visual order.
    expect(line.map((word) => word.text).join(' ')).toBe('.105 ופי בוחר');
    const right = Math.max(...line.map((word) => word.xMax));
    expect(Math.abs(right - CONTENT_RIGHT)).toBeLessThan(1.5);
    const leftmost = line.reduce((a, b) => (b.xMin < a.xMin ? b : a));
    expect(leftmost.text.startsWith('.')).toBe(true);
    expect(right).toBeLessThan(PAGE.width);
  });

  it('prints the confidentiality notice on every page', async () => {
    const pdf = await renderFor(userWithMatches(6, 2));
    const pages = (await PDFDocument.load(pdf)).getPageCount();

    for (let page = 1; page <= pages; page++) {
      expect(textLines(pdf, page)).toContain('Confidential — contains personal data of user usr-0001; do not forward.');
    }
  });
});
