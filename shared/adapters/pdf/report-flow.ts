import type { ReportBlock, ReportField, ReportRow, ReportSection } from '#shared/domain/reports/report-content.ts';
import type { ReportSummary } from '#shared/domain/reports/report-summary.ts';
import {
  structureNode,
  type PositionedText,
  type ReportPage,
  type ReportPartId,
  type StructureNode,
  type TextMeasure,
} from './report-layout-model.ts';
import {
  BLOCK_HEADING,
  CONTENT_BOTTOM,
  CONTENT_LEFT,
  CONTENT_RIGHT,
  CONTENT_TOP,
  CONTENT_WIDTH,
  SECTION_HEADING,
  SUMMARY,
  TABLE,
  baselineIn,
  type ReportColor,
} from './report-style.ts';
import type { FontWeight } from './report-fonts.ts';
import { wrapParagraph, wrapText, type WidthOf } from './line-breaking.ts';
import type { TextDirection } from './typesetter.ts';

const CONTINUED = ' (continued)';
/** The label of the part of a row that runs on after a page break. */
const CONTINUED_LABEL = '(continued)';

const VALUE_LEFT = CONTENT_LEFT + TABLE.labelColumnWidth;
/** Where the second field of a two-field row starts: halfway along the value column. */
const SECOND_FIELD_LEFT = VALUE_LEFT + (CONTENT_RIGHT - VALUE_LEFT) / 2;
const SECOND_VALUE_LEFT = SECOND_FIELD_LEFT + TABLE.secondLabelWidth;

/**
 * One line of a cell: its text placed at `x` (flush left, or flush right in a right-to-left
 * paragraph), and the value's small detail text where it follows the line.
 */
interface CellLine {
  text: string;
  x: number;
  direction: TextDirection;
  detail?: { text: string; x: number };
}

interface CellStyle {
  size: number;
  color: ReportColor;
  weight: FontWeight;
}

/** One column of a table row, wrapped to its width. */
interface MeasuredCell extends CellStyle {
  role: 'label' | 'value';
  x: number;
  lines: CellLine[];
}

interface MeasuredRow {
  cells: MeasuredCell[];
  indent: number;
  /** Space kept free before the content's right edge (inside the summary box). */
  rightInset: number;
  /** Made when the row is first drawn: its `TR`'s cells (`TH` for a label, `TD` for a value), and the value details' `Span`s. */
  nodes?: { cells: StructureNode[]; details: Map<number, StructureNode> };
}

const CELL_STYLE = {
  label: { size: TABLE.labelSize, color: 'muted', weight: 'regular' },
  value: { size: TABLE.valueSize, color: 'ink', weight: 'regular' },
  alert: { size: TABLE.valueSize, color: 'alert', weight: 'bold' },
} as const satisfies Record<MeasuredCell['role'] | 'alert', CellStyle>;

function lineCountOf(row: MeasuredRow): number {
  return Math.max(...row.cells.map((cell) => cell.lines.length));
}

function rowHeight(lineCount: number): number {
  return lineCount * TABLE.lineHeight + 2 * TABLE.paddingY;
}

/**
 * Places sections top to bottom, page after page, between the header and the footer area.
 * - A heading is kept with what follows it: a section heading with its first row, a screening
 *   match with all its rows when they fit on one page.
 * - A row moves whole to the next page when it fits there; only a row taller than a page is split,
 *   line by line, its later parts labelled "(continued)".
 * - A page that continues a section (or a match) starts by repeating its heading, marked "(continued)".
 */
export class ReportFlow {
  readonly pages: ReportPage[] = [];
  private page: ReportPage = { texts: [], boxes: [] };
  private y = CONTENT_TOP;
  private section: ReportSection | undefined;
  private block: ReportBlock | undefined;
  /** What the rows being placed belong to. */
  private partId: ReportPartId | undefined;
  /** The `Table` the rows being placed go to: one per run of rows under a heading. */
  private table: StructureNode | undefined;

  constructor(
    private readonly measure: TextMeasure,
    private readonly structure: StructureNode,
  ) {
    this.startPage();
  }

