import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PDFArray,
  PDFBool,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFRef,
  PDFString,
  decodePDFRawStream,
} from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_TITLE } from '#shared/adapters/pdf/layout-user-report.ts';
import { renderUserReport } from '#shared/adapters/pdf/render-user-report.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import { languageOf } from '#shared/adapters/pdf/tagged-structure.ts';
import { LocalReportSigningKey } from '#shared/adapters/signing/local-report-signing-key.ts';
import { padesReportSigner, reportSignaturePlaceholder } from '#shared/adapters/signing/pades-report-signer.ts';
import { userReportSections, type ReportRow } from '#shared/domain/reports/report-content.ts';
import { reportSummary } from '#shared/domain/reports/report-summary.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { ensureLocalReportSigningKey } from '#local/report-signing-key.ts';
import { pdfsig } from '#test/support/pdf-signature.ts';
import { pdfinfo, pdfText, squashed, structureElements, type StructureElement } from './pdf-text.ts';
import { GENERATED_AT, JOB_ID, ORGANIZATION_NAME, typicalUser } from './user-report-fixtures.ts';

/**
 * docs/contract.md §21: a report is archival (PDF/A-2 metadata, sRGB output intent, fonts
 * embedded) and tagged for screen readers (headings, tables with header cells and paragraphs in
 * reading order, furniture as artifacts, `/Lang` where a value's script says another language),
 * read back with poppler (`pdfinfo`, `pdfsig`) and, for what poppler does not show, with pdf-lib's parser.
 */

const ARABIC_USER = typicalUser({
  name: 'محمد عبد الله',
  first_name: 'محمد',
  last_name: 'عبد الله',
  address1: 'شارع التحرير',
  city: 'القاهرة',
  full_address: 'شارع التحرير القاهرة',
});
const DEVANAGARI_USER = typicalUser({
  name: 'अर्जुन शर्मा',
  first_name: 'अर्जुन',
  last_name: 'शर्मा',
  address1: 'महात्मा गांधी मार्ग 15',
  city: 'नई दिल्ली',
  full_address: 'महात्मा गांधी मार्ग 15, नई दिल्ली',
});

function render(user: UserRecord, signed = false): Promise<Uint8Array> {
  return renderUserReport({
    user,
    organizationName: ORGANIZATION_NAME,
    jobId: JOB_ID,
    generatedAt: GENERATED_AT,
    fonts: loadReportFonts(),
    ...(signed && { signaturePlaceholder: reportSignaturePlaceholder() }),
  });
}

/** What the report says, in reading order: its headings, and its tables as rows of cell texts (a value's detail after it). */
function expectedContent(user: UserRecord): { headings: string[][]; tables: string[][][] } {
  const context = { generatedAt: GENERATED_AT };
  const summary = reportSummary(user, context);
  const sections = userReportSections(user, context);
  const cells = (rows: ReportRow[]): string[][] =>
    rows.map((row) =>
      row.fields.flatMap((field) => [
        field.label,
        field.detail === undefined ? field.value : `${field.value} (${field.detail})`,
      ]),
    );
  return {
    headings: [
      ['H1', REPORT_TITLE],
      ['H2', summary.title],
      ...sections.flatMap((section) => [['H2', section.title], ...section.blocks.map((block) => ['H3', block.title])]),
    ],
    tables: [
      cells(summary.rows),
      ...sections.flatMap((section) => [
        ...(section.rows.length > 0 ? [cells(section.rows)] : []),
        ...section.blocks.map((block) => cells(block.rows)),
      ]),
    ],
  };
}

/** The tables of a structure tree: each a list of rows, each row its cells' texts (TH and TD in order). */
function tablesOf(elements: StructureElement[]): string[][][] {
  const tables: string[][][] = [];
  elements.forEach((element, index) => {
    if (element.type === 'Table') tables.push([]);
    if (element.type !== 'TR') return;
    const cells: string[] = [];
    for (const later of elements.slice(index + 1)) {
      if (later.depth <= element.depth) break;
      if (later.depth === element.depth + 1) {
        expect(['TH', 'TD']).toContain(later.type);
        cells.push(later.text);
      }
    }
    tables.at(-1)!.push(cells);
  });
  return tables;
}

function headingsOf(elements: StructureElement[]): string[][] {
  return elements.filter(({ type }) => /^H\d$/u.test(type)).map(({ type, text }) => [type, text]);
}

/** Text as the characters it holds, in any order, white space aside. */
function characters(text: string): string {
  return [...squashed(text)].sort().join('');
}

