import type { ReportSectionId } from '#shared/domain/reports/report-content.ts';
import type { ReportColor } from './report-style.ts';
import type { FontWeight } from './report-fonts.ts';
import type { TextDirection, Typesetter } from './typesetter.ts';

/**
 * A laid-out report: every piece of text with its position, face and colour, and the filled boxes
 * (rules, bands). The renderer only paints this; tests check pagination on it without parsing a PDF.
 */

/** What layout needs of the faces: cleaning text and measuring it. */
export type TextMeasure = Pick<Typesetter, 'printable' | 'width' | 'direction'>;

/** `detail`: the small text after a value (a humanised value's stored code). */
export type TextRole =
  | 'header'
  | 'footer'
  | 'watermark'
  | 'summary-heading'
  | 'section-heading'
  | 'block-heading'
  | 'label'
  | 'value'
  | 'detail';

/**
 * A node of the report's logical structure (what a screen reader navigates): headings, tables of
 * rows of header and data cells, paragraphs. Nodes are made in reading order, each appended to its
 * parent's `children`; the text drawn for a node points to it. Text that points to no node is page
 * furniture (header and footer, a heading repeated with "(continued)"). Standard structure types
 * of PDF 1.7 (14.8.4): `Span` is a part of a cell read apart from it (a value's stored code).
 */
export interface StructureNode {
  role: 'Document' | 'H1' | 'H2' | 'H3' | 'P' | 'Table' | 'TR' | 'TH' | 'TD' | 'Span';
  children: StructureNode[];
}

/** A new node, appended to `parent`'s children. */
export function structureNode(role: StructureNode['role'], parent?: StructureNode): StructureNode {
  const node: StructureNode = { role, children: [] };
  parent?.children.push(node);
  return node;
}

/** Where a content line belongs: the page-1 summary or a section. */
export type ReportPartId = ReportSectionId | 'summary';

export interface PositionedText {
  role: TextRole;
  text: string;
  /** Left end of the baseline, in points from the page's bottom left. */
  x: number;
  y: number;
  size: number;
  weight: FontWeight;
  color: ReportColor;
  /** The part a content line belongs to; absent on header and footer. */
  sectionId?: ReportPartId;
  /**
   * Set on a line of a right-to-left paragraph: it is shaped right to left as a whole (its final
   * full stop ends up leftmost) and placed flush with the right edge of its column.
   */
  direction?: TextDirection;
  /** The structure node this text is part of; absent on page furniture. */
  node?: StructureNode;
  /** Counter-clockwise rotation about (x, y), in degrees (the sandbox watermark). */
  angle?: number;
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
  /** The `Document` node: the report's structure in reading order. */
  structure: StructureNode;
}
