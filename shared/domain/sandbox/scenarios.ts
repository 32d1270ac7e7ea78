import type { ReportErrorCode } from '#shared/domain/reports/report-job.ts';
import { tenantOfKey } from '#shared/domain/identity/tenant.ts';
import type { ScreeningEntry, UserRecord } from '#shared/domain/users/user-record.ts';

/**
 * The scenario users every sandbox holds without an import (docs/contract.md §23, docs/sandbox.md
 * "Scenario users"): one definition read by the users database (they are listed, filtered and
 * paged with the stored users), by the report worker (what their report does) and by
 * `GET /v1/sandbox/scenarios` (what they give), so the listing cannot say one thing and the
 * behaviour do another.
 */
export const SCENARIO_IDS = [
  'sbx-clear',
  'sbx-minor',
  'sbx-pep',
  'sbx-sanctions',
  'sbx-scripts',
  'sbx-fail',
  'sbx-slow',
] as const;
export type ScenarioId = (typeof SCENARIO_IDS)[number];

/** What a scenario user's report job does. */
export type ScenarioReport =
  | {
      status: 'COMPLETE';
      /** The job completes no sooner than this long after it was created. */
      completesAfterSeconds: number;
      /** How many pages its report has. */
      pages: number;
    }
  | { status: 'FAILED'; errorCode: ReportErrorCode };

export interface Scenario {
  id: ScenarioId;
  description: string;
  report: ScenarioReport;
}

/** A scenario user's record without its organization, which is the sandbox's. */
type ScenarioRecord = Omit<UserRecord, 'organization_id' | 'organization_name'>;

/** Scenario ids (and any later one) start so: the sandbox's own users cannot take one. */
export const SCENARIO_ID_PREFIX = 'sbx-';

/** Before any imported user in page order (`created_at`, then id): an integrator's first page shows them. */
const createdAt = (second: number): string => `2000-01-01T00:00:0${second}.000Z`;

const completesAtOnce = (pages: number): ScenarioReport => ({ status: 'COMPLETE', completesAfterSeconds: 0, pages });

const verifiedAdult = {
  phone: '+44 7700 900123',
  country: 'United Kingdom',
  data_sharing_agreed: true,
  is_deleted: false,
  selfie_liveness_score: 0.98,
  fmc_score: 0.95,
  provider_high_level_result: 'PASS',
  high_level_result: 'PASSED',
  document_overall_validation: 'VALID',
  registration_submitted: true,
  registration_status: 'Activated',
  mobile_registration_status: 'REGISTRATION_COMPLETED',
  idcheck_match_status: 'MATCH',
  connection_status: 'CONNECTED',
  connection_status_updated_at: '2000-01-02T00:00:00.000Z',
  updated_at: '2000-01-02T00:00:00.000Z',
} as const satisfies Partial<ScenarioRecord>;

const noMatches = {
  idcheck_pep_sanction_status: 'CLEAR',
  idcheck_pep_sanction_result: {
    status: 'Cleared',
    timestamp: '2000-01-01T12:00:00.000Z',
    pep_result: [],
    sanction_result: [],
  },
} as const satisfies Partial<ScenarioRecord>;

/** A screening with matches: flagged, with what it matched on each kind of list. */
const flagged = (matches: { pep_result: ScreeningEntry[]; sanction_result: ScreeningEntry[] }) =>
  ({
    idcheck_pep_sanction_status: 'MATCH',
    idcheck_pep_sanction_result: { status: 'Flagged', timestamp: '2000-01-01T12:00:00.000Z', ...matches },
  }) as const satisfies Partial<ScenarioRecord>;

function screeningEntry(entry: ScreeningEntry & { firstName: string; lastName: string }): ScreeningEntry {
  return {
    notes: [],
    aliases: [],
    version: 1,
    ddEntries: [],
    evidences: [],
    griEntries: [],
    insEntries: [],
    isDeleted: false,
    isDeceased: false,
    ...entry,
  };
}

/** Enough sanction list entries, each with its addresses and notes, that the report runs over pages. */
const SANCTIONS_LISTS = ['UN-SC', 'EU-CFSP', 'UK-HMT', 'US-OFAC-SDN', 'CH-SECO', 'CA-SEMA'] as const;
const sanctionEntries: ScreeningEntry[] = SANCTIONS_LISTS.flatMap((list, index) => [
  screeningEntry({
    firstName: 'Viktor',
    middleName: 'Sandbox',
    lastName: 'Testov',
    gender: 'male',
    status: 'Active',
    qrCode: `SBX-SAN-${String(index + 1).padStart(3, '0')}`,
    datasets: [`SAN-${list}`],
    notes: [
      `Listed by ${list}: asset freeze and travel ban (sandbox test data, not a real listing).`,
      'Director of a trading company named in the same listing.',
    ],
    aliases: ['Viktor Testoff', 'V. S. Testov'],
    addresses: [
      {
        line1: `${index + 10} Example Embankment`,
        city: 'Exampleburg',
        county: 'Test Region',
        postcode: `EX${index + 1} 0SB`,
        addressType: 'Residential',
        countryIsoCode: 'GB',
      },
      { line1: 'PO Box 1000', city: 'Sandbox City', addressType: 'Business', countryIsoCode: 'CY' },
    ],
  }),
]);