  /**
   * The summary box: a shaded box with a coloured bar on its left (the alert colour when there are
   * flags), its title and rows inside. Placed first, on page 1; it is never split.
   */
  placeSummary(summary: ReportSummary): void {
    this.section = undefined;
    this.block = undefined;
    this.partId = 'summary';
    const rows = summary.rows.map((row) => this.measureRow(row, SUMMARY.paddingX, SUMMARY.paddingX));
    const rowsHeight = rows.reduce((sum, row) => sum + rowHeight(lineCountOf(row)), 0);
    const height = SUMMARY.paddingTop + SUMMARY.titleLineHeight + rowsHeight + SUMMARY.paddingBottom;
    if (height > this.remaining() && !this.atPageTop()) this.startPage();
    const bottom = this.y - height;
    const bar = summary.flags.length > 0 ? 'alert' : 'accent';
    this.page.boxes.push(
      { x: CONTENT_LEFT, y: bottom, width: CONTENT_WIDTH, height, color: 'band' },
      { x: CONTENT_LEFT, y: bottom, width: SUMMARY.barWidth, height, color: bar },
    );
    this.y -= SUMMARY.paddingTop;
    this.table = undefined;
    this.page.texts.push({
      node: structureNode('H2', this.structure),
      role: 'summary-heading',
      text: this.measure.printable(summary.title),
      x: CONTENT_LEFT + SUMMARY.paddingX,
      y: baselineIn(this.y, SUMMARY.titleLineHeight, SUMMARY.titleSize),
      size: SUMMARY.titleSize,
      weight: 'bold',
      color: 'accent',
      sectionId: 'summary',
    });
    this.y -= SUMMARY.titleLineHeight;
    for (const row of rows) this.drawRowLines(row, 0, lineCountOf(row));
    this.y = bottom;
    this.partId = undefined;
  }

  placeSection(section: ReportSection): void {
    this.section = undefined;
    this.block = undefined;
    this.partId = section.id;
    const heading = this.headingLines(section.title, 'section');
    const firstRow = section.rows[0] ? this.measureRow(section.rows[0], 0) : undefined;
    const least = this.sectionHeadingHeight(heading) + this.keepHeight(firstRow, section, undefined);
    if (this.gapAbove(SECTION_HEADING.gapAbove) + least > this.remaining() && !this.atPageTop()) this.startPage();
    this.section = section;
    this.drawSectionHeading(heading, section.id, structureNode('H2', this.structure));
    for (const row of section.rows) this.placeRow(this.measureRow(row, 0));
    for (const block of section.blocks) this.placeBlock(block, section);
  }

  private placeBlock(block: ReportBlock, section: ReportSection): void {
    this.block = undefined;
    const heading = this.headingLines(block.title, 'block');
    const rows = block.rows.map((row) => this.measureRow(row, TABLE.blockIndent));
    const headingHeight = this.blockHeadingHeight(heading);
    const whole = headingHeight + rows.reduce((sum, row) => sum + rowHeight(lineCountOf(row)), 0);
    const fitsOnOnePage = whole <= this.freshPageCapacity(section, undefined);
    const least = fitsOnOnePage ? whole : headingHeight + this.keepHeight(rows[0], section, block);
    if (this.gapAbove(BLOCK_HEADING.gapAbove) + least > this.remaining()) this.continueOnNextPage();
    this.block = block;
    this.drawBlockHeading(heading, section.id, structureNode('H3', this.structure));
    for (const row of rows) this.placeRow(row);
  }

