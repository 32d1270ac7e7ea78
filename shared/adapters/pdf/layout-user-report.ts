import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { userReportSections } from '#shared/domain/reports/report-content.ts';
import { reportSummary } from '#shared/domain/reports/report-summary.ts';
import { ReportFlow } from './report-flow.ts';
import {
  structureNode,
  type PositionedText,
  type ReportLayout,
  type ReportPage,
  type StructureNode,
  type TextMeasure,
} from './report-layout-model.ts';
import {
  CONTENT_LEFT,
  CONTENT_RIGHT,
  CONTENT_WIDTH,
  FOOTER,
  HEADER,
  PAGE,
  WATERMARK,
  type ReportColor,
} from './report-style.ts';
import type { FontWeight } from './report-fonts.ts';
import { fitText } from './line-breaking.ts';
import { formatUtc } from '#shared/domain/reports/report-values.ts';

export type {
  PositionedBox,
  PositionedText,
  ReportLayout,
  ReportPage,
  ReportPartId,
  StructureNode,
  TextMeasure,
  TextRole,
} from './report-layout-model.ts';

export const REPORT_TITLE = 'User status report';

/** Across every page of a sandbox report, and in its document title (docs/contract.md §23). */
export const SANDBOX_REPORT_MARK = 'SANDBOX - NOT A SCREENING RESULT';

export interface UserReportLayoutInput {
  user: UserRecord;
  organizationName: string;
  jobId: string;
  generatedAt: Date;
  templateVersion: string;
  /** The `sub` of the token that requested the report; absent for jobs created before it was recorded. */
  requestedBy?: string | undefined;
  /** A sandbox report: every page carries `SANDBOX_REPORT_MARK` across it. */
  sandbox?: boolean | undefined;
}

/** The footer's notice on every page: the report holds a person's data and goes no further. */
export function confidentialityNotice(userId: string): string {
  return `Confidential — contains personal data of user ${userId}; do not forward.`;
}

/** The page-1 header as read: the title, then organization, generation time and user id. */
interface HeaderNodes {
  title: StructureNode;
  organization: StructureNode;
  generated: StructureNode;
  subject: StructureNode;
}

/**
 * Lays a user report out on A4 pages: the summary box at the top of page 1, then the sections. All
 * content is placed first; header and footer are added afterwards, when the page count for
 * "Page n of m" is known. The page-1 header is content (the report's title as `H1`); the header of
 * later pages and every footer are furniture.
 */
export function layoutUserReport(input: UserReportLayoutInput, measure: TextMeasure): ReportLayout {
  const context = { generatedAt: input.generatedAt, requestedBy: input.requestedBy };
  const structure = structureNode('Document');
  const header: HeaderNodes = {
    title: structureNode('H1', structure),
    organization: structureNode('P', structure),
    generated: structureNode('P', structure),
    subject: structureNode('P', structure),
  };
  const flow = new ReportFlow(measure, structure);
  flow.placeSummary(reportSummary(input.user, context));
  for (const section of userReportSections(input.user, context)) flow.placeSection(section);
  const pages = flow.pages;
  pages.forEach((page, index) => {
    addHeader(page, input, measure, index === 0 ? header : undefined);
    addFooter(page, `Page ${index + 1} of ${pages.length}`, input, measure);
    if (input.sandbox) addWatermark(page, measure);
  });
  return { pages, structure };
}

/** Organization and generation time above the title and the user id, over a rule. */
function addHeader(
  page: ReportPage,
  input: UserReportLayoutInput,
  measure: TextMeasure,
  nodes: HeaderNodes | undefined,
): void {
  const generated = measure.printable(`Generated ${formatUtc(input.generatedAt)}`);
  const generatedWidth = measure.width(generated, 'regular', HEADER.metaSize);
  const subject = measure.printable(`User ID ${input.user.id}`);
  const subjectWidth = measure.width(subject, 'regular', HEADER.metaSize);
  const organization = fitText(
    measure.printable(input.organizationName),
    CONTENT_WIDTH - generatedWidth - HEADER.minGap,
    (piece) => measure.width(piece, 'bold', HEADER.organizationSize),
  );
  const { organizationBaseline, titleBaseline } = HEADER;
  const texts: Array<[PositionedText, StructureNode | undefined]> = [
    [
      headerText(organization, CONTENT_LEFT, organizationBaseline, HEADER.organizationSize, 'bold', 'accent'),
      nodes?.organization,
    ],
    [
      headerText(generated, CONTENT_RIGHT - generatedWidth, organizationBaseline, HEADER.metaSize, 'regular', 'muted'),
      nodes?.generated,
    ],
    [headerText(REPORT_TITLE, CONTENT_LEFT, titleBaseline, HEADER.titleSize, 'bold', 'ink'), nodes?.title],
    [
      headerText(subject, CONTENT_RIGHT - subjectWidth, titleBaseline, HEADER.metaSize, 'regular', 'muted'),
      nodes?.subject,
    ],
  ];
  for (const [text, node] of texts) page.texts.push(node ? { ...text, node } : text);
  page.boxes.push({
    x: CONTENT_LEFT,
    y: HEADER.ruleY,
    width: CONTENT_WIDTH,
    height: HEADER.ruleThickness,
    color: 'accent',
  });
}

