import type { UserRecord } from '../../users/user-record.ts';
import { userReportSections, type ReportBlock, type ReportRow, type ReportSection, type ReportSectionId } from './report-content.ts';
import {
  BLOCK_HEADING,
  CONTENT_BOTTOM,
  CONTENT_LEFT,
  CONTENT_RIGHT,
  CONTENT_TOP,
  CONTENT_WIDTH,
  FOOTER,
  HEADER,
  SECTION_HEADING,
  TABLE,
  baselineIn,
  type ReportColor,
} from './report-style.ts';
import type { FontWeight, ReportTypeface } from './report-typeface.ts';
import { fitText, wrapText } from './text-wrap.ts';
import { formatUtc } from './report-values.ts';

/**
 * Lays a user report out on pages: every piece of text with its position, font and colour, and
 * the filled boxes (rules, bands). Pure: the renderer only paints this model, and tests check
 * pagination on it without parsing a PDF.
 */

export type TextMeasure = Pick<ReportTypeface, 'printable' | 'width'>;

export type TextRole = 'header' | 'footer' | 'section-heading' | 'block-heading' | 'label' | 'value';

export interface PositionedText {
  role: TextRole;
  text: string;
  /** Left end of the baseline. */
  x: number;
  y: number;
  size: number;
  weight: FontWeight;
  color: ReportColor;
  sectionId?: ReportSectionId;
}

/** A filled rectangle; `y` is its bottom edge. */
export interface PositionedBox {
  x: number;
  y: number;
  width: number;
  height: number;
  color: ReportColor;
}

export interface ReportPage {
  texts: PositionedText[];
  boxes: PositionedBox[];
}

export interface ReportLayout {
  pages: ReportPage[];
}

export interface UserReportLayoutInput {
  user: UserRecord;
  organizationName: string;
  jobId: string;
  generatedAt: Date;
  templateVersion: string;
}

export const REPORT_TITLE = 'User status report';
const CONTINUED = ' (continued)';

export function layoutUserReport(input: UserReportLayoutInput, measure: TextMeasure): ReportLayout {
  const flow = new ReportFlow(measure);
  for (const section of userReportSections(input.user)) flow.placeSection(section);
  const pages = flow.pages;
  pages.forEach((page, index) => {
    addHeader(page, input, measure);
    addFooter(page, `Page ${index + 1} of ${pages.length}`, input, measure);
  });
  return { pages };
}

interface MeasuredRow {
  labelLines: string[];
  valueLines: string[];
  indent: number;
}

const VALUE_LEFT = CONTENT_LEFT + TABLE.labelColumnWidth;
const VALUE_WIDTH = CONTENT_RIGHT - VALUE_LEFT;

function rowLineCount(row: MeasuredRow): number {
  return Math.max(row.labelLines.length, row.valueLines.length);
}

function rowHeight(lineCount: number): number {
  return lineCount * TABLE.lineHeight + 2 * TABLE.paddingY;
}

/**
 * Places content top to bottom, page after page. Headings are kept with what follows them; a row
 * moves whole to the next page when it fits there, and only a row taller than a page is split
 * line by line. A page that continues a section (or a screening match) starts by repeating its
 * heading, marked "(continued)".
 */
class ReportFlow {
  readonly pages: ReportPage[] = [];
  private page: ReportPage = { texts: [], boxes: [] };
  private y = CONTENT_TOP;
  private section: ReportSection | undefined;
  private block: ReportBlock | undefined;

  constructor(private readonly measure: TextMeasure) {
    this.startPage();
  }

  placeSection(section: ReportSection): void {
    this.section = undefined;
    this.block = undefined;
    const heading = this.headingLines(section.title, 'section');
    const firstRow = section.rows[0] ? this.measureRow(section.rows[0], 0) : undefined;
    const needed = this.gapAbove(SECTION_HEADING.gapAbove) + this.sectionHeadingHeight(heading) + this.keepHeight(firstRow, section, undefined);
    if (needed > this.remaining() && !this.atPageTop()) this.startPage();
    this.section = section;
    this.drawSectionHeading(heading, section.id);
    for (const row of section.rows) this.placeRow(this.measureRow(row, 0));
    for (const block of section.blocks) this.placeBlock(block, section);
  }

  private placeBlock(block: ReportBlock, section: ReportSection): void {
    this.block = undefined;
    const heading = this.headingLines(block.title, 'block');
    const firstRow = block.rows[0] ? this.measureRow(block.rows[0], TABLE.blockIndent) : undefined;
    const needed = this.gapAbove(BLOCK_HEADING.gapAbove) + this.blockHeadingHeight(heading) + this.keepHeight(firstRow, section, block);
    if (needed > this.remaining()) this.continueOnNextPage();
    this.block = block;
    this.drawBlockHeading(heading, section.id);
    for (const row of block.rows) this.placeRow(this.measureRow(row, TABLE.blockIndent));
  }