/** Every structure element that has `/Lang`, with its type, read from the file with pdf-lib. */
async function elementLanguages(pdf: Uint8Array): Promise<Array<{ type: string; lang: string }>> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const found: Array<{ type: string; lang: string }> = [];
  const visit = (kid: unknown): void => {
    const element = kid instanceof PDFRef ? doc.context.lookup(kid) : kid;
    if (!(element instanceof PDFDict)) return;
    const lang = element.get(PDFName.of('Lang'));
    if (lang instanceof PDFString) found.push({ type: String(element.get(PDFName.of('S'))), lang: lang.decodeText() });
    const kids = element.lookup(PDFName.of('K'));
    if (kids instanceof PDFArray) kids.asArray().forEach(visit);
    else visit(element.get(PDFName.of('K')));
  };
  visit(doc.catalog.lookup(PDFName.of('StructTreeRoot'), PDFDict).get(PDFName.of('K')));
  return found;
}

describe('a signed report (the worker renders with the signature placeholder, then signs)', () => {
  let keysDir: string;
  let pdf: Uint8Array;
  let elements: StructureElement[];

  beforeAll(async () => {
    keysDir = await mkdtemp(join(tmpdir(), 'tagged-report-'));
    const key = new LocalReportSigningKey(await ensureLocalReportSigningKey(keysDir));
    pdf = await padesReportSigner(key)(await render(typicalUser(), true), new Date());
    elements = structureElements(pdf);
  });
  afterAll(() => rm(keysDir, { recursive: true, force: true }));

  it('is tagged (pdfinfo: Tagged: yes) and its signature is still valid (pdfsig)', () => {
    expect(pdfinfo(pdf)).toMatch(/^Tagged: +yes$/mu);
    expect(pdfsig(pdf)).toContain('Signature Validation: Signature is Valid.');
  });

  it('reads as the title, the page-1 header as paragraphs, then each heading followed by its table', () => {
    const topLevel = elements.filter(({ depth }) => depth === 1).map(({ type }) => type);
    const expected = expectedContent(typicalUser());

    expect(elements[0]).toMatchObject({ type: 'Document', depth: 0 });
    expect(topLevel.slice(0, 6)).toEqual(['H1', 'P', 'P', 'P', 'H2', 'Table']);
    expect(elements.filter(({ type }) => type === 'P').map(({ text }) => text)).toEqual([
      ORGANIZATION_NAME,
      'Generated 2026-11-03 14:05:09 UTC',
      'User ID usr-0001',
    ]);
    expect(headingsOf(elements)).toEqual(expected.headings);
    expect(tablesOf(elements).map((table) => table.map((row) => row.map(squashed)))).toEqual(
      expected.tables.map((table) => table.map((row) => row.map(squashed))),
    );
  });

  it('makes each row a label TH (row scope) then its value TD, once or twice', () => {
    const rows = elements.flatMap((element, index) => {
      if (element.type !== 'TR') return [];
      const cells = [];
      for (const later of elements.slice(index + 1)) {
        if (later.depth <= element.depth) break;
        if (later.depth === element.depth + 1) cells.push(later.type);
      }
      return [cells.join(' ')];
    });

    expect(rows.length).toBeGreaterThan(20);
    expect(new Set(rows)).toEqual(new Set(['TH TD', 'TH TD TH TD']));
    expect(pdfinfo(pdf, '-struct').match(/^ +TH:\n +\/Scope \/Row$/gmu)?.length).toBe(
      elements.filter(({ type }) => type === 'TH').length,
    );
  });

  it('leaves page furniture out of the structure: header after page 1, footer, "(continued)" headings and labels', () => {
    const drawn = pdfText(pdf);
    // Each text once: in its heading, paragraph or cell (a cell's text includes its detail Span's).
    const structured = elements
      .filter(({ type }) => ['H1', 'H2', 'H3', 'P', 'TH', 'TD'].includes(type))
      .map(({ text }) => text)
      .join('\n');

    expect(drawn).toContain('Page 1 of 3');
    expect(drawn).toContain('Confidential');
    expect(drawn).toContain('(continued)');
    expect(drawn.split(REPORT_TITLE).length - 1).toBe(3); // the title heads every page
    expect(structured).not.toContain('Page 1 of');
    expect(structured).not.toContain('Confidential');
    expect(structured).not.toContain('(continued)');
    expect(structured.split(REPORT_TITLE).length - 1).toBe(1);
  });

  it('tags the signature widget as a Form element, last in reading order', () => {
    const last = elements.filter(({ depth }) => depth === 1).at(-1);
    expect(last?.type).toBe('Form');
    expect(elements.at(-1)?.type).toBe('Object');
  });

  it('has PDF/A-2 level A metadata (pdfinfo -meta) agreeing with the Info dictionary (pdfinfo)', () => {
    const meta = pdfinfo(pdf, '-meta');
    const info = pdfinfo(pdf);

    expect(meta).toContain('<pdfaid:part>2</pdfaid:part>');
    expect(meta).toContain('<pdfaid:conformance>A</pdfaid:conformance>');
    expect(info).toMatch(/^Metadata Stream: +yes$/mu);
    const title = /^Title: +(.*)$/mu.exec(info)?.[1];
    expect(title).toBe('User status report: user usr-0001');
    expect(meta).toContain(`<rdf:li xml:lang="x-default">${title}</rdf:li>`);
    expect(meta).toContain(`<rdf:li>${/^Author: +(.*)$/mu.exec(info)?.[1]}</rdf:li>`);
    expect(meta).toContain(`<pdf:Producer>${/^Producer: +(.*)$/mu.exec(info)?.[1]}</pdf:Producer>`);
    expect(meta).toContain(`<pdf:Keywords>${/^Keywords: +(.*)$/mu.exec(info)?.[1]}</pdf:Keywords>`);
    expect(meta).toContain(`<xmp:CreatorTool>${/^Creator: +(.*)$/mu.exec(info)?.[1]}</xmp:CreatorTool>`);
    expect(info).toMatch(/^CreationDate: +Tue Nov {2}3 14:05:09 2026 UTC$/mu);
    expect(meta).toContain('<xmp:CreateDate>2026-11-03T14:05:09Z</xmp:CreateDate>');
    expect(meta).toContain('<xmp:ModifyDate>2026-11-03T14:05:09Z</xmp:ModifyDate>');
  });

  it('has an sRGB output intent with its ICC profile, a trailer ID, /MarkInfo, /Lang, /DisplayDocTitle and every font embedded', async () => {
    const doc = await PDFDocument.load(pdf, { updateMetadata: false });
    const { catalog, context } = doc;

    const intent = catalog.lookup(PDFName.of('OutputIntents'), PDFArray).lookup(0, PDFDict);
    expect(intent.get(PDFName.of('S'))).toBe(PDFName.of('GTS_PDFA1'));
    const profile = intent.lookup(PDFName.of('DestOutputProfile'));
    if (!(profile instanceof PDFRawStream)) throw new Error('the output intent has no ICC profile stream');
    expect(profile.dict.lookup(PDFName.of('N'), PDFNumber).asNumber()).toBe(3);
    const icc = Buffer.from(decodePDFRawStream(profile).decode());
    expect(icc.readUInt32BE(0)).toBe(icc.length);
    expect(icc.toString('latin1', 36, 40)).toBe('acsp');
    expect(icc.toString('latin1', 12, 20)).toBe('mntrRGB ');

    const id = context.trailerInfo.ID;
    expect(id).toBeInstanceOf(PDFArray);
    expect((id as PDFArray).lookup(0, PDFHexString).asString()).toMatch(/^[0-9a-f]{32}$/u);

    expect(catalog.lookup(PDFName.of('MarkInfo'), PDFDict).get(PDFName.of('Marked'))).toBe(PDFBool.True);
    expect(catalog.lookup(PDFName.of('Lang'), PDFString).decodeText()).toBe('en');
    const preferences = catalog.lookup(PDFName.of('ViewerPreferences'), PDFDict);
    expect(preferences.get(PDFName.of('DisplayDocTitle'))).toBe(PDFBool.True);

    let fonts = 0;
    for (const page of doc.getPages()) {
      expect(page.node.get(PDFName.of('StructParents'))).toBeInstanceOf(PDFNumber);
      expect(page.node.get(PDFName.of('Tabs'))).toBe(PDFName.of('S'));
      const fontDicts = page.node.Resources()!.lookup(PDFName.of('Font'), PDFDict);
      for (const name of fontDicts.keys()) {
        const font = fontDicts.lookup(name, PDFDict);
        const descendant = font.lookup(PDFName.of('DescendantFonts'), PDFArray).lookup(0, PDFDict);
        const descriptor = descendant.lookup(PDFName.of('FontDescriptor'), PDFDict);
        expect(descriptor.has(PDFName.of('FontFile2')) || descriptor.has(PDFName.of('FontFile3'))).toBe(true);
        expect(font.has(PDFName.of('ToUnicode'))).toBe(true);
        fonts += 1;
      }
    }
    expect(fonts).toBeGreaterThan(0);
  });

  it('sets no /Lang below the document when every value is in Latin script', async () => {
    expect(await elementLanguages(pdf)).toEqual([]);
  });
});

