import { describe, expect, it } from 'vitest';
import {
  layoutUserReport,
  type PositionedText,
  type ReportLayout,
  type ReportPage,
} from '#shared/adapters/pdf/layout-user-report.ts';
import { REPORT_SECTION_IDS } from '#shared/domain/reports/report-content.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import {
  CONTENT_BOTTOM,
  CONTENT_LEFT,
  CONTENT_RIGHT,
  CONTENT_TOP,
  FOOTER,
  HEADER,
  TABLE,
} from '#shared/adapters/pdf/report-style.ts';
import { Typesetter } from '#shared/adapters/pdf/typesetter.ts';
import { REPORT_TEMPLATE_VERSION } from '#shared/domain/reports/report-template-version.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import {
  GENERATED_AT,
  JOB_ID,
  ORGANIZATION_NAME,
  hebrewDemoUser,
  screeningEntry,
  typicalUser,
  userWithMatches,
} from './user-report-fixtures.ts';

const typeface = new Typesetter(loadReportFonts());

function layout(
  user: UserRecord,
  organizationName = ORGANIZATION_NAME,
  more: { generatedAt?: Date; requestedBy?: string } = {},
): ReportLayout {
  const input = {
    user,
    organizationName,
    jobId: JOB_ID,
    generatedAt: more.generatedAt ?? GENERATED_AT,
    templateVersion: REPORT_TEMPLATE_VERSION,
    requestedBy: more.requestedBy,
  };
  return layoutUserReport(input, typeface);
}

const isContent = (text: PositionedText): boolean => text.role !== 'header' && text.role !== 'footer';
const isHeading = (text: PositionedText): boolean => text.role === 'section-heading' || text.role === 'block-heading';
const texts = (page: ReportPage, role: PositionedText['role']): string[] =>
  page.texts.filter((text) => text.role === role).map((text) => text.text);

/** The first line of the value of the row labelled `label` (first match), as laid out. */
function valueTextOf(
  report: ReportLayout,
  label: string,
  role: 'value' | 'detail' = 'value',
): PositionedText | undefined {
  for (const page of report.pages) {
    const labelText = page.texts.find((text) => text.role === 'label' && text.text === label);
    if (labelText)
      return page.texts.find((text) => text.role === role && text.y === labelText.y && text.x > labelText.x);
  }
  return undefined;
}

/** Value of the row labelled `label` (first match, first line). */
function valueOf(report: ReportLayout, label: string): string | undefined {
  return valueTextOf(report, label)?.text;
}

const rightEdge = (text: PositionedText): number => text.x + typeface.width(text.text, text.weight, text.size);

