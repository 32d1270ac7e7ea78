import { PDFDocument, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import type { UserRecord } from '../../users/user-record.ts';
import { REPORT_TITLE, layoutUserReport, type ReportLayout, type ReportPage } from './layout-user-report.ts';
import type { ReportFonts } from './report-fonts.ts';
import { COLORS, PAGE } from './report-style.ts';
import { reportTypeface, subsetFontName, type FontWeight } from './report-typeface.ts';

/** Version of the report layout, recorded on every job. Bump it whenever the layout changes. */
export const REPORT_TEMPLATE_VERSION = '2026-11.1';

const REPORT_CREATOR = 'Onboarding reports service';

export interface RenderUserReportInput {
  user: UserRecord;
  organizationName: string;
  jobId: string;
  generatedAt: Date;
  fonts: ReportFonts;
}

/**
 * The user's status report as PDF bytes. The same input and `generatedAt` always give the same
 * bytes: every date comes from `generatedAt`, and the subset font names are derived from the text
 * (see `subsetFontName`); pdf-lib's other generated names come from a generator seeded afresh for
 * each document.
 */
export async function renderUserReport(input: RenderUserReportInput): Promise<Uint8Array> {
  const typeface = reportTypeface(input.fonts);
  const layout = layoutUserReport({ ...input, templateVersion: REPORT_TEMPLATE_VERSION }, typeface);

  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.registerFontkit(typeface.fontkit);
  const fonts = {
    regular: await embedSubset(doc, input.fonts.regular, textIn(layout, 'regular')),
    bold: await embedSubset(doc, input.fonts.bold, textIn(layout, 'bold')),
  };
  for (const page of layout.pages) paintPage(doc.addPage([PAGE.width, PAGE.height]), page, fonts);
  setMetadata(doc, input);
  return doc.save({ useObjectStreams: true, addDefaultPage: false });
}

function embedSubset(doc: PDFDocument, bytes: Uint8Array, text: string): Promise<PDFFont> {
  return doc.embedFont(bytes, { subset: true, customName: subsetFontName(bytes, text) });
}

/** All text drawn in `weight`, so the subset name can be derived from it before drawing. */
function textIn(layout: ReportLayout, weight: FontWeight): string {
  return layout.pages.flatMap((page) => page.texts.filter((text) => text.weight === weight).map((text) => text.text)).join('');
}

function paintPage(pdfPage: PDFPage, page: ReportPage, fonts: Record<FontWeight, PDFFont>): void {
  for (const box of page.boxes) {
    pdfPage.drawRectangle({ x: box.x, y: box.y, width: box.width, height: box.height, color: rgb(...COLORS[box.color]) });
  }
  for (const text of page.texts) {
    pdfPage.drawText(text.text, { x: text.x, y: text.y, size: text.size, font: fonts[text.weight], color: rgb(...COLORS[text.color]) });
  }
}

function setMetadata(doc: PDFDocument, input: RenderUserReportInput): void {
  doc.setTitle(`${REPORT_TITLE}: user ${input.user.id}`);
  doc.setAuthor(input.organizationName);
  doc.setSubject(`Status of user ${input.user.id} in ${input.organizationName}, report job ${input.jobId}`);
  doc.setKeywords(['user status report', input.user.id, input.jobId, `template ${REPORT_TEMPLATE_VERSION}`]);
  doc.setCreator(REPORT_CREATOR);
  doc.setProducer(`${REPORT_CREATOR}, template ${REPORT_TEMPLATE_VERSION}`);
  doc.setLanguage('en');
  doc.setCreationDate(input.generatedAt);
  doc.setModificationDate(input.generatedAt);
}