/**
 * poppler's structure text lists a cell's glyphs as drawn, each as its font's ToUnicode maps it:
 * right-to-left text in visual order, a Devanagari vowel sign before its consonant, and a
 * Devanagari conjunct as whatever text its glyph first stood for; it does not read the
 * `/ActualText` the renderer puts on such runs (pdftotext does: report-scripts.test.ts checks
 * the logical text). So Arabic cells are compared as the characters they hold, and Devanagari
 * cells as being Devanagari; every other cell exactly.
 */
describe.each([
  { script: 'Arabic', user: ARABIC_USER, lang: 'ar', pattern: /\p{Script=Arabic}/u, glyphsReadBack: true },
  { script: 'Devanagari', user: DEVANAGARI_USER, lang: 'hi', pattern: /\p{Script=Devanagari}/u, glyphsReadBack: false },
])('a report with $script values', ({ script, user, lang, pattern, glyphsReadBack }) => {
  let pdf: Uint8Array;
  let elements: StructureElement[];

  beforeAll(async () => {
    pdf = await render(user);
    elements = structureElements(pdf);
  });

  it('is tagged, its headings and table cells in reading order as in a Latin report', () => {
    const expected = expectedContent(user);

    expect(pdfinfo(pdf)).toMatch(/^Tagged: +yes$/mu);
    expect(headingsOf(elements)).toEqual(expected.headings);
    const cell = (text: string): string =>
      pattern.test(text) ? (glyphsReadBack ? characters(text) : `${script} text`) : squashed(text);
    expect(tablesOf(elements).map((table) => table.map((row) => row.map(cell)))).toEqual(
      expected.tables.map((table) => table.map((row) => row.map(cell))),
    );
    const firstName = elements.findIndex(({ type, text }) => type === 'TH' && text === 'First name');
    expect(elements[firstName + 1]).toMatchObject({ type: 'TD' });
    expect(cell(elements[firstName + 1]!.text)).toBe(cell(user.first_name!));
  });

  it(`gives the cells in that script /Lang (${lang}), and nothing else a language of its own`, async () => {
    const languages = await elementLanguages(pdf);
    const valuesInScript = [user.name, user.first_name, user.last_name, user.address1, user.city, user.full_address];

    expect(languages.filter((each) => each.lang === lang).length).toBeGreaterThanOrEqual(valuesInScript.length);
    expect(languages.every((each) => each.type === '/TD' && each.lang === lang)).toBe(true);
  });
});

