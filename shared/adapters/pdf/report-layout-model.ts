import type { ReportSectionId } from '#shared/domain/reports/report-content.ts';
import type { ReportColor } from './report-style.ts';
import type { FontWeight } from './report-fonts.ts';
import type { Typesetter } from './typesetter.ts';

/**
 * A laid-out report: every piece of text with its position, face and colour, and the filled boxes
 * (rules, bands). The renderer only paints this; tests check pagination on it without parsing a PDF.
 */

/** What layout needs of the faces: cleaning text and measuring it. */
export type TextMeasure = Pick<Typesetter, 'printable' | 'width'>;

export type TextRole = 'header' | 'footer' | 'section-heading' | 'block-heading' | 'label' | 'value';

export interface PositionedText {
  role: TextRole;
  text: string;
  /** Left end of the baseline, in points from the page's bottom left. */
  x: number;
  y: number;
  size: number;
  weight: FontWeight;
  color: ReportColor;
  /** The section a content line belongs to; absent on header and footer. */
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