/** Today's year less `years`, on 1 March: the user is that old (or a year younger) whenever it is read. */
const bornYearsAgo = (years: number, today: Date): string => `${today.getUTCFullYear() - years}-03-01`;

interface ScenarioDefinition extends Scenario {
  user: (today: Date) => ScenarioRecord;
}

const SCENARIOS: readonly ScenarioDefinition[] = [
  {
    id: 'sbx-clear',
    description: 'An adult, verified, with no PEP or sanctions match; the report completes at once.',
    report: completesAtOnce(2),
    user: () => ({
      id: 'sbx-clear',
      name: 'Clara Clearwater',
      first_name: 'Clara',
      last_name: 'Clearwater',
      email: 'clara.clearwater@sandbox.example',
      dob: '1990-05-17',
      age: 35,
      city: 'London',
      ...verifiedAdult,
      ...noMatches,
      created_at: createdAt(1),
    }),
  },
  {
    id: 'sbx-minor',
    description:
      'A 12-year-old with a guardian (date of birth always 12 years back), no screening match; the report completes at once and shows the guardian.',
    report: completesAtOnce(2),
    user: (today) => ({
      id: 'sbx-minor',
      name: 'Milo Minor',
      first_name: 'Milo',
      last_name: 'Minor',
      email: 'milo.minor@sandbox.example',
      dob: bornYearsAgo(12, today),
      age: 12,
      guardian_name: 'Grace Minor',
      guardian_dob: '1985-09-09',
      guardian_age: 40,
      city: 'Manchester',
      ...verifiedAdult,
      ...noMatches,
      mobile_registration_status: 'REQUEST_GUARDIANS_INFO',
      created_at: createdAt(2),
    }),
  },
  {
    id: 'sbx-pep',
    description: 'An adult with one politically exposed person (PEP) match, flagged; the report completes at once.',
    report: completesAtOnce(2),
    user: () => ({
      id: 'sbx-pep',
      name: 'Paula Pepper',
      first_name: 'Paula',
      last_name: 'Pepper',
      email: 'paula.pepper@sandbox.example',
      dob: '1968-11-02',
      age: 57,
      city: 'Bristol',
      ...verifiedAdult,
      ...flagged({
        pep_result: [
          screeningEntry({
            firstName: 'Paula',
            lastName: 'Pepper',
            gender: 'female',
            status: 'Active',
            qrCode: 'SBX-PEP-001',
            datasets: ['PEP-CURRENT'],
            notes: ['Member of a regional assembly (sandbox test data, not a real person).'],
            addresses: [{ city: 'Bristol', addressType: 'Business', countryIsoCode: 'GB' }],
          }),
        ],
        sanction_result: [],
      }),
      created_at: createdAt(3),
    }),
  },
  {
    id: 'sbx-sanctions',
    description: `An adult matched on ${sanctionEntries.length} sanctions lists, flagged; the report completes at once and runs over four pages.`,
    report: completesAtOnce(4),
    user: () => ({
      id: 'sbx-sanctions',
      name: 'Viktor Sandbox Testov',
      first_name: 'Viktor',
      middle_name: 'Sandbox',
      last_name: 'Testov',
      email: 'viktor.testov@sandbox.example',
      dob: '1961-07-21',
      age: 64,
      city: 'Exampleburg',
      ...verifiedAdult,
      high_level_result: 'REFER',
      registration_status: 'Referred',
      ...flagged({
        pep_result: [],
        sanction_result: sanctionEntries,
      }),
      created_at: createdAt(4),
    }),
  },
  {
    id: 'sbx-scripts',
    description:
      'An adult whose name is in Arabic, with a PEP match in Chinese and a sanctions match in Devanagari; the report completes at once and renders all three scripts.',
    report: completesAtOnce(3),
    user: () => ({
      id: 'sbx-scripts',
      name: 'ليلى عبد الله',
      first_name: 'ليلى',
      last_name: 'عبد الله',
      email: 'layla.abdullah@sandbox.example',
      dob: '1987-02-14',
      age: 38,
      city: 'دبي',
      ...verifiedAdult,
      country: 'United Arab Emirates',
      ...flagged({
        pep_result: [
          screeningEntry({
            firstName: '丽丽',
            lastName: '王',
            gender: 'female',
            status: 'Active',
            qrCode: 'SBX-PEP-ZH-001',
            datasets: ['PEP-CURRENT'],
            notes: ['市人民代表大会代表（沙盒测试数据）。'],
            addresses: [{ city: '上海', addressType: 'Business', countryIsoCode: 'CN' }],
          }),
        ],
        sanction_result: [
          screeningEntry({
            firstName: 'लीला',
            lastName: 'शर्मा',
            gender: 'female',
            status: 'Active',
            qrCode: 'SBX-SAN-HI-001',
            datasets: ['SAN-TEST'],
            notes: ['सैंडबॉक्स परीक्षण डेटा, वास्तविक सूची नहीं।'],
            addresses: [{ city: 'नई दिल्ली', addressType: 'Residential', countryIsoCode: 'IN' }],
          }),
        ],
      }),
      created_at: createdAt(5),
    }),
  },
  {
    id: 'sbx-fail',
    description: 'An adult with no screening match whose report job always ends FAILED (RENDER_FAILED).',
    report: { status: 'FAILED', errorCode: 'RENDER_FAILED' },
    user: () => ({
      id: 'sbx-fail',
      name: 'Felix Failure',
      first_name: 'Felix',
      last_name: 'Failure',
      email: 'felix.failure@sandbox.example',
      dob: '1979-04-30',
      age: 46,
      city: 'Leeds',
      ...verifiedAdult,
      ...noMatches,
      created_at: createdAt(6),
    }),
  },
  {
    id: 'sbx-slow',
    description: 'An adult with no screening match whose report job completes 30 seconds after it was requested.',
    report: { status: 'COMPLETE', completesAfterSeconds: 30, pages: 2 },
    user: () => ({
      id: 'sbx-slow',
      name: 'Sam Slowpoke',
      first_name: 'Sam',
      last_name: 'Slowpoke',
      email: 'sam.slowpoke@sandbox.example',
      dob: '1995-08-08',
      age: 30,
      city: 'Glasgow',
      ...verifiedAdult,
      ...noMatches,
      created_at: createdAt(7),
    }),
  },
];