describe('languageOf (a value read in its script language)', () => {
  it.each([
    ['محمد', 'ar'],
    ['דוד כהן', 'he'],
    ['नई दिल्ली', 'hi'],
    ['สมชาย', 'th'],
    ['김 민준', 'ko'],
    ['山田 太郎', 'zh'],
    ['丸の内1丁目', 'ja'],
    ['Νικόλαος', 'el'],
    ['Олександра', 'ru'],
    ['Zoë Ångström', 'en'],
    ['12 شارع التحرير', 'ar'],
    ['Cairo القاهرة', 'en'],
  ])('%s: %s', (text, language) => {
    expect(languageOf(text, 'en')).toBe(language);
  });

  it("has no language for text without letters: it is read in its parent element's", () => {
    expect(languageOf('2026-11-03 14:05:09 UTC'.replace(/[A-Z]/gu, ''), 'en')).toBeUndefined();
    expect(languageOf('—', 'en')).toBeUndefined();
  });
});

describe('a report that shows a missing glyph (a character no shipped font has)', () => {
  let pdf: Uint8Array;
  const missing: number[] = [];
  beforeAll(async () => {
    pdf = await renderUserReport({
      user: typicalUser({ first_name: 'Tarō 🙂' }),
      organizationName: ORGANIZATION_NAME,
      jobId: JOB_ID,
      generatedAt: GENERATED_AT,
      fonts: loadReportFonts(),
      onMissingGlyph: (codePoint) => missing.push(codePoint),
    });
  }, 60_000);

  it('claims no PDF/A conformance (PDF/A-2 forbids .notdef at every level): no pdfaid in its XMP, the rest of the metadata kept', () => {
    expect(missing).toEqual([0x1f642]);
    const meta = pdfinfo(pdf, '-meta');
    expect(meta).not.toContain('pdfaid:part');
    expect(meta).not.toContain('pdfaid:conformance');
    expect(meta).toContain('<dc:title>');
    expect(meta).toContain('<xmp:CreateDate>');
    expect(pdfinfo(pdf)).toMatch(/^Tagged: +yes$/mu);
  });
});
