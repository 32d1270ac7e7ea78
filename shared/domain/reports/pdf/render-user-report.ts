import {
  PDFDocument,
  PDFName,
  beginText,
  endText,
  fill,
  rectangle,
  setFillingRgbColor,
  setFontAndSize,
  setTextMatrix,
  showText,
  type PDFFont,
  type PDFOperator,
  type PDFPage,
} from 'pdf-lib';
import type { UserRecord } from '../../users/user-record.ts';
import { REPORT_TITLE, layoutUserReport, type ReportLayout, type ReportPage } from './layout-user-report.ts';
import type { ReportFonts } from './report-fonts.ts';
import { COLORS, PAGE, type ReportColor } from './report-style.ts';
import { reportTypeface, subsetFontName, type FontWeight } from './report-typeface.ts';

import { REPORT_TEMPLATE_VERSION } from '../report-template-version.ts';

export { REPORT_TEMPLATE_VERSION };

const REPORT_CREATOR = 'Onboarding reports service';

export interface RenderUserReportInput {
  user: UserRecord;
  organizationName: string;
  jobId: string;
  generatedAt: Date;
  fonts: ReportFonts;
}

/**
 * The user's status report as PDF bytes.
 *
 * Determinism: the same input and `generatedAt` give the same bytes. Every date in the file is
 * `generatedAt`; all metadata is set here (pdf-lib's defaults would stamp the current time); the
 * subset fonts are named from their content (`subsetFontName`) and the page font resources are
 * named `F1`/`F2`, so no name comes from pdf-lib's suffix generator; the glyph data handed to
 * pdf-lib is built per render (`reportTypeface`), so earlier renders in a warm process leave no
 * trace; and pdf-lib writes no document ID. No global (such as `Math.random`) is patched.
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
  const texts = layout.pages.flatMap((page) => page.texts);
  return texts
    .filter((text) => text.weight === weight)
    .map((text) => text.text)
    .join('');
}

/** Resource names of the two faces on every page. */
const FONT_KEYS: Record<FontWeight, string> = { regular: 'F1', bold: 'F2' };

/**
 * Paints one page of the layout as a single content stream: the boxes, then all text in one text
 * object, setting font and colour only when they change. (pdf-lib's `drawText` would add a font
 * resource and a graphics state per call: slower, larger and no clearer.)
 */
function paintPage(pdfPage: PDFPage, page: ReportPage, fonts: Record<FontWeight, PDFFont>): void {
  for (const weight of ['regular', 'bold'] as const) {
    pdfPage.node.setFontDictionary(PDFName.of(FONT_KEYS[weight]), fonts[weight].ref);
  }
  const operators: PDFOperator[] = [];
  let color: ReportColor | undefined;
  const useColor = (next: ReportColor): void => {
    if (next !== color) operators.push(setFillingRgbColor(...COLORS[next]));
    color = next;
  };
  for (const box of page.boxes) {
    useColor(box.color);
    operators.push(rectangle(box.x, box.y, box.width, box.height), fill());
  }
  operators.push(beginText());
  let font = '';
  for (const text of page.texts) {
    const nextFont = `${text.weight} ${text.size}`;
    if (nextFont !== font) operators.push(setFontAndSize(FONT_KEYS[text.weight], text.size));
    font = nextFont;
    useColor(text.color);
    operators.push(setTextMatrix(1, 0, 0, 1, text.x, text.y), showText(fonts[text.weight].encodeText(text.text)));
  }
  operators.push(endText());
  pdfPage.pushOperators(...operators);
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