const SCENARIOS_BY_ID = new Map(SCENARIOS.map((scenario) => [scenario.id, scenario]));

/** Every scenario in listing order, with its user as it reads `today` (for `GET /v1/sandbox/scenarios`). */
export function listScenarios(orgId: string, today: Date): Array<Scenario & { user: UserRecord }> {
  return SCENARIOS.map(({ user: _user, ...scenario }) => ({
    ...scenario,
    user: scenarioUser(scenario.id, orgId, today),
  }));
}

/** The scenario of this user id, if it names one. */
export const scenarioOf = (userId: string): Scenario | undefined => {
  const found = SCENARIOS_BY_ID.get(userId as ScenarioId);
  return found && { id: found.id, description: found.description, report: found.report };
};

/** The scenario user's record in `orgId`'s sandbox as it reads `today` (only the minor's date of birth moves). */
export function scenarioUser(id: ScenarioId, orgId: string, today: Date): UserRecord {
  const definition = SCENARIOS_BY_ID.get(id)!;
  return { ...definition.user(today), organization_id: orgId };
}

/**
 * The scenario users a tenant holds: every one in a sandbox (its key read back with
 * `tenantOfKey`), none in live.
 */
export function scenarioUsersOf(tenantKey: string, today: Date): UserRecord[] {
  const tenant = tenantOfKey(tenantKey);
  if (tenant.mode !== 'sandbox') return [];
  return SCENARIO_IDS.map((id) => scenarioUser(id, tenant.orgId, today));
}

/** The scenario user `userId` of this tenant, or undefined (live, or not a scenario id). */
export function scenarioUserOf(tenantKey: string, userId: string, today: Date): UserRecord | undefined {
  const tenant = tenantOfKey(tenantKey);
  if (tenant.mode !== 'sandbox' || !SCENARIOS_BY_ID.has(userId as ScenarioId)) return undefined;
  return scenarioUser(userId as ScenarioId, tenant.orgId, today);
}

/** The scenario of a sandbox job's user; undefined for a live job or any other user. */
export function sandboxScenarioOf(job: { orgId: string; userId: string }): Scenario | undefined {
  return tenantOfKey(job.orgId).mode === 'sandbox' ? scenarioOf(job.userId) : undefined;
}