/**
 * Under a thin rule: the confidentiality notice, centred; below it the job id left, the template
 * version centred and the page number right.
 */
function addFooter(page: ReportPage, pageLabel: string, input: UserReportLayoutInput, measure: TextMeasure): void {
  const widthOf = (text: string): number => measure.width(text, 'regular', FOOTER.size);
  const job = measure.printable(`Job ${input.jobId}`);
  const template = measure.printable(`Template ${input.templateVersion}`);
  const notice = fitText(measure.printable(confidentialityNotice(input.user.id)), CONTENT_WIDTH, widthOf);
  page.boxes.push({
    x: CONTENT_LEFT,
    y: FOOTER.ruleY,
    width: CONTENT_WIDTH,
    height: FOOTER.ruleThickness,
    color: 'rule',
  });
  page.texts.push(
    { ...footerText(notice, CONTENT_LEFT + (CONTENT_WIDTH - widthOf(notice)) / 2), y: FOOTER.noticeBaseline },
    footerText(job, CONTENT_LEFT),
    footerText(template, CONTENT_LEFT + (CONTENT_WIDTH - widthOf(template)) / 2),
    footerText(pageLabel, CONTENT_RIGHT - widthOf(pageLabel)),
  );
}

/**
 * `SANDBOX_REPORT_MARK` twice on the page, both page furniture (watermark artifacts): along the
 * diagonal, large and light, drawn before the page's other text so that text stays on top; and as
 * a line centred in the top margin, which text extraction reads as one line (readers take diagonal
 * text apart letter by letter). Neither takes room from the content, so a sandbox report has the
 * pages a live one of the same user has.
 */
function addWatermark(page: ReportPage, measure: TextMeasure): void {
  const angle = Math.atan2(PAGE.height, PAGE.width);
  const diagonal = Math.hypot(PAGE.width, PAGE.height);
  const widthAtOne = measure.width(SANDBOX_REPORT_MARK, 'bold', 1);
  const size = Math.min(WATERMARK.maxSize, (WATERMARK.diagonalShare * diagonal) / widthAtOne);
  const width = widthAtOne * size;
  // The baseline starts half the text's width before the centre, lowered by half the capitals' height.
  const [along, across] = [-width / 2, (-0.71 * size) / 2];
  const x = PAGE.width / 2 + along * Math.cos(angle) - across * Math.sin(angle);
  const y = PAGE.height / 2 + along * Math.sin(angle) + across * Math.cos(angle);
  const mark = { role: 'watermark', text: SANDBOX_REPORT_MARK, weight: 'bold' } as const;
  page.texts.unshift({ ...mark, x, y, size, color: 'watermark', angle: (angle * 180) / Math.PI });
  const bannerWidth = widthAtOne * WATERMARK.bannerSize;
  page.texts.push({
    ...mark,
    x: (PAGE.width - bannerWidth) / 2,
    y: WATERMARK.bannerBaseline,
    size: WATERMARK.bannerSize,
    color: 'alert',
  });
}

function headerText(
  text: string,
  x: number,
  y: number,
  size: number,
  weight: FontWeight,
  color: ReportColor,
): PositionedText {
  return { role: 'header', text, x, y, size, weight, color };
}

function footerText(text: string, x: number): PositionedText {
  return { role: 'footer', text, x, y: FOOTER.baseline, size: FOOTER.size, weight: 'regular', color: 'muted' };
}