  private placeRow(row: MeasuredRow): void {
    const lineCount = rowLineCount(row);
    if (rowHeight(lineCount) > this.remaining() && rowHeight(lineCount) <= this.freshPageCapacity(this.section, this.block)) {
      this.continueOnNextPage();
    }
    let start = 0;
    while (start < lineCount) {
      if (this.remaining() < rowHeight(1)) this.continueOnNextPage();
      const fitting = Math.floor((this.remaining() - 2 * TABLE.paddingY) / TABLE.lineHeight);
      const end = Math.min(lineCount, start + fitting);
      this.drawRowLines(row, start, end);
      start = end;
    }
  }

  /** The least that must fit below a heading: the first row, or one line of it if it is taller than a page. */
  private keepHeight(firstRow: MeasuredRow | undefined, section: ReportSection, block: ReportBlock | undefined): number {
    if (!firstRow) return 0;
    const whole = rowHeight(rowLineCount(firstRow));
    return whole <= this.freshPageCapacity(section, block) ? whole : rowHeight(1);
  }

  /** Room for rows on a page that starts by continuing `section` (and `block`). */
  private freshPageCapacity(section: ReportSection | undefined, block: ReportBlock | undefined): number {
    let headings = 0;
    if (section) headings += this.sectionHeadingHeight(this.headingLines(section.title + CONTINUED, 'section'));
    if (block) headings += this.blockHeadingHeight(this.headingLines(block.title + CONTINUED, 'block'));
    return CONTENT_TOP - CONTENT_BOTTOM - headings;
  }

  private continueOnNextPage(): void {
    this.startPage();
    if (this.section) this.drawSectionHeading(this.headingLines(this.section.title + CONTINUED, 'section'), this.section.id);
    if (this.block && this.section) {
      this.drawBlockHeading(this.headingLines(this.block.title + CONTINUED, 'block'), this.section.id);
    }
  }

  private startPage(): void {
    this.page = { texts: [], boxes: [] };
    this.pages.push(this.page);
    this.y = CONTENT_TOP;
  }

  private remaining(): number {
    return this.y - CONTENT_BOTTOM;
  }

  private atPageTop(): boolean {
    return this.y === CONTENT_TOP;
  }

  private gapAbove(gap: number): number {
    return this.atPageTop() ? 0 : gap;
  }

  private headingLines(title: string, kind: 'section' | 'block'): string[] {
    const text = this.measure.printable(title);
    if (kind === 'section') {
      return wrapText(text, CONTENT_WIDTH, (piece) => this.measure.width(piece, 'bold', SECTION_HEADING.size));
    }
    const width = CONTENT_WIDTH - 2 * BLOCK_HEADING.paddingX;
    return wrapText(text, width, (piece) => this.measure.width(piece, 'bold', BLOCK_HEADING.size));
  }

  private sectionHeadingHeight(lines: string[]): number {
    return lines.length * SECTION_HEADING.lineHeight + SECTION_HEADING.ruleGap + SECTION_HEADING.gapBelow;
  }

  private blockHeadingHeight(lines: string[]): number {
    return lines.length * BLOCK_HEADING.lineHeight + 2 * BLOCK_HEADING.paddingY;
  }

  private measureRow(row: ReportRow, indent: number): MeasuredRow {
    const labelWidth = TABLE.labelColumnWidth - indent - TABLE.columnGap;
    const label = this.wrap(row.label, labelWidth, 'regular', TABLE.labelSize);
    const value = this.wrap(row.value, VALUE_WIDTH, 'regular', TABLE.valueSize);
    return { labelLines: label, valueLines: value, indent };
  }

  private wrap(text: string, maxWidth: number, weight: FontWeight, size: number): string[] {
    const paragraphs = text.split(/\r?\n/).map((paragraph) => this.measure.printable(paragraph));
    return wrapText(paragraphs.join('\n'), maxWidth, (piece) => this.measure.width(piece, weight, size));
  }

  private drawSectionHeading(lines: string[], sectionId: ReportSectionId): void {
    this.y -= this.gapAbove(SECTION_HEADING.gapAbove);
    for (const line of lines) {
      this.page.texts.push({
        role: 'section-heading',
        text: line,
        x: CONTENT_LEFT,
        y: baselineIn(this.y, SECTION_HEADING.lineHeight, SECTION_HEADING.size),
        size: SECTION_HEADING.size,
        weight: 'bold',
        color: 'accent',
        sectionId,
      });
      this.y -= SECTION_HEADING.lineHeight;
    }
    this.y -= SECTION_HEADING.ruleGap;
    this.page.boxes.push({ x: CONTENT_LEFT, y: this.y, width: CONTENT_WIDTH, height: SECTION_HEADING.ruleThickness, color: 'accent' });
    this.y -= SECTION_HEADING.gapBelow;
  }

