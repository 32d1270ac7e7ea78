import { PDFDocument, PDFName, PDFStreamWriter, type PDFPage } from 'pdf-lib';
import type { ReportRenderer } from '#shared/domain/reports/ports.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { REPORT_TEMPLATE_VERSION } from '#shared/domain/reports/report-template-version.ts';
import {
  REPORT_TITLE,
  SANDBOX_REPORT_MARK,
  layoutUserReport,
  type PositionedText,
  type ReportPage,
} from './layout-user-report.ts';
import { PdfFontSubsets, utf16Hex } from './pdf-font-subsets.ts';
import type { ReportFonts } from './report-fonts.ts';
import type { SignaturePlaceholder } from '#shared/adapters/signing/pades-report-signer.ts';
import { COLORS, PAGE, type ReportColor } from './report-style.ts';
import { Typesetter, type MissingGlyphListener } from './typesetter.ts';
import { TaggedStructure, type PageMarks } from './tagged-structure.ts';
import { setArchivalMetadata } from './archival-metadata.ts';

export { REPORT_TEMPLATE_VERSION };

const REPORT_CREATOR = 'Onboarding reports service';
/** The language of the report's own text (labels, headings); values in other scripts get theirs (tagged-structure.ts). */
const REPORT_LANGUAGE = 'en';
/**
 * The file is written as `doc.save` writes it (object streams, an xref stream), with two of the
 * writer's settings `save` does not expose: no pause every 50 objects (a `setTimeout` each, for
 * browsers' sake; the worker renders one report at a time) and object streams of up to 1,000
 * objects instead of 50: the structure tree is some hundreds of small objects, and each object
 * stream is one more deflate with its own set-up.
 */
const OBJECTS_PER_STREAM = 1000;

export interface RenderUserReportInput {
  user: UserRecord;
  organizationName: string;
  jobId: string;
  generatedAt: Date;
  /** The `sub` of the token that requested the report; shown as "—" when absent. */
  requestedBy?: string | undefined;
  fonts: ReportFonts;
  /** Told each character no shipped font has (drawn as the missing-glyph box), once per render. */
  onMissingGlyph?: MissingGlyphListener;
  /** Adds the empty signature the report signer fills in (its `/M` is `generatedAt`). */
  signaturePlaceholder?: SignaturePlaceholder;
  /** A sandbox report: `SANDBOX_REPORT_MARK` across every page and in the document title. */
  sandbox?: boolean | undefined;
}

/** The renderer port (shared/domain/reports/ports.ts) implemented with these fonts. */
export function pdfReportRenderer(
  fonts: ReportFonts,
  onMissingGlyph?: MissingGlyphListener,
  signaturePlaceholder?: SignaturePlaceholder,
): ReportRenderer {
  return (input) =>
    renderUserReport({
      ...input,
      fonts,
      ...(onMissingGlyph && { onMissingGlyph }),
      ...(signaturePlaceholder && { signaturePlaceholder }),
    });
}

/**
 * The user's status report as PDF bytes.
 *
 * Determinism: the same input and `generatedAt` give the same bytes. Every date in the file is
 * `generatedAt`; all metadata is set here (pdf-lib's defaults would stamp the current time); the
 * subset fonts are named from the glyphs they hold and their resources `F1`, `F2`, ... in order of
 * first use; shaping state lives in a `Typesetter` made per render; the document ID is a hash of
 * the job, user and time.
 *
 * Archival and accessible: PDF/A-2a metadata and output intent (archival-metadata.ts), and the
 * structure tree (tagged-structure.ts); a report that drew a missing glyph does not claim PDF/A, both written before the signature placeholder's widget is
 * tagged and the file saved once, so the signature covers them.
 */
export async function renderUserReport(input: RenderUserReportInput): Promise<Uint8Array> {
  const typesetter = new Typesetter(input.fonts, input.onMissingGlyph);
  const layout = layoutUserReport({ ...input, templateVersion: REPORT_TEMPLATE_VERSION }, typesetter);

  const doc = await PDFDocument.create({ updateMetadata: false });
  const subsets = new PdfFontSubsets(doc);
  const structure = new TaggedStructure(doc);
  for (const page of layout.pages) {
    const pdfPage = doc.addPage([PAGE.width, PAGE.height]);
    paintPage(doc, pdfPage, page, typesetter, subsets, structure.page(pdfPage));
  }
  subsets.embedAll();
  // PDF/A-2 forbids references to .notdef (6.2.11.8) at every conformance level: such a report is not PDF/A.
  setMetadata(doc, input, !typesetter.drewMissingGlyph);
  input.signaturePlaceholder?.(doc, input.generatedAt);
  structure.finish(layout.structure, REPORT_LANGUAGE);
  await doc.flush();
  return PDFStreamWriter.forContext(
    doc.context,
    Number.POSITIVE_INFINITY,
    true,
    OBJECTS_PER_STREAM,
  ).serializeToBuffer();
}

/**
 * Paints one page as a single content stream: the boxes (one layout artifact), then all text in
 * one text object, each positioned text its own marked-content sequence (`marks`). Each line is
 * shown run by run, glyph by glyph as shaped (TJ with position adjustments, text rise for marks);
 * a run whose glyphs do not read back as its text one by one is wrapped in `/ActualText`.
 */
