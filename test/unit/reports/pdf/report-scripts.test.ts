import { describe, expect, it } from 'vitest';
import { renderUserReport } from '#shared/adapters/pdf/render-user-report.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { pdfText, squashed, textLines } from './pdf-text.ts';
import { GENERATED_AT, JOB_ID, ORGANIZATION_NAME, screeningEntry, typicalUser } from './user-report-fixtures.ts';

/**
 * docs/contract.md §10: every script renders, and text copied out of the PDF (pdftotext, as a reader
 * copies) gives back each stored value: the user's names and address, and the name, aliases,
 * address and notes of a screening match.
 */

interface ScriptSample {
  script: string;
  name: [first: string, last: string];
  address: [line1: string, city: string];
  match: [first: string, last: string];
  alias: string;
  note: string;
  /** The script runs right to left. */
  rtl?: boolean;
}

const SAMPLES: ScriptSample[] = [
  {
    script: 'Latin',
    name: ['Zoë Élodie', 'Ångström-Núñez'],
    address: ['Rodenegg-Trostburg-Überetsch 12', 'Villanders'],
    match: ['Jürgen', 'Müller-Lüdenscheidt'],
    alias: 'J. Müller',
    note: 'Listed under an asset-freeze regime.',
  },
  {
    script: 'Greek',
    name: ['Νικόλαος', 'Παπαδόπουλος'],
    address: ['Λεωφόρος Βασιλίσσης Σοφίας 45', 'Αθήνα'],
    match: ['Γεώργιος', 'Οικονόμου'],
    alias: 'Γ. Οικονόμου',
    note: 'Πρώην βουλευτής (2012–2019).',
  },
  {
    script: 'Cyrillic',
    name: ['Олександра', 'Шевченко'],
    address: ['вулиця Хрещатик, 22', 'Київ'],
    match: ['Дмитрий', 'Шостакович'],
    alias: 'Д. Шостакович',
    note: 'Член регионального парламента.',
  },
  {
    script: 'Chinese (simplified)',
    name: ['小明', '王'],
    address: ['建国路88号', '北京市朝阳区'],
    match: ['国强', '李'],
    alias: '李國強',
    note: '列入资产冻结制度。',
  },
  {
    script: 'Chinese (traditional)',
    name: ['大文', '陳'],
    address: ['松仁路100號', '臺北市信義區'],
    match: ['志明', '張'],
    alias: '張誌銘',
    note: '列入資產凍結名單。',
  },
  {
    script: 'Japanese',
    name: ['太郎', '山田'],
    address: ['丸の内1丁目9-1', '東京都千代田区'],
    match: ['健', '佐藤'],
    alias: 'さとう けん',
    note: '資産凍結の対象です。',
  },
  {
    script: 'Korean',
    name: ['민준', '김'],
    address: ['세종대로 110', '서울특별시 중구'],
    match: ['서준', '박'],
    alias: '박 서준',
    note: '자산 동결 대상.',
  },
  {
    script: 'Arabic',
    name: ['محمد', 'عبد الله'],
    address: ['شارع التحرير', 'القاهرة'],
    match: ['أحمد', 'المصري'],
    alias: 'أبو أحمد',
    note: 'مدرج في نظام تجميد الأصول',
    rtl: true,
  },
  {
    script: 'Hebrew',
    name: ['דוד', 'כהן'],
    address: ['רחוב הרצל', 'תל אביב'],
    match: ['משה', 'לוי'],
    alias: 'משה הלוי',
    note: 'רשום במשטר הקפאת נכסים',
    rtl: true,
  },
  {
    script: 'Devanagari',
    name: ['अर्जुन', 'शर्मा'],
    address: ['महात्मा गांधी मार्ग 15', 'नई दिल्ली'],
    match: ['राहुल', 'वर्मा'],
    alias: 'आर. वर्मा',
    note: 'संपत्ति फ्रीज़ सूची में दर्ज।',
  },
  {
    script: 'Thai',
    name: ['สมชาย', 'ใจดี'],
    address: ['99 ถนนสุขุมวิท', 'กรุงเทพมหานคร'],
    match: ['สมศักดิ์', 'รักไทย'],
    alias: 'ศักดิ์ รักไทย',
    note: 'อยู่ในรายชื่อการอายัดทรัพย์สิน',
  },
];

