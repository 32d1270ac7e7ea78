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
  'header' | 'footer' | 'summary-heading' | 'section-heading' | 'block-heading' | 'label' | 'value' | 'detail';

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
