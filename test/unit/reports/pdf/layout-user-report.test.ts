import { describe, expect, it } from 'vitest';
import {
  layoutUserReport,
  type PositionedText,
  type ReportLayout,
  type ReportPage,
} from '#shared/adapters/pdf/layout-user-report.ts';
import { REPORT_SECTION_IDS } from '#shared/domain/reports/report-content.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import { CONTENT_BOTTOM, CONTENT_RIGHT, CONTENT_TOP, FOOTER, HEADER } from '#shared/adapters/pdf/report-style.ts';
import { Typesetter } from '#shared/adapters/pdf/typesetter.ts';
import { REPORT_TEMPLATE_VERSION } from '#shared/domain/reports/report-template-version.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import {
  GENERATED_AT,
  JOB_ID,
  ORGANIZATION_NAME,
  screeningEntry,
  typicalUser,
  userWithMatches,
} from './user-report-fixtures.ts';

const typeface = new Typesetter(loadReportFonts());

function layout(user: UserRecord, organizationName = ORGANIZATION_NAME): ReportLayout {
  const input = {
    user,
    organizationName,
    jobId: JOB_ID,
    generatedAt: GENERATED_AT,
    templateVersion: REPORT_TEMPLATE_VERSION,
  };
  return layoutUserReport(input, typeface);
}

const isContent = (text: PositionedText): boolean => text.role !== 'header' && text.role !== 'footer';
const isHeading = (text: PositionedText): boolean => text.role === 'section-heading' || text.role === 'block-heading';
const texts = (page: ReportPage, role: PositionedText['role']): string[] =>
  page.texts.filter((text) => text.role === role).map((text) => text.text);

/** Value of the row labelled `label` (first match, first line). */
function valueOf(report: ReportLayout, label: string): string | undefined {
  for (const page of report.pages) {
    const labelText = page.texts.find((text) => text.role === 'label' && text.text === label);
    if (labelText)
      return page.texts.find((text) => text.role === 'value' && text.y === labelText.y && text.x > labelText.x)?.text;
  }
  return undefined;
}

describe('layoutUserReport', () => {
  const long = layout(userWithMatches(60));

  it('paginates a 60-match screening onto many pages', () => {
    expect(layout(typicalUser()).pages).toHaveLength(2);
    expect(long.pages.length).toBeGreaterThan(10);
  });

  it('ends every page with a footer naming the job, the template version and "Page i of n"', () => {
    long.pages.forEach((page, index) => {
      expect(texts(page, 'footer')).toEqual([
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
