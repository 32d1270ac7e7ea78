import type { ScreeningEntry, UserRecord } from '#shared/domain/users/user-record.ts';

export const GENERATED_AT = new Date('2026-11-03T14:05:09.000Z');
export const JOB_ID = '6f1c2a3e-9b7d-4c8e-a1f2-3b4c5d6e7f80';
export const ORGANIZATION_NAME = 'Northwind Sports Club';

export function screeningEntry(index: number, overrides: Partial<ScreeningEntry> = {}): ScreeningEntry {
  return {
    firstName: 'Viktor',
    middleName: index % 2 === 0 ? 'Andreevich' : undefined,
    lastName: `Petrenko-${index + 1}`,
    gender: index % 2 === 0 ? 'Male' : 'Female',
    status: 'Potential match',
    datasets: ['PEP-CURRENT', 'PEP-LINKED'],
    aliases: [{ name: 'V. Petrenko' }, { name: 'Viktor P.' }],
    addresses: [
      {
        line1: '12 Khreshchatyk Street',
        city: 'Kyiv',
        postcode: '01001',
        countryIsoCode: 'UA',
        addressType: 'Residential',
      },
      { line1: '4 Rue de la Paix', city: 'Paris', postcode: '75002', countryIsoCode: 'FR' },
    ],
    notes: [],
    qrCode: `QR-${index}`,
    version: 1,
    isDeleted: false,
    isDeceased: false,
    ...overrides,
  };
}

/** A user with every field set, one PEP match and one sanction match: a three-page report. */
export function typicalUser(overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    id: 'usr-0001',
    name: 'Amelia Rose Hartley',
    first_name: 'Amelia',
    middle_name: 'Rose',
    last_name: 'Hartley',
    phone: '+44 20 7946 0958',
    email: 'amelia.hartley@example.com',
    dob: '2009-04-17',
    age: 17,
    full_address: 'Flat 3, 221 Baker Street, London, Greater London, NW1 6XE, United Kingdom',
    address1: 'Flat 3, 221 Baker Street',
    address2: 'Marylebone',
    city: 'London',
    state: 'Greater London',
    country: 'United Kingdom',
    postcode: 'NW1 6XE',
    guardian_name: 'Jonathan Hartley',
    guardian_dob: '1978-09-02',
    guardian_age: 48,
    data_sharing_agreed: true,
    override_status: 'Approved',
    override_notes:
      'PEP matches reviewed by the compliance team on 2026-10-30: the candidates differ in date of birth and nationality. Approved for onboarding.',
    is_deleted: false,
    selfie_liveness_score: 0.9731,
    fmc_score: 87.5,
    provider_high_level_result: 'PASS',
    high_level_result: 'Verified',
    document_overall_validation: 'VALID',
    registration_submitted: true,
    registration_status: 'Activated',
    mobile_registration_status: 'REGISTRATION_COMPLETED',
    organization_id: 'org-northwind',
    organization_name: ORGANIZATION_NAME,
    idcheck_match_status: 'MATCH',
    idcheck_pep_sanction_status: 'Flagged',
    idcheck_pep_sanction_result: {
      status: 'Flagged',
      timestamp: '2026-10-29T09:12:44.000Z',
      pep_result: [
        screeningEntry(0, {
          notes: ['Member of a regional parliament (2014–2019).'],
          evidences: [
            { evidenceId: 'EV-104233', title: 'Parliament membership register', datePublished: '2019-05-02' },
          ],
        }),
      ],
      sanction_result: [
        screeningEntry(2, {
          firstName: 'Olena',
          lastName: 'Kovalenko',
          datasets: ['SAN-CURRENT'],
          status: 'Under review',
        }),
      ],
    },
    connection_status: 'CONNECTED',
    connection_status_updated_at: '2026-10-30T16:40:00.000Z',
    created_at: '2026-09-14T08:01:22.000Z',
    updated_at: '2026-10-30T16:40:00.000Z',
    ...overrides,
  };
}