describe('layoutUserReport', () => {
  const long = layout(userWithMatches(60));

  it('paginates a 60-match screening onto many pages', () => {
    expect(layout(typicalUser()).pages).toHaveLength(3);
    expect(long.pages.length).toBeGreaterThan(10);
  });

  it('ends every page with a footer: the confidentiality notice, the job, the template version and "Page i of n"', () => {
    long.pages.forEach((page, index) => {
      expect(texts(page, 'footer')).toEqual([
        'Confidential — contains personal data of user usr-0001; do not forward.',
        `Job ${JOB_ID}`,
        `Template ${REPORT_TEMPLATE_VERSION}`,
        `Page ${index + 1} of ${long.pages.length}`,
      ]);
    });
  });

  it('heads every page with organization, title, generation time in UTC and the user id', () => {
    for (const page of long.pages) {
      expect(texts(page, 'header')).toEqual([
        ORGANIZATION_NAME,
        'Generated 2026-11-03 14:05:09 UTC',
        'User status report',
        'User ID usr-0001',
      ]);
    }
  });

  it('shortens an organization name too long for the header with an ellipsis', () => {
    const page = layout(typicalUser(), 'The Very Long Name Of A Sports And Leisure Organization '.repeat(4)).pages[0];

    const [organization, generated] = page!.texts.filter((text) => text.role === 'header');
    expect(organization!.text).toMatch(/…$/);
    expect(organization!.x + typeface.width(organization!.text, 'bold', organization!.size)).toBeLessThan(
      generated!.x - 12,
    );
  });

  it('keeps all content between the header and the footer and inside the right margin', () => {
    for (const page of [...long.pages, ...layout(userWithMatches(3)).pages]) {
      for (const text of page.texts.filter(isContent)) {
        expect(text.y - 0.3 * text.size).toBeGreaterThanOrEqual(CONTENT_BOTTOM);
        expect(text.y + text.size).toBeLessThanOrEqual(CONTENT_TOP);
        expect(text.x + typeface.width(text.text, text.weight, text.size)).toBeLessThanOrEqual(CONTENT_RIGHT + 0.01);
      }
      for (const box of page.boxes.filter((box) => box.y !== FOOTER.ruleY && box.y !== HEADER.ruleY)) {
        expect(box.y).toBeGreaterThanOrEqual(CONTENT_BOTTOM);
        expect(box.y + box.height).toBeLessThanOrEqual(CONTENT_TOP);
      }
    }
  });

  it('lays the sections out in the order of the contract', () => {
    const headings = layout(typicalUser()).pages.flatMap((page) =>
      page.texts.filter((text) => text.role === 'section-heading'),
    );

    const order = headings.map((heading) => heading.sectionId).filter((id, index, ids) => id !== ids[index - 1]);
    expect(order).toEqual([...REPORT_SECTION_IDS]);
  });

  it('never leaves a heading as the last content of a page', () => {
    for (const report of [long, layout(typicalUser()), layout(userWithMatches(7, 4))]) {
      for (const page of report.pages) {
        const content = page.texts.filter(isContent);
        expect(isHeading(content.at(-1)!)).toBe(false);
      }
    }
  });

  it('repeats the section heading, marked as continued, on each page the screening flows onto', () => {
    const continued = long.pages.slice(2).map((page) => texts(page, 'section-heading')[0]);

    expect(new Set(continued.slice(0, -1))).toEqual(new Set(['PEP and sanction screening (continued)']));
  });

  it('shows one block per screening match, numbered', () => {
    const blockHeadings = layout(userWithMatches(2, 1)).pages.flatMap((page) => texts(page, 'block-heading'));

    expect(blockHeadings).toEqual([
      'PEP match 1 of 2: Viktor Andreevich Petrenko-1',
      'PEP match 2 of 2: Viktor Petrenko-2',
      'Sanction match 1 of 1: Viktor Andreevich Petrenko-3',
    ]);
  });

  it('formats booleans as Yes/No, scores with two decimals and instants in UTC', () => {
    const report = layout(typicalUser({ selfie_liveness_score: 0.9731, fmc_score: 87.5, is_deleted: false }));

    expect(valueOf(report, 'Data sharing agreed')).toBe('Yes');
    expect(valueOf(report, 'Record deleted')).toBe('No');
    expect(valueOf(report, 'Selfie liveness score')).toBe('0.97');
    expect(valueOf(report, 'Face match score')).toBe('87.50');
    expect(valueOf(report, 'Created')).toBe('2026-09-14 08:01:22 UTC');
    expect(valueOf(report, 'PEP matches')).toBe('1');
  });

  it('shows "—" for every field a minimal record lacks', () => {
    const report = layout({ id: 'u-1', organization_id: 'org-1', created_at: '2026-01-01T00:00:00.000Z' });

    for (const label of [
      'Name',
      'Email',
      'Guardian name',
      'Data sharing agreed',
      'Selfie liveness score',
      'Result status',
      'Override notes',
      'Last updated',
    ]) {
      expect(valueOf(report, label)).toBe('—');
    }
    expect(valueOf(report, 'PEP matches')).toBe('0');
  });

  it('wraps a long value onto several lines and splits one taller than a page across pages', () => {
    const notes = 'Reviewed against the sanction list and the supporting documents. '.repeat(150);
    const report = layout(typicalUser({ override_notes: notes }));

    const [, ...noteLines] = report.pages.flatMap((page) =>
      page.texts.filter((text) => text.role === 'value' && text.sectionId === 'overrides'),
    ); // after the override status
    expect(noteLines.length).toBeGreaterThan(60);
    const pagesWithNotes = report.pages.filter((page) => page.texts.some((text) => text.sectionId === 'overrides'));
    expect(pagesWithNotes.length).toBeGreaterThan(1);
    expect(texts(pagesWithNotes[1]!, 'label')).toContain('(continued)');
    expect(noteLines.map((line) => line.text).join(' ') === notes.trim()).toBe(true);
  });

  it('breaks a word wider than the value column instead of overflowing', () => {
    const report = layout(typicalUser({ email: `${'x'.repeat(200)}@example.com` }));

    const emailLines = report.pages[0]!.texts.filter(
      (text) => text.role === 'value' && text.text.includes('x'.repeat(20)),
    );
    expect(emailLines.length).toBeGreaterThan(1);
  });

  it('breaks a long hyphenated name only at spaces and after hyphens', () => {
    const name =
      'Maximiliane Sophie von Rodenegg-Trostburg-Überetsch-Hohenfreyberg-Schwangau zu Waldburg-Zeil-Hohenems';
    const report = layout(typicalUser({ name }));

    const nameLines = report.pages[0]!.texts.filter(
      (text) => text.role === 'value' && text.y <= labelY(report, 'Name') && text.y > labelY(report, 'First name'),
    );
    expect(nameLines.length).toBeGreaterThan(1);
    for (const line of nameLines.slice(0, -1)) expect(line.text).toMatch(/-$|[a-zäöü]$/u);
    const joined = nameLines
      .map((line) => line.text)
      .reduce((all, line) => (all.endsWith('-') ? all + line : `${all} ${line}`));
    expect(joined).toBe(name);
  });

  it('shows every detail of a screening match: each alias, gender, status, datasets, addresses, each note, evidences, flags and QR code', () => {
    const match = screeningEntry(0, {
      firstName: 'Olena',
      lastName: 'Kovalenko',
      gender: 'female',
      status: 'Active',
      datasets: ['SAN-CURRENT', 'PEP-LINKED'],
      aliases: ['Elena Kovalenko', { name: 'О. Коваленко' }, { firstName: 'Lena', lastName: 'K.' }],
      notes: ['Listed under an asset-freeze regime.', 'Listing under review since 2026-03.'],
      evidences: [
        { evidenceId: 'EV-204911', title: 'Consolidated sanctions list', datePublished: '2025-02-14' },
        'Press release of 2025-02-15',
      ],
      isDeleted: true,
      isDeceased: true,
      qrCode: 'QR4711000042',
    });
    const report = layout(
      typicalUser({
        idcheck_pep_sanction_result: {
          status: 'Flagged',
          timestamp: '2026-10-29T09:12:44.000Z',
          pep_result: [],
          sanction_result: [match],
        },
      }),
    );

    const values = report.pages.flatMap((page) =>
      page.texts.filter((text) => text.role === 'value' && text.sectionId === 'screening').map((text) => text.text),
    );
    for (const expected of [
      'Olena',
      'Kovalenko',
      'female',
      'Active',
      'SAN-CURRENT, PEP-LINKED',
      'Elena Kovalenko',
      'О. Коваленко',
      'Lena K.',
      'Listed under an asset-freeze regime.',
      'Listing under review since 2026-03.',
      'EV-204911: Consolidated sanctions list (2025-02-14)',
      'Press release of 2025-02-15',
      'QR4711000042',
      '12 Khreshchatyk Street, Kyiv, 01001, UA (Residential)',
      '4 Rue de la Paix, Paris, 75002, FR',
    ]) {
      expect(values).toContain(expected);
    }
    expect(valueOf(report, 'Deleted')).toBe('Yes');
    expect(valueOf(report, 'Deceased')).toBe('Yes');
    expect(valueOf(report, 'Aliases')).toBe('Elena Kovalenko');
  });

  it('heads a Chinese, Japanese or Korean match with the family name first, without spaces', () => {
    const report = layout(
      typicalUser({
        idcheck_pep_sanction_result: {
          status: 'Flagged',
          timestamp: '2026-10-29T09:12:44.000Z',
          pep_result: [screeningEntry(0, { firstName: '伟', middleName: '', lastName: '王' })],
          sanction_result: [screeningEntry(1, { firstName: '민준', middleName: undefined, lastName: '김' })],
        },
      }),
    );

    const headings = report.pages.flatMap((page) => texts(page, 'block-heading'));
    expect(headings).toEqual(['PEP match 1 of 1: 王伟', 'Sanction match 1 of 1: 김민준']);
  });

  it('flows a match whose lists are longer than a page onto the next pages, every entry shown', () => {
    const aliases = Array.from({ length: 120 }, (_, index) => `Alias number ${index + 1}`);
    const report = layout(
      typicalUser({
        idcheck_pep_sanction_result: {
          status: 'Flagged',
          timestamp: '2026-10-29T09:12:44.000Z',
          pep_result: [screeningEntry(0, { aliases })],
          sanction_result: [],
        },
      }),
    );

    const values = report.pages.flatMap((page) =>
      page.texts.filter((text) => text.role === 'value').map((text) => text.text),
    );
    for (const alias of aliases) expect(values).toContain(alias);
    const pagesWithAliases = report.pages.filter((page) =>
      page.texts.some((text) => text.text.startsWith('Alias number')),
    );
    expect(pagesWithAliases.length).toBeGreaterThan(1);
    expect(texts(pagesWithAliases[1]!, 'block-heading')[0]).toMatch(/^PEP match 1 of 1: .* \(continued\)$/);
    expect(texts(pagesWithAliases[1]!, 'label')).toContain('(continued)');
  });
});