  private placeRow(row: MeasuredRow): void {
    const lineCount = lineCountOf(row);
    const height = rowHeight(lineCount);
    if (height > this.remaining() && height <= this.freshPageCapacity(this.section, this.block)) {
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

  /** The least that must fit below a heading: its first row, or one line of it when the row is taller than a page. */
  private keepHeight(
    firstRow: MeasuredRow | undefined,
    section: ReportSection,
    block: ReportBlock | undefined,
  ): number {
    if (!firstRow) return 0;
    const whole = rowHeight(lineCountOf(firstRow));
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
    if (!this.section) return;
    this.drawSectionHeading(this.headingLines(this.section.title + CONTINUED, 'section'), this.section.id);
    if (this.block) this.drawBlockHeading(this.headingLines(this.block.title + CONTINUED, 'block'), this.section.id);
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

  /** No space above the first thing on a page. */
  private gapAbove(gap: number): number {
    return this.atPageTop() ? 0 : gap;
  }

  private headingLines(title: string, kind: 'section' | 'block'): string[] {
    const { size, width } =
      kind === 'section'
        ? { size: SECTION_HEADING.size, width: CONTENT_WIDTH }
        : { size: BLOCK_HEADING.size, width: CONTENT_WIDTH - 2 * BLOCK_HEADING.paddingX };
    return wrapText(this.measure.printable(title), width, (piece) => this.measure.width(piece, 'bold', size));
  }

  private sectionHeadingHeight(lines: string[]): number {
    return lines.length * SECTION_HEADING.lineHeight + SECTION_HEADING.ruleGap + SECTION_HEADING.gapBelow;
  }

  private blockHeadingHeight(lines: string[]): number {
    return lines.length * BLOCK_HEADING.lineHeight + 2 * BLOCK_HEADING.paddingY;
  }

  /** Cells of a row: label and value, and for a second field its label and value. */
  private measureRow(row: ReportRow, indent: number, rightInset = 0): MeasuredRow {
    const [first, second] = row.fields;
    const rowRight = CONTENT_RIGHT - rightInset + TABLE.columnGap;
    const cells = [
      this.labelCell(first.label, CONTENT_LEFT + indent, VALUE_LEFT),
      this.valueCell(first, VALUE_LEFT, second ? SECOND_FIELD_LEFT : rowRight),
    ];
    if (second) {
      cells.push(
        this.labelCell(second.label, SECOND_FIELD_LEFT, SECOND_VALUE_LEFT),
        this.valueCell(second, SECOND_VALUE_LEFT, rowRight),
      );
    }
    return { cells, indent, rightInset };
  }

  private labelCell(label: string, left: number, right: number): MeasuredCell {
    return this.cell('label', CELL_STYLE.label, label, left, right);
  }

  /** A value, its detail (a stored code) in small text after its last line, or below when it does not fit. */
  private valueCell(field: ReportField, left: number, right: number): MeasuredCell {
    const style = field.tone === 'alert' ? CELL_STYLE.alert : CELL_STYLE.value;
    const cell = this.cell('value', style, field.value, left, right);
    if (field.detail !== undefined) this.attachDetail(cell, field.detail, right - TABLE.columnGap - left);
    return cell;
  }

  /**
   * A cell from `left` up to the column gap before `right`. Each paragraph (a line of the value)
   * has its own direction: a right-to-left one is set flush right, starting at the column's right
   * edge, and each of its lines is shaped right to left as a whole (typesetter.ts).
   */
  private cell(role: MeasuredCell['role'], style: CellStyle, text: string, left: number, right: number): MeasuredCell {
    const width = right - TABLE.columnGap - left;
    const widthOf: WidthOf = (piece) => this.measure.width(piece, style.weight, style.size);
    const lines: CellLine[] = [];
    for (const paragraph of text.split(/\r?\n/).map((each) => this.measure.printable(each))) {
      const direction = this.measure.direction(paragraph);
      for (const line of wrapParagraph(paragraph, width, widthOf)) {
        const x = direction === 'rtl' ? left + width - widthOf(line) : left;
        lines.push({ text: line, x, direction });
      }
    }
    return { role, ...style, x: left, lines };
  }

  /**
   * `(detail)` in small text after the last line (on its left, where the line runs right to left),
   * a space apart; on lines of its own when it does not fit there.
   */
  private attachDetail(cell: MeasuredCell, detail: string, width: number): void {
    const text = `(${this.measure.printable(detail)})`;
    const detailWidthOf: WidthOf = (piece) => this.measure.width(piece, 'regular', TABLE.detailSize);
    const gap = this.measure.width(' ', cell.weight, cell.size);
    const last = cell.lines.at(-1);
    const detailWidth = detailWidthOf(text);
    if (last) {
      const lastWidth = last.text === '' ? 0 : this.measure.width(last.text, cell.weight, cell.size);
      if (lastWidth + gap + detailWidth <= width) {
        const x = last.direction === 'rtl' ? last.x - gap - detailWidth : last.x + lastWidth + gap;
        last.detail = { text, x };
        return;
      }
    }
    for (const line of wrapParagraph(text, width, detailWidthOf)) {
      cell.lines.push({ text: '', x: cell.x, direction: 'ltr', detail: { text: line, x: cell.x } });
    }
  }

  /** `node`: the heading's structure node; none for a heading repeated on a continuation page (furniture). */
  private drawSectionHeading(lines: string[], sectionId: ReportPartId, node?: StructureNode): void {
    this.y -= this.gapAbove(SECTION_HEADING.gapAbove);
    if (node) this.table = undefined;
    for (const line of lines) {
      const y = baselineIn(this.y, SECTION_HEADING.lineHeight, SECTION_HEADING.size);
      this.page.texts.push({
        role: 'section-heading',
        text: line,
        x: CONTENT_LEFT,
        y,
        size: SECTION_HEADING.size,
        weight: 'bold',
        color: 'accent',
        sectionId,
        ...(node && { node }),
      });
      this.y -= SECTION_HEADING.lineHeight;
    }
    this.y -= SECTION_HEADING.ruleGap;
    this.page.boxes.push({
      x: CONTENT_LEFT,
      y: this.y,
      width: CONTENT_WIDTH,
      height: SECTION_HEADING.ruleThickness,
      color: 'accent',
    });
    this.y -= SECTION_HEADING.gapBelow;
  }

  /** A shaded band with a darker left edge, the title inside. */
  private drawBlockHeading(lines: string[], sectionId: ReportPartId, node?: StructureNode): void {
    this.y -= this.gapAbove(BLOCK_HEADING.gapAbove);
    if (node) this.table = undefined;
    const height = this.blockHeadingHeight(lines);
    const bottom = this.y - height;
    this.page.boxes.push(
      { x: CONTENT_LEFT, y: bottom, width: CONTENT_WIDTH, height, color: 'band' },
      { x: CONTENT_LEFT, y: bottom, width: 2, height, color: 'bandRule' },
    );
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
        ...(node && { node }),
      });
      top -= BLOCK_HEADING.lineHeight;
    }
    this.y = bottom;
  }