/** A user whose screening lists `pepCount` PEP matches and `sanctionCount` sanction matches. */
export function userWithMatches(pepCount: number, sanctionCount = 0): UserRecord {
  const user = typicalUser();
  return {
    ...user,
    idcheck_pep_sanction_result: {
      status: 'Flagged',
      timestamp: '2026-10-29T09:12:44.000Z',
      pep_result: Array.from({ length: pepCount }, (_, index) => screeningEntry(index)),
      sanction_result: Array.from({ length: sanctionCount }, (_, index) => screeningEntry(pepCount + index)),
    },
  };
}

/**
 * A user whose name, address and screening matches are written in Chinese, Arabic and Devanagari
 * (with Latin and digits mixed in): the multi-script report of the benchmark and the tests.
 */
export function multiScriptUser(): UserRecord {
  return typicalUser({
    id: 'usr-0042',
    name: '王小明 (محمد عبد الله, अर्जुन शर्मा)',
    first_name: '小明',
    middle_name: 'محمد',
    last_name: '王',
    guardian_name: 'अर्जुन शर्मा',
    full_address: 'शर्मा निवास, 15 महात्मा गांधी मार्ग, नई दिल्ली 110001, भारत',
    address1: 'شارع التحرير 12، الدور الثالث',
    address2: '建国路88号 SOHO现代城',
    city: '北京市朝阳区',
    state: 'القاهرة',
    country: 'भारत',
    override_notes: '名称已与护照核对。تمت مراجعة المطابقات من قبل فريق الامتثال. अनुपालन टीम द्वारा समीक्षा की गई।',
    idcheck_pep_sanction_result: {
      status: 'Flagged',
      timestamp: '2026-10-29T09:12:44.000Z',
      pep_result: [
        screeningEntry(0, {
          firstName: '国强',
          lastName: '李',
          aliases: ['李國強', 'أبو أحمد', 'राहुल वर्मा'],
          notes: ['前市人大代表（2012–2017）。', 'संपत्ति फ्रीज़ सूची में दर्ज।'],
          addresses: [{ line1: '建国路88号', city: '北京市', countryIsoCode: 'CN', addressType: 'Residential' }],
        }),
      ],
      sanction_result: [
        screeningEntry(1, {
          firstName: 'أحمد',
          lastName: 'المصري',
          status: 'Active',
          aliases: ['أحمد محمد المصري', 'Ahmed El-Masry'],
          notes: ['مدرج في نظام تجميد الأصول', 'Listed under an asset-freeze regime.'],
          addresses: [{ line1: 'شارع التحرير 12', city: 'القاهرة', countryIsoCode: 'EG', addressType: 'Business' }],
        }),
      ],
    },
  });
}

/**
 * The local stack's Hebrew demo user `ext-789159794405` (local/demo-users.ts) as far as a report
 * needs: born 2007-10-20, stored age 18 (as of the demo data's reference date), screening cleared.
 */
export function hebrewDemoUser(overrides: Partial<UserRecord> = {}): UserRecord {
  return typicalUser({
    id: 'ext-789159794405',
    name: 'שרה מזרחי',
    first_name: 'שרה',
    middle_name: undefined,
    last_name: 'מזרחי',
    dob: '2007-10-20',
    age: 18,
    full_address: 'רחוב יפו 105, 9151160 ירושלים, Israel',
    address1: 'רחוב יפו 105.',
    city: 'ירושלים',
    state: 'מחוז ירושלים',
    country: 'Israel',
    guardian_name: undefined,
    guardian_dob: undefined,
    guardian_age: undefined,
    registration_status: 'For Review',
    mobile_registration_status: 'SELFIE_VERIFICATION',
    idcheck_pep_sanction_status: 'CLEAR',
    idcheck_pep_sanction_result: {
      status: 'Cleared',
      timestamp: '2026-10-29T09:12:44.000Z',
      pep_result: [],
      sanction_result: [],
    },
    ...overrides,
  });
}
