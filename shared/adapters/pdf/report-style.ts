/** Geometry, type sizes and colours of the user report, in PDF points (1/72 in) from the bottom left. */

export const PAGE = {
  width: 595.28, // A4
  height: 841.89,
  marginX: 50,
  marginTop: 36,
  marginBottom: 34,
} as const;

export const CONTENT_LEFT = PAGE.marginX;
export const CONTENT_RIGHT = PAGE.width - PAGE.marginX;
export const CONTENT_WIDTH = CONTENT_RIGHT - CONTENT_LEFT;

export const HEADER = {
  organizationBaseline: PAGE.height - PAGE.marginTop - 8,
  organizationSize: 9,
  metaSize: 8,
  titleBaseline: PAGE.height - PAGE.marginTop - 32,
  titleSize: 17,
  ruleY: PAGE.height - PAGE.marginTop - 43,
  ruleThickness: 1.2,
  /** Least space between the organization name and the generation time. */
  minGap: 24,
  /** Gap between the header rule and the first content. */
  gapBelow: 14,
} as const;

export const FOOTER = {
  /** Job id, template version and page number. */
  baseline: PAGE.marginBottom - 6,
  /** The confidentiality line, above the job line. */
  noticeBaseline: PAGE.marginBottom + 4,
  size: 7.5,
  ruleY: PAGE.marginBottom + 14,
  ruleThickness: 0.5,
  /** Gap kept free above the footer rule. */
  gapAbove: 12,
} as const;

/** Content flows between these two lines; nothing but the footer is drawn below `CONTENT_BOTTOM`. */
export const CONTENT_TOP = HEADER.ruleY - HEADER.gapBelow;
export const CONTENT_BOTTOM = FOOTER.ruleY + FOOTER.gapAbove;

export const SECTION_HEADING = {
  size: 11,
  lineHeight: 15,
  /** Space above a heading that follows other content on the page. */
  gapAbove: 14,
  ruleGap: 4,
  ruleThickness: 0.75,
  gapBelow: 1,
} as const;

export const BLOCK_HEADING = {
  size: 8.75,
  lineHeight: 12,
  gapAbove: 9,
  paddingY: 3,
  paddingX: 6,
} as const;

export const TABLE = {
  labelSize: 7.75,
  valueSize: 8.5,
  lineHeight: 11,
  paddingY: 2.75,
  /** From the content's left edge to the value column. */
  labelColumnWidth: 158,
  /** In a row of two fields, the width of the second field's label column. */
  secondLabelWidth: 60,
  /** Indent of a screening match's rows below its block heading. */
  blockIndent: 6,
  columnGap: 10,
  ruleThickness: 0.4,
  /** The small text after a value (a humanised value's stored code). */
  detailSize: 6.5,
} as const;

/** The summary box at the top of page 1. */
export const SUMMARY = {
  titleSize: 11,
  titleLineHeight: 15,
  paddingTop: 5,
  paddingBottom: 3,
  /** Inset of the rows from the box's left and right edges. */
  paddingX: 8,
  /** The coloured bar on the box's left edge. */
  barWidth: 3,
} as const;

export type ReportColor = 'ink' | 'muted' | 'accent' | 'rule' | 'band' | 'bandRule' | 'alert' | 'watermark';

/** RGB, 0 to 1. */
export const COLORS: Record<ReportColor, readonly [number, number, number]> = {
  ink: [0.11, 0.12, 0.14],
  muted: [0.38, 0.41, 0.45],
  accent: [0.09, 0.23, 0.4],
  rule: [0.82, 0.84, 0.87],
  band: [0.94, 0.95, 0.97],
  bandRule: [0.62, 0.68, 0.76],
  /** Flags: a dark red that prints legibly in grey too. */
  alert: [0.7, 0.11, 0.11],
  /** The sandbox watermark: light enough that the text drawn over it stays legible, also in grey. */
  watermark: [0.97, 0.8, 0.8],
};

/** The sandbox watermark, across each page from bottom left to top right. */
export const WATERMARK = {
  /** The largest size; a longer text is set smaller to fit three quarters of the diagonal. */
  maxSize: 40,
  diagonalShare: 0.75,
  /** The same text as a line in the top margin, above the header. */
  bannerSize: 8,
  bannerBaseline: PAGE.height - 22,
} as const;

/** Baseline of a line of `size` text centred in a line box whose top is `top`. */
export function baselineIn(top: number, lineHeight: number, size: number): number {
  // Noto Sans capitals are about 0.71 em tall; centre them in the line box.
  return top - (lineHeight + 0.71 * size) / 2;
}