  /** Lines `start` to `end` (exclusive) of a row, drawn as one table row with a rule below. */
  private drawRowLines(row: MeasuredRow, start: number, end: number): void {
    const sectionId = this.partId;
    const part = sectionId ? { sectionId } : {};
    const nodes = (row.nodes ??= this.rowNodes(row));
    row.cells.forEach((cell, index) => {
      const { role, size, color, weight } = cell;
      const continued = role === 'label' && start > 0;
      const lines = continued
        ? [{ text: CONTINUED_LABEL, x: cell.x, direction: 'ltr' as const }]
        : cell.lines.slice(start, end);
      const node = continued ? {} : { node: nodes.cells[index]! };
      // Labels are smaller than values; they share the values' baseline so each line reads level.
      let y = baselineIn(this.y - TABLE.paddingY, TABLE.lineHeight, TABLE.valueSize);
      for (const line of lines) {
        if (line.text !== '') {
          const direction = line.direction === 'rtl' ? { direction: line.direction } : {};
          this.page.texts.push({
            role,
            text: line.text,
            x: line.x,
            y,
            size,
            weight,
            color,
            ...part,
            ...direction,
            ...node,
          });
        }
        if (line.detail) {
          let detail = nodes.details.get(index);
          if (!detail) {
            detail = structureNode('Span', nodes.cells[index]);
            nodes.details.set(index, detail);
          }
          this.page.texts.push({ ...detailText(line.detail, y, part), node: detail });
        }
        y -= TABLE.lineHeight;
      }
    });
    this.y -= rowHeight(end - start);
    const left = CONTENT_LEFT + row.indent;
    this.page.boxes.push({
      x: left,
      y: this.y,
      width: CONTENT_RIGHT - row.rightInset - left,
      height: TABLE.ruleThickness,
      color: 'rule',
    });
  }

  /** A row's `TR` in the current table (started at its first row) and its cells. */
  private rowNodes(row: MeasuredRow): NonNullable<MeasuredRow['nodes']> {
    this.table ??= structureNode('Table', this.structure);
    const tr = structureNode('TR', this.table);
    const cells = row.cells.map((cell) => structureNode(cell.role === 'label' ? 'TH' : 'TD', tr));
    return { cells, details: new Map() };
  }
}

function detailText(
  detail: { text: string; x: number },
  y: number,
  part: { sectionId?: ReportPartId },
): PositionedText {
  const { text, x } = detail;
  return { role: 'detail', text, x, y, size: TABLE.detailSize, weight: 'regular', color: 'muted', ...part };
}