function paintPage(
  doc: PDFDocument,
  pdfPage: PDFPage,
  page: ReportPage,
  typesetter: Typesetter,
  subsets: PdfFontSubsets,
  marks: PageMarks,
): void {
  const out: string[] = [];
  let color: ReportColor | undefined;
  const useColor = (next: ReportColor): void => {
    if (next !== color) out.push(`${COLORS[next].map(num).join(' ')} rg`);
    color = next;
  };
  out.push(marks.beginLayoutArtifact());
  for (const box of page.boxes) {
    useColor(box.color);
    out.push(`${num(box.x)} ${num(box.y)} ${num(box.width)} ${num(box.height)} re f`);
  }
  out.push(marks.end(), 'BT');
  const used = new Set<string>();
  let font = '';
  for (const text of page.texts) {
    useColor(text.color);
    out.push(marks.beginText(text), `${textMatrix(text.angle)} ${num(text.x)} ${num(text.y)} Tm`);
    for (const run of typesetter.shape(text.text, text.weight, text.direction).runs) {
      const subset = subsets.of(run.face);
      used.add(subset.resourceName);
      const nextFont = `${subset.resourceName} ${text.size}`;
      if (nextFont !== font) out.push(`/${subset.resourceName} ${num(text.size)} Tf`);
      font = nextFont;
      if (run.actualText !== undefined) out.push(`/Span <</ActualText <feff${utf16Hex(run.actualText)}>>> BDC`);
      out.push(...showRun(run.glyphs, subset, text));
      if (run.actualText !== undefined) out.push('EMC');
    }
    out.push(marks.end());
  }
  out.push('ET');
  for (const subset of subsets.all()) {
    if (used.has(subset.resourceName)) pdfPage.node.setFontDictionary(PDFName.of(subset.resourceName), subset.ref);
  }
  const stream = doc.context.flateStream(out.join('\n'));
  pdfPage.node.set(PDFName.of('Contents'), doc.context.register(stream));
}

/**
 * TJ operators for one run. Positions are kept in thousandths of an em: `pen` is where the shaping
 * engine puts the next glyph, `shown` where the reader's text position is after the glyphs shown
 * so far; a TJ number moves between the two. A vertical offset (a mark above or below its base)
 * is a text rise.
 */
function showRun(
  glyphs: ReturnType<Typesetter['shape']>['runs'][number]['glyphs'],
  subset: ReturnType<PdfFontSubsets['of']>,
  text: PositionedText,
): string[] {
  const out: string[] = [];
  let items: string[] = [];
  let pen = 0;
  let shown = 0;
  let rise = 0;
  const flush = (): void => {
    if (items.length > 0) out.push(`[${items.join('')}] TJ`);
    items = [];
  };
  for (const glyph of glyphs) {
    const target = pen + glyph.xOffset;
    const move = shown - target;
    if (Math.abs(move) > 0.01) items.push(` ${num(move)} `);
    if (glyph.yOffset !== rise) {
      flush();
      rise = glyph.yOffset;
      out.push(`${num((rise * text.size) / 1000)} Ts`);
    }
    items.push(`<${subset.code(glyph.id, glyph.text)}>`);
    shown = target + subset.widthOf(glyph.id);
    pen += glyph.advance;
  }
  if (Math.abs(shown - pen) > 0.01) items.push(` ${num(shown - pen)} `);
  flush();
  if (rise !== 0) out.push('0 Ts');
  return out;
}

/** The text matrix's rotation part: `1 0 0 1` unless the text is turned. */
function textMatrix(angle: number | undefined): string {
  if (!angle) return '1 0 0 1';
  const radians = (angle * Math.PI) / 180;
  const [cos, sin] = [Math.cos(radians), Math.sin(radians)];
  return `${num(cos)} ${num(sin)} ${num(-sin)} ${num(cos)}`;
}

/** A number as PDF content writes it: at most three decimals, no exponent. */
function num(value: number): string {
  const rounded = Math.round(value * 1000) / 1000;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

function setMetadata(doc: PDFDocument, input: RenderUserReportInput, claimPdfA: boolean): void {
  setArchivalMetadata(doc, {
    pdfaConformance: claimPdfA ? 'A' : undefined,
    title: input.sandbox
      ? `${SANDBOX_REPORT_MARK}: ${REPORT_TITLE}: user ${input.user.id}`
      : `${REPORT_TITLE}: user ${input.user.id}`,
    author: input.organizationName,
    subject: `Status of user ${input.user.id} in ${input.organizationName}, report job ${input.jobId}`,
    keywords: ['user status report', input.user.id, input.jobId, `template ${REPORT_TEMPLATE_VERSION}`],
    creator: REPORT_CREATOR,
    producer: `${REPORT_CREATOR}, template ${REPORT_TEMPLATE_VERSION}`,
    language: REPORT_LANGUAGE,
    date: input.generatedAt,
    identity: JSON.stringify([input.jobId, input.user.id, input.organizationName, input.generatedAt.toISOString()]),
  });
}