/** Baseline of the label `label` on the first page. */
function labelY(report: ReportLayout, label: string): number {
  return report.pages[0]!.texts.find((text) => text.role === 'label' && text.text === label)!.y;
}

describe('layoutUserReport: the summary, humanised values, ages, right-to-left text, requester and notice', () => {
  const summaryTexts = (page: ReportPage): PositionedText[] =>
    page.texts.filter((text) => text.sectionId === 'summary');

  it('opens page 1 with a summary box above the first section, a flagged screening in the alert colour', () => {
    const report = layout(typicalUser({ mobile_registration_status: 'REGISTRATION_COMPLETED' }));
    const [first] = report.pages;

    const title = first!.texts.find((text) => text.role === 'summary-heading')!;
    const identity = first!.texts.find((text) => text.role === 'section-heading')!;
    expect(title.text).toBe('Summary');
    expect(identity.sectionId).toBe('identity');
    for (const text of summaryTexts(first!)) expect(text.y).toBeGreaterThan(identity.y);
    expect(valueOf(report, 'Registration')).toBe('Activated');
    expect(valueOf(report, 'Mobile registration')).toBe('Registration completed');
    expect(valueOf(report, 'Screening')).toBe('Flagged');
    expect(valueOf(report, 'Screening result')).toBe('Flagged');
    expect(valueOf(report, 'Matches')).toBe('1 PEP match, 1 sanction match');
    expect(valueTextOf(report, 'Flags')).toMatchObject({
      text: 'Screening flagged: 2 matches to review',
      color: 'alert',
      weight: 'bold',
      sectionId: 'summary',
    });
    expect(first!.boxes).toContainEqual(expect.objectContaining({ x: CONTENT_LEFT, color: 'alert' }));
    expect(report.pages.slice(1).flatMap(summaryTexts)).toEqual([]);
  });

  it('says "None" under Flags, with no alert anywhere, when nothing needs attention', () => {
    const report = layout(hebrewDemoUser());

    expect(valueTextOf(report, 'Flags')).toMatchObject({ text: 'None', color: 'ink' });
    expect(valueOf(report, 'Matches')).toBe('0 PEP matches, 0 sanction matches');
    expect(report.pages.flatMap((page) => [...page.texts, ...page.boxes]).some((item) => item.color === 'alert')).toBe(
      false,
    );
  });

  it('shows a coded value in words with its stored code in small text beside it, the same way in every section', () => {
    const report = layout(typicalUser({ mobile_registration_status: 'REQUEST_ID_VERIFICATION' }));

    for (const label of ['Mobile registration', 'Mobile registration status']) {
      const value = valueTextOf(report, label)!;
      const code = valueTextOf(report, label, 'detail')!;
      expect(value.text).toBe('Request ID verification');
      expect(code).toMatchObject({
        text: '(REQUEST_ID_VERIFICATION)',
        size: TABLE.detailSize,
        color: 'muted',
        y: value.y,
      });
      expect(code.x).toBeGreaterThan(rightEdge(value));
      expect(code.x - rightEdge(value)).toBeLessThan(4);
    }
    // A value stored as words has no code beside it.
    expect(valueOf(report, 'Registration status')).toBe('Activated');
    expect(valueTextOf(report, 'Registration status', 'detail')).toBeUndefined();
  });

  it('computes the age from the date of birth at generation time (the clock), not the stored age', () => {
    const user = hebrewDemoUser(); // born 2007-10-20, stored age 18

    expect(valueOf(layout(user, ORGANIZATION_NAME, { generatedAt: new Date('2026-11-25T10:00:00Z') }), 'Age')).toBe(
      '19',
    );
    expect(valueOf(layout(user, ORGANIZATION_NAME, { generatedAt: new Date('2026-10-19T23:59:59Z') }), 'Age')).toBe(
      '18',
    );
    expect(valueOf(layout(user, ORGANIZATION_NAME, { generatedAt: new Date('2026-10-20T00:00:00Z') }), 'Age')).toBe(
      '19',
    );
  });

  it('shows the stored age, marked as stored, only when there is no date of birth', () => {
    const report = layout(hebrewDemoUser({ dob: undefined, guardian_dob: undefined, guardian_age: 48 }));

    expect(valueOf(report, 'Age')).toBe('18');
    expect(valueTextOf(report, 'Age', 'detail')?.text).toBe('(as stored)');
    expect(valueOf(report, 'Guardian age')).toBe('48');
    expect(valueTextOf(layout(hebrewDemoUser()), 'Age', 'detail')).toBeUndefined();
  });

  it('sets right-to-left paragraphs flush right, every line, shaped right to left: the full stop ends up leftmost', () => {
    const notes = `${'ההתאמות נבדקו על ידי צוות הציות ותאריך הלידה שונה. '.repeat(4)}אושר לקליטה.`;
    const report = layout(hebrewDemoUser({ override_notes: notes }));

    const address = valueTextOf(report, 'Address line 1')!;
    expect(address).toMatchObject({ text: 'רחוב יפו 105.', direction: 'rtl' });
    expect(rightEdge(address)).toBeCloseTo(CONTENT_RIGHT, 1);
    expect(address.x).toBeGreaterThan(CONTENT_LEFT + TABLE.labelColumnWidth + 100);
    const noteLines = report.pages.flatMap((page) =>
      page.texts.filter((text) => text.role === 'value' && text.sectionId === 'overrides').slice(1),
    );
    expect(noteLines.length).toBeGreaterThan(1);
    for (const line of noteLines) {
      expect(line.direction).toBe('rtl');
      expect(rightEdge(line)).toBeCloseTo(CONTENT_RIGHT, 1);
    }
    for (const line of [address, noteLines.at(-1)!]) {
      const leftmost = typeface.shape(line.text, line.weight, line.direction).runs[0]!.glyphs[0]!;
      expect(leftmost.text).toBe('.');
    }
    // Left-to-right values stay flush left.
    expect(valueTextOf(report, 'Email')).toMatchObject({ x: CONTENT_LEFT + TABLE.labelColumnWidth });
    expect(valueTextOf(report, 'Email')!.direction).toBeUndefined();
  });

  it('keeps a right-to-left paragraph right to left on a line that starts with Latin or digits', () => {
    const line = 'Compliance Team 2019.'; // one left-to-right run (digits after Latin are Latin), then the full stop

    const rtl = typeface.shape(line, 'regular', 'rtl').runs.flatMap((run) => run.glyphs.map((glyph) => glyph.text));
    const alone = typeface.shape(line, 'regular').runs.flatMap((run) => run.glyphs.map((glyph) => glyph.text));

    expect(rtl.join('')).toBe('.Compliance Team 2019');
    expect(alone.join('')).toBe(line);
  });

  it('names the requester in the summary, or "—" for a job that recorded none', () => {
    expect(valueOf(layout(typicalUser(), ORGANIZATION_NAME, { requestedBy: 'auth0|64f1c2a3' }), 'Requested by')).toBe(
      'auth0|64f1c2a3',
    );
    expect(valueOf(layout(typicalUser()), 'Requested by')).toBe('—');
  });
});