function userWritingIn(sample: ScriptSample): UserRecord {
  const [first, last] = sample.name;
  const [line1, city] = sample.address;
  const name = /\p{Script=Han}|\p{Script=Hangul}/u.test(first) ? `${last}${first}` : `${first} ${last}`;
  return typicalUser({
    name,
    first_name: first,
    last_name: last,
    address1: line1,
    city,
    // Right to left, a comma between two runs is laid out between them; see the bidi test below.
    full_address: sample.rtl ? `${line1} ${city}` : `${line1}, ${city}`,
    idcheck_pep_sanction_result: {
      status: 'Flagged',
      timestamp: '2026-10-29T09:12:44.000Z',
      pep_result: [],
      sanction_result: [
        screeningEntry(0, {
          firstName: sample.match[0],
          lastName: sample.match[1],
          aliases: [sample.alias, { name: `${sample.match[1]} ${sample.match[0]}` }],
          notes: [sample.note],
          addresses: [{ line1, city, countryIsoCode: 'XX' }],
        }),
      ],
    },
  });
}

function render(user: UserRecord, onMissingGlyph?: (codePoint: number) => void): Promise<Uint8Array> {
  return renderUserReport({
    user,
    organizationName: ORGANIZATION_NAME,
    jobId: JOB_ID,
    generatedAt: GENERATED_AT,
    fonts: loadReportFonts(),
    ...(onMissingGlyph && { onMissingGlyph }),
  });
}

describe('reports in every script', () => {
  it.each(SAMPLES)('$script: every stored value copies out of the PDF as stored', async (sample) => {
    const user = userWritingIn(sample);
    const missing: number[] = [];

    const pdf = await render(user, (codePoint) => missing.push(codePoint));

    const text = pdfText(pdf);
    const lines = textLines(pdf);
    const values = [
      user.name!,
      user.first_name!,
      user.last_name!,
      user.address1!,
      user.city!,
      user.full_address!,
      ...sample.match,
      sample.alias,
      `${sample.match[1]} ${sample.match[0]}`,
      sample.note,
    ];
    for (const value of values) expect(squashed(text), value).toContain(squashed(value));
    // Values that fit on one line come back whole, with their spaces, after their label.
    expect(lines).toContain(`First name ${sample.name[0]}`);
    expect(lines).toContain(`Last name ${sample.name[1]}`);
    expect(lines).toContain(`City ${user.city}`);
    expect(lines).toContain(`Aliases ${sample.alias}`);
    expect(lines).toContain(`Notes ${sample.note}`);
    expect(text).not.toMatch(/[?\ufffd]/u);
    expect(missing).toEqual([]);
  });

  it('mixes right-to-left text with digits and Latin by the bidi algorithm: each run copies out whole', async () => {
    const address = 'شارع التحرير 12، القاهرة (Cairo)';
    const hebrew = 'רחוב הרצל 12, תל אביב';

    const lines = textLines(
      await render(
        typicalUser({ address1: address, address2: hebrew, city: 'Cairo القاهرة Egypt', state: 'Giza 12 الجيزة' }),
      ),
    );

    // A left-to-right paragraph with Arabic inside reads back as stored (pdftotext moves the space
    // after a right-to-left run to its other end, hence the comparison without spaces).
    expect(lines.map(squashed)).toContain(squashed('City Cairo القاهرة Egypt'));
    expect(lines.map(squashed)).toContain(squashed('State Giza 12 الجيزة'));
    // A right-to-left paragraph is laid out right to left: "12" stays beside "شارع التحرير" and
    // "(Cairo)" ends up leftmost. pdftotext reads a page whose text is mostly left to right in
    // visual order, so each directional run comes back whole, in the order it is seen.
    const line1 = lines.find((line) => line.startsWith('Address line 1 '))!;
    expect(line1).toContain('شارع التحرير');
    expect(line1).toContain('القاهرة');
    expect(line1).toContain('(Cairo)');
    expect(line1.indexOf('(Cairo)')).toBeLessThan(line1.indexOf('القاهرة'));
    const line2 = lines.find((line) => line.startsWith('Address line 2 '))!;
    expect(line2).toContain('רחוב הרצל');
    expect(line2).toContain('תל אביב');
    expect(line2).toContain('12');
  });

  it('draws a character no shipped font has as the missing-glyph box, logs its code point once, and never prints "?"', async () => {
    const missing: number[] = [];
    const user = typicalUser({ first_name: 'Tarō 🙂', last_name: 'ᚠᚢᚦ 🙂' });

    const pdf = await render(user, (codePoint) => missing.push(codePoint));

    expect(missing).toEqual([0x1f642, 0x16a0, 0x16a2, 0x16a6]);
    const text = pdfText(pdf);
    expect(text).not.toContain('?');
    // The boxes carry the stored characters as /ActualText, so the value still copies out.
    expect(textLines(pdf)).toContain('First name Tarō 🙂');
    expect(textLines(pdf)).toContain('Last name ᚠᚢᚦ 🙂');
  });
});