  private drawBlockHeading(lines: string[], sectionId: ReportSectionId): void {
    this.y -= this.gapAbove(BLOCK_HEADING.gapAbove);
    const height = this.blockHeadingHeight(lines);
    this.page.boxes.push({ x: CONTENT_LEFT, y: this.y - height, width: CONTENT_WIDTH, height, color: 'band' });
    this.page.boxes.push({ x: CONTENT_LEFT, y: this.y - height, width: 2, height, color: 'bandRule' });
    let top = this.y - BLOCK_HEADING.paddingY;
    for (const line of lines) {
      this.page.texts.push({
        role: 'block-heading',
        text: line,
        x: CONTENT_LEFT + BLOCK_HEADING.paddingX,
        y: baselineIn(top, BLOCK_HEADING.lineHeight, BLOCK_HEADING.size),
        size: BLOCK_HEADING.size,
        weight: 'bold',
        color: 'ink',
        sectionId,
      });
      top -= BLOCK_HEADING.lineHeight;
    }
    this.y -= height;
  }

  /** Lines `start` to `end` (exclusive) of a row, as one table row with a rule below. */
  private drawRowLines(row: MeasuredRow, start: number, end: number): void {
    const sectionId = this.section?.id;
    let top = this.y - TABLE.paddingY;
    for (let index = start; index < end; index += 1) {
      const label = row.labelLines[index];
      const value = row.valueLines[index];
      if (label) this.pushCell('label', label, CONTENT_LEFT + row.indent, top, TABLE.labelSize, 'muted', sectionId);
      if (value) this.pushCell('value', value, VALUE_LEFT, top, TABLE.valueSize, 'ink', sectionId);
      top -= TABLE.lineHeight;
    }
    this.y -= rowHeight(end - start);
    const ruleLeft = CONTENT_LEFT + row.indent;
    this.page.boxes.push({ x: ruleLeft, y: this.y, width: CONTENT_RIGHT - ruleLeft, height: TABLE.ruleThickness, color: 'rule' });
  }

  private pushCell(
    role: 'label' | 'value',
    text: string,
    x: number,
    lineTop: number,
    size: number,
    color: ReportColor,
    sectionId: ReportSectionId | undefined,
  ): void {
    const y = baselineIn(lineTop, TABLE.lineHeight, size);
    this.page.texts.push({ role, text, x, y, size, weight: 'regular', color, ...(sectionId ? { sectionId } : {}) });
  }
}

function addHeader(page: ReportPage, input: UserReportLayoutInput, measure: TextMeasure): void {
  const generated = measure.printable(`Generated ${formatUtc(input.generatedAt)}`);
  const generatedWidth = measure.width(generated, 'regular', HEADER.metaSize);
  const subject = measure.printable(`User ID ${input.user.id}`);
  const subjectWidth = measure.width(subject, 'regular', HEADER.metaSize);
  const organization = fitText(
    measure.printable(input.organizationName),
    CONTENT_WIDTH - generatedWidth - 24,
    (piece) => measure.width(piece, 'bold', HEADER.organizationSize),
  );
  page.texts.push(
    headerText(organization, CONTENT_LEFT, HEADER.organizationBaseline, HEADER.organizationSize, 'bold', 'accent'),
    headerText(generated, CONTENT_RIGHT - generatedWidth, HEADER.organizationBaseline, HEADER.metaSize, 'regular', 'muted'),
    headerText(REPORT_TITLE, CONTENT_LEFT, HEADER.titleBaseline, HEADER.titleSize, 'bold', 'ink'),
    headerText(subject, CONTENT_RIGHT - subjectWidth, HEADER.titleBaseline, HEADER.metaSize, 'regular', 'muted'),
  );
  page.boxes.push({ x: CONTENT_LEFT, y: HEADER.ruleY, width: CONTENT_WIDTH, height: HEADER.ruleThickness, color: 'accent' });
}

function addFooter(page: ReportPage, pageLabel: string, input: UserReportLayoutInput, measure: TextMeasure): void {
  const widthOf = (text: string): number => measure.width(text, 'regular', FOOTER.size);
  const job = measure.printable(`Job ${input.jobId}`);
  const template = measure.printable(`Template ${input.templateVersion}`);
  page.boxes.push({ x: CONTENT_LEFT, y: FOOTER.ruleY, width: CONTENT_WIDTH, height: FOOTER.ruleThickness, color: 'rule' });
  page.texts.push(
    footerText(job, CONTENT_LEFT),
    footerText(template, CONTENT_LEFT + (CONTENT_WIDTH - widthOf(template)) / 2),
    footerText(pageLabel, CONTENT_RIGHT - widthOf(pageLabel)),
  );
}

function headerText(text: string, x: number, y: number, size: number, weight: FontWeight, color: ReportColor): PositionedText {
  return { role: 'header', text, x, y, size, weight, color };
}

function footerText(text: string, x: number): PositionedText {
  return { role: 'footer', text, x, y: FOOTER.baseline, size: FOOTER.size, weight: 'regular', color: 'muted' };
}
