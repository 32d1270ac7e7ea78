import localesData from '#local/demo-data/locales.json' with { type: 'json' };
import wellKnownUsersData from '#local/demo-data/well-known-users.json' with { type: 'json' };
import { SeededRandom } from './seeded-random.ts';
import {
  MOBILE_REGISTRATION_STATUSES,
  REGISTRATION_STATUSES,
  type PepSanctionResult,
  type ScreeningAddress,
  type ScreeningEntry,
  type UserRecord,
} from '#shared/domain/users/user-record.ts';

/**
 * Demo user records for the local stack: a few hundred varied, plausible users of one
 * organization, the same on every run (a seeded generator; no clock, no Math.random). Every
 * registration and mobile registration status occurs; names and addresses are in Latin with
 * accents, Greek, Cyrillic, Vietnamese, Chinese (simplified and traditional), Japanese, Korean,
 * Arabic, Hebrew, Devanagari and Thai; minors have guardians; some users have PEP and sanction
 * matches, whose gender agrees with the name and whose screening is never cleared while a
 * sanction match is active. The users the README's walkthrough names are written out by hand below.
 */

export const DEMO_ORG_ID = 'demo-org';
export const DEMO_ORGANIZATION_NAME = 'Demo Health Ltd';
export const DEMO_USER_COUNT = 300;

/** Users with a known shape, for walkthroughs and examples. */
export const WELL_KNOWN_DEMO_USERS = {
  /** Zoë Élodie Ångström, adult, Stockholm, Activated, one PEP match cleared as a false positive. */
  adult: 'demo-user-1',
  /** Νικόλαος Παπαδόπουλος, 15, Athens, under review, with his mother as guardian. */
  minor: 'demo-user-2',
  /** Олександра Шевченко, Kyiv, Referred, flagged with several PEP and sanction matches (a multi-page report). */
  flagged: 'demo-user-3',
  /**
   * محمد عبد الله المصري, Cairo (Arabic address with digits), For Review, flagged: a PEP match in Arabic and
   * sanction matches in Chinese and Devanagari, with Latin aliases (a multi-script report).
   */
  multiScript: 'demo-user-4',
} as const;

export interface DemoUserOptions {
  /** Total number of users, the well-known ones included. Default 300. */
  count?: number;
  /** PRNG seed; the same seed gives the same users. */
  seed?: number;
  orgId?: string;
  organizationName?: string;
}

const DEFAULT_SEED = 20_241_001;
/** Records were created over the two years before this instant; ages are as of it. */
const WINDOW_END = Date.parse('2026-10-01T00:00:00.000Z');
const WINDOW_START = Date.parse('2024-10-01T00:00:00.000Z');
const DAY_MS = 24 * 60 * 60 * 1000;

export function generateDemoUsers(options: DemoUserOptions = {}): UserRecord[] {
  const count = options.count ?? DEMO_USER_COUNT;
  const org = { id: options.orgId ?? DEMO_ORG_ID, name: options.organizationName ?? DEMO_ORGANIZATION_NAME };
  const random = new SeededRandom(options.seed ?? DEFAULT_SEED);
  const users = wellKnownUsers(org).slice(0, count);
  const ids = new Set(users.map((user) => user.id));
  const emails = new Set(users.map((user) => user.email?.toLowerCase()));
  for (let index = users.length; index < count; index++) {
    // The first users after the well-known ones walk through every mobile status once.
    const statusIndex = index - Object.keys(WELL_KNOWN_DEMO_USERS).length;
    const mobile =
      statusIndex < MOBILE_REGISTRATION_STATUSES.length
        ? (MOBILE_REGISTRATION_STATUSES[statusIndex] as MobileStatus)
        : random.weighted(MOBILE_STATUS_WEIGHTS);
    const registrationOptions = REGISTRATION_FOR_MOBILE[mobile];
    const registration =
      statusIndex < MOBILE_REGISTRATION_STATUSES.length
        ? (registrationOptions[statusIndex % registrationOptions.length] as RegistrationStatus)
        : random.pick(registrationOptions);
    users.push(randomUser({ random, org, index, mobile, registration, ids, emails }));
  }
  return users;
}

// ---------------------------------------------------------------------------------------------
// Statuses

type MobileStatus = (typeof MOBILE_REGISTRATION_STATUSES)[number];
type RegistrationStatus = (typeof REGISTRATION_STATUSES)[number];

/** Where a user stopped in the mobile flow, and what that means for the registration. */
const REGISTRATION_FOR_MOBILE: Record<MobileStatus, readonly RegistrationStatus[]> = {
  INCOMPLETE: ['For Review'],
  PHONE_VERIFICATION: ['For Review'],
  EMAIL_VERIFICATION: ['For Review'],
  REQUEST_BASE_ACCOUNT_DATA: ['For Review'],
  REQUEST_ACCOUNT_DATA: ['For Review'],
  REQUEST_ADDRESS: ['For Review'],
  REQUEST_GUARDIANS_INFO: ['For Review'],
  REQUEST_PAYMENT: ['For Review'],
  REQUEST_PROFILE_PICTURE: ['For Review'],
  REQUEST_ID_VERIFICATION: ['For Review'],
  REQUEST_DATA_SHARING_AGREEMENT: ['For Review'],
  REQUEST_PASSWORD: ['For Review'],
  REGISTRATION_COMPLETED: ['Complete', 'Activated'],
  PENDING_ID_VERIFICATION: ['For Review'],
  SELFIE_VERIFICATION: ['For Review'],
  ID_READ_FAILED: ['Referred', 'Rejected'],
  FACE_READ_FAILED: ['Referred', 'Rejected'],
  VERIFICATION_PASSED: ['Activated', 'Complete'],
  VERIFICATION_FAILED: ['Rejected', 'Referred'],
  FACEMATCH_FAILED: ['Rejected', 'Referred'],
  BIRTHDAY_MATCH_FAILED: ['Referred', 'Rejected'],
  ADDRESS_MATCH_FAILED: ['Referred', 'Rejected'],
  NAME_MATCH_FAILED: ['Referred', 'Rejected'],
  REJECTED_ACCESS: ['Rejected'],
  REQUEST_SUBMIT_REGISTRATION: ['For Review'],
  ADMIN_REVIEW: ['For Review', 'Referred'],
  DELETED: ['Deleted'],
  REFERRED_APPLICATION: ['Referred'],
};

/** Most users finished; the rest are spread over the flow. */
const MOBILE_STATUS_WEIGHTS: ReadonlyArray<readonly [MobileStatus, number]> = MOBILE_REGISTRATION_STATUSES.map(
  (status) =>
    [
      status,
      status === 'REGISTRATION_COMPLETED'
        ? 40
        : status === 'VERIFICATION_PASSED'
          ? 20
          : status === 'ADMIN_REVIEW'
            ? 6
            : 2,
    ] as const,
);

/** Steps of the mobile flow, in order: what a user at a step has already given. */
const FLOW_ORDER: readonly MobileStatus[] = [
  'INCOMPLETE',
  'PHONE_VERIFICATION',
  'EMAIL_VERIFICATION',
  'REQUEST_PASSWORD',
  'REQUEST_BASE_ACCOUNT_DATA',
  'REQUEST_ACCOUNT_DATA',
  'REQUEST_ADDRESS',
  'REQUEST_GUARDIANS_INFO',
  'REQUEST_DATA_SHARING_AGREEMENT',
  'REQUEST_PAYMENT',
  'REQUEST_PROFILE_PICTURE',
  'REQUEST_ID_VERIFICATION',
  'PENDING_ID_VERIFICATION',
  'SELFIE_VERIFICATION',
  'REQUEST_SUBMIT_REGISTRATION',
];

function flowStep(status: MobileStatus): number {
  const step = FLOW_ORDER.indexOf(status);
  return step === -1 ? FLOW_ORDER.length : step; // outcomes (passed, failed, review, deleted) come after the flow
}

const hasGiven = (status: MobileStatus, step: MobileStatus): boolean => flowStep(status) > flowStep(step);

// ---------------------------------------------------------------------------------------------
// Places and names

interface Place {
  city: string;
  state: string;
  /** A template (see `fill`). */
  postcode: string;
}

/** A country's names and address shapes (local/demo-data/locales.json). */
interface Locale {
  weight: number;
  country: string;
  countryIsoCode: string;
  /** Templates: `{digits n}` is n random digits, `{int min max [width]}` a random integer (zero-padded to width), `{pick a|b|c}` one of the options. */
  phone: string;
  /** `[name as written, ASCII form for the e-mail]`; an omitted ASCII form is the name with its accents removed. */
  givenNames: ReadonlyArray<readonly [string, string?]>;
  familyNames: ReadonlyArray<readonly [string, string?]>;
  /** Family name first, as in Vietnamese, Chinese and Japanese. */
  familyFirst?: boolean;
  /** Joins name parts; CJK names are written without spaces. */
  separator?: string;
  street: string;
  secondLine: string;
  places: Place[];
}

/** Expands a locale template left to right, so the same seed gives the same text. */
function fill(template: string, random: SeededRandom): string {
  return template.replace(/\{(digits|int|pick) ([^}]*)\}/g, (_match, kind: string, argument: string) => {
    if (kind === 'digits') return digits(random, Number(argument));
    if (kind === 'pick') return random.pick(argument.split('|'));
    const [min, max, width] = argument.split(' ').map(Number);
    return String(random.int(min ?? 0, max ?? 0)).padStart(width ?? 0, '0');
  });
}

const digits = (random: SeededRandom, n: number): string => Array.from({ length: n }, () => random.int(0, 9)).join('');

const LOCALES: readonly Locale[] = localesData as unknown as Locale[];

/** Given names of women, so a screening match's gender agrees with its name (all other given names are men's). */
const FEMALE_GIVEN_NAMES = new Set([
  ...['Amelia', 'Isla', 'Ava', 'Siobhán', 'Niamh', 'Eilidh', 'Chloë', 'Zoé', 'Chloé', 'Hélène', 'Léa', 'Anaïs'],
  ...['Maëlle', 'Käthe', 'Hannah', 'Mia', 'Lena', 'María', 'Begoña', 'Sofía', 'Lucía', 'Åsa', 'Märta', 'Linnéa'],
  ...['Astrid', 'Zofia', 'Małgorzata', 'Agnieszka', 'Bożena', 'Šárka', 'Růžena', 'Kateřina', 'Thảo', 'Hương'],
  ...['Ngọc', 'Phương', 'Ελένη', 'Κατερίνα', 'Σοφία', 'Αθηνά', 'Оксана', 'Ірина', 'Юлія', 'Мария', 'Елена'],
  ...['Цветелина', '芳', '娜', '静', '花子', 'さくら', '淑芬', '怡君', '雅婷', '서연', '지우', '수아', 'فاطمة'],
  ...['مريم', 'نور', 'שרה', 'רחל', 'נועה', 'प्रिया', 'अनीता', 'सुनीता', 'สมศรี', 'มาลี', 'นภา'],
]);

const EMAIL_DOMAINS = ['example.com', 'example.org', 'example.net', 'mail.example.com'];

/** ASCII for an e-mail address: accents removed, a few letters spelt out. */
function asciiFold(text: string): string {
  return text
    .replace(/ß/g, 'ss')
    .replace(/[Łł]/g, 'l')
    .replace(/[Đđ]/g, 'd')
    .replace(/[Øø]/g, 'o')
    .replace(/[Ææ]/g, 'ae')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');
}

// ---------------------------------------------------------------------------------------------
// Random users

interface Organization {
  id: string;
  name: string;
}

interface RandomUserInput {
  random: SeededRandom;
  org: Organization;
  index: number;
  mobile: MobileStatus;
  registration: RegistrationStatus;
  ids: Set<string>;
  emails: Set<string | undefined>;
}

function randomUser({ random, org, index, mobile, registration, ids, emails }: RandomUserInput): UserRecord {
  const locale = random.weighted(LOCALES.map((l) => [l, l.weight] as const));
  const [given, givenAscii] = nameParts(random.pick(locale.givenNames));
  const [family, familyAscii] = nameParts(random.pick(locale.familyNames));
  const middle = random.chance(0.3) ? nameParts(random.pick(locale.givenNames)) : undefined;
  const middleName = middle && middle[0] !== given ? middle[0] : undefined;
  const separator = locale.separator ?? ' ';
  const name = locale.familyFirst
    ? [family, middleName, given].filter(Boolean).join(separator)
    : [given, middleName, family].filter(Boolean).join(separator);

  const createdMs = random.int(WINDOW_START, WINDOW_END - 3 * DAY_MS);
  const updatedMs = random.int(createdMs + 60_000, Math.min(WINDOW_END, createdMs + 400 * DAY_MS));
  const connectionMs = random.int(createdMs, updatedMs);
  // About one user in eight is a minor.
  const age = random.chance(0.12) ? random.int(9, 17) : random.int(18, 92);
  const dob = dateOfBirth(random, age);
  const place = random.pick(locale.places);
  const address1 = fill(locale.street, random);
  const address2 = random.chance(0.4) ? fill(locale.secondLine, random) : undefined;
  const postcode = fill(place.postcode, random);

  const deleted = registration === 'Deleted';
  const verified = hasGiven(mobile, 'SELFIE_VERIFICATION');
  const screened = hasGiven(mobile, 'REQUEST_ID_VERIFICATION');
  const user: UserRecord = {
    id: uniqueId(random, index, ids),
    name,
    first_name: given,
    ...(middleName ? { middle_name: middleName } : {}),
    last_name: family,
    phone: fill(locale.phone, random),
    email: uniqueEmail(random, givenAscii, familyAscii, emails),
    dob,
    age,
    full_address: [address1, address2, `${postcode} ${place.city}`, locale.country].filter(Boolean).join(', '),
    address1,
    ...(address2 ? { address2 } : {}),
    city: place.city,
    state: place.state,
    country: locale.country,
    postcode,
    ...(age < 18 ? guardian(random, locale, family, age) : {}),
    data_sharing_agreed: hasGiven(mobile, 'REQUEST_DATA_SHARING_AGREEMENT') && !random.chance(0.03),
    ...override(random, registration),
    is_deleted: deleted,
    ...(verified
      ? {
          selfie_liveness_score: score(random, mobile === 'FACE_READ_FAILED' ? 0.2 : 0.82),
          fmc_score: score(random, mobile === 'FACEMATCH_FAILED' ? 0.3 : 0.8),
        }
      : {}),
    ...(verified ? verificationResults(random, mobile, registration) : {}),
    registration_submitted: flowStep(mobile) >= FLOW_ORDER.length,
    registration_status: registration,
    mobile_registration_status: mobile,
    organization_id: org.id,
    organization_name: org.name,
    ...(screened ? screening(random, locale, iso(random.int(createdMs, updatedMs))) : {}),
    connection_status: deleted ? 'DISCONNECTED' : random.weighted(CONNECTION_WEIGHTS),
    connection_status_updated_at: iso(connectionMs),
    created_at: iso(createdMs),
    updated_at: iso(updatedMs),
  };
  return user;
}

const CONNECTION_WEIGHTS = [
  ['CONNECTED', 70],
  ['PENDING', 15],
  ['DISCONNECTED', 10],
  ['BLOCKED', 5],
] as const;

function nameParts([written, ascii]: readonly [string, string?]): [string, string] {
  return [written, ascii ?? asciiFold(written)];
}

/** Ids of 1 to 16 characters in a few styles, unique within the organization. */
function uniqueId(random: SeededRandom, index: number, ids: Set<string>): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const styles = [
    () => `u${String(index).padStart(4, '0')}`,
    () => `usr_${random.int(10_000, 99_999_999).toString(36)}`,
    () => Array.from({ length: random.int(1, 16) }, () => alphabet[random.int(0, alphabet.length - 1)]).join(''),
    () => `${random.pick(['ext', 'crm', 'mob'])}-${digits(random, random.int(4, 12))}`,
  ];
  for (;;) {
    const id = random.pick(styles)();
    if (!ids.has(id)) {
      ids.add(id);
      return id;
    }
  }
}

/** Unique whatever the case; a few are stored in mixed case, as users type them. */
function uniqueEmail(random: SeededRandom, given: string, family: string, emails: Set<string | undefined>): string {
  const domain = random.pick(EMAIL_DOMAINS);
  const local = random.pick([
    `${given}.${family}`,
    `${given.slice(0, 1)}${family}`,
    `${family}.${given}`,
    `${given}${random.int(1, 99)}`,
  ]);
  let email = `${local}@${domain}`;
  for (let n = 2; emails.has(email.toLowerCase()); n++) email = `${local}${n}@${domain}`;
  emails.add(email.toLowerCase());
  if (!random.chance(0.1)) return email;
  const [localPart, domainPart] = email.split('@') as [string, string];
  return `${localPart.replace(/^[a-z]|\.[a-z]/g, (letter) => letter.toUpperCase())}@${domainPart}`;
}

function dateOfBirth(random: SeededRandom, age: number): string {
  // Born between (age + 1) years and age years before the reference date.
  const reference = new Date(WINDOW_END);
  const latest = Date.UTC(reference.getUTCFullYear() - age, reference.getUTCMonth(), reference.getUTCDate());
  return isoDate(latest - random.int(1, 364) * DAY_MS);
}

function guardian(random: SeededRandom, locale: Locale, family: string, age: number): Partial<UserRecord> {
  const guardianAge = age + random.int(20, 42);
  const [given] = nameParts(random.pick(locale.givenNames));
  const separator = locale.separator ?? ' ';
  return {
    guardian_name: locale.familyFirst ? `${family}${separator}${given}` : `${given} ${family}`,
    guardian_dob: dateOfBirth(random, guardianAge),
    guardian_age: guardianAge,
  };
}

function override(random: SeededRandom, registration: RegistrationStatus): Partial<UserRecord> {
  if (!random.chance(0.1)) return {};
  const approved = registration === 'Activated' || registration === 'Complete';
  return approved
    ? {
        override_status: 'APPROVED',
        override_notes: random.pick([
          'Document re-checked manually — approved by compliance.',
          'Address confirmed by utility bill.',
          'Name transliteration accepted (passport vs. national ID).',
        ]),
      }
    : {
        override_status: random.pick(['REJECTED', 'ON_HOLD']),
        override_notes: random.pick([
          'Selfie does not match the document photo.',
          'Waiting for a guardian’s signed consent.',
          'Sanction match under review by the MLRO.',
        ]),
      };
}

function score(random: SeededRandom, around: number): number {
  return Math.round(Math.min(1, Math.max(0, around + (random.next() - 0.5) * 0.36)) * 1000) / 1000;
}

function verificationResults(
  random: SeededRandom,
  mobile: MobileStatus,
  registration: RegistrationStatus,
): Partial<UserRecord> {
  const failed = mobile.endsWith('_FAILED') || registration === 'Rejected';
  const referred = registration === 'Referred' || registration === 'For Review';
  const [provider, overall, document, match] = failed
    ? ['FAIL', 'FAILED', random.pick(['INVALID', 'EXPIRED', 'UNREADABLE']), random.pick(['NO_MATCH', 'PARTIAL_MATCH'])]
    : referred
      ? ['REFER', 'REFERRED', random.pick(['VALID', 'UNREADABLE']), random.pick(['PARTIAL_MATCH', 'PENDING'])]
      : ['PASS', 'PASSED', 'VALID', 'MATCH'];
  return {
    provider_high_level_result: provider,
    high_level_result: overall,
    document_overall_validation: document,
    idcheck_match_status: match,
  };
}

const DATASETS = ['PEP-CURRENT', 'PEP-FORMER', 'PEP-LINKED', 'SAN-CURRENT', 'SAN-FORMER', 'RRE', 'INS'];

function screening(random: SeededRandom, locale: Locale, timestamp: string): Partial<UserRecord> {
  const pepCount = random.weighted([
    [0, 70],
    [1, 18],
    [2, 8],
    [3, 4],
  ] as const);
  const sanctionCount = random.weighted([
    [0, 82],
    [1, 12],
    [2, 6],
  ] as const);
  const pep_result = Array.from({ length: pepCount }, () => screeningEntry(random, locale, 'PEP'));
  const sanction_result = Array.from({ length: sanctionCount }, () => screeningEntry(random, locale, 'SAN'));
  const matches = pepCount + sanctionCount;
  // An active sanction match is never cleared: the screening stays flagged.
  const status: PepSanctionResult['status'] =
    matches === 0
      ? random.pick(['Cleared', 'Cleared', 'Pending'] as const)
      : sanction_result.some((entry) => entry.status === 'Active')
        ? 'Flagged'
        : random.pick(['Flagged', 'Cleared'] as const);
  return {
    idcheck_pep_sanction_status: status === 'Flagged' ? 'POTENTIAL_MATCH' : status === 'Pending' ? 'PENDING' : 'CLEAR',
    idcheck_pep_sanction_result: { status, timestamp, pep_result, sanction_result },
  };
}

function screeningEntry(random: SeededRandom, locale: Locale, kind: 'PEP' | 'SAN'): ScreeningEntry {
  const [firstName] = nameParts(random.pick(locale.givenNames));
  const [lastName] = nameParts(random.pick(locale.familyNames));
  const middleName = random.chance(0.4) ? nameParts(random.pick(locale.givenNames))[0] : '';
  return {
    notes: random.chance(0.5) ? [random.pick(kind === 'PEP' ? PEP_NOTES : SANCTION_NOTES)] : [],
    gender: FEMALE_GIVEN_NAMES.has(firstName) ? 'female' : 'male',
    qrCode: `QR${digits(random, 10)}`,
    status: random.pick(['Active', 'Inactive']),
    aliases: random.chance(0.3) ? [`${firstName} ${lastName}-${random.pick(['Marin', 'Kovač', 'Berg'])}`] : [],
    version: random.int(1, 6),
    datasets: random.pickSome(
      DATASETS.filter((d) => d.startsWith(kind) || random.chance(0.2)),
      random.int(1, 2),
    ),
    lastName,
    firstName,
    middleName,
    addresses: Array.from({ length: random.int(1, 2) }, () => screeningAddress(random, locale)),
    ddEntries: [],
    evidences: random.chance(0.4)
      ? [
          {
            evidenceId: `EV-${digits(random, 6)}`,
            title: random.pick(EVIDENCE_TITLES),
            datePublished: isoDate(random.int(WINDOW_START - 3_000 * DAY_MS, WINDOW_END)),
          },
        ]
      : [],
    griEntries: [],
    insEntries: [],
    isDeleted: random.chance(0.05),
    isDeceased: random.chance(0.05),
  };
}

function screeningAddress(random: SeededRandom, locale: Locale): ScreeningAddress {
  const place = random.pick(locale.places);
  return {
    city: place.city,
    line1: fill(locale.street, random),
    line2: random.chance(0.3) ? fill(locale.secondLine, random) : '',
    county: place.state,
    postcode: fill(place.postcode, random),
    addressType: random.pick(['Residential', 'Business', 'Previous']),
    countryIsoCode: locale.countryIsoCode,
  };
}

const PEP_NOTES = [
  'Member of a regional parliament (2014–2019).',
  'Board member of a state-owned enterprise.',
  'Close associate of a serving minister.',
  'Former deputy mayor.',
];
const SANCTION_NOTES = [
  'Listed under an asset-freeze regime.',
  'Travel ban; listing under review.',
  'Delisted entry kept for history.',
];
const EVIDENCE_TITLES = [
  'Official gazette entry',
  'Parliament membership register',
  'Consolidated sanctions list',
  'News report',
];

const iso = (ms: number): string => new Date(ms).toISOString();
const isoDate = (ms: number): string => iso(ms).slice(0, 10);

// ---------------------------------------------------------------------------------------------
// The well-known users (local/demo-data/well-known-users.json)

function wellKnownUsers(org: Organization): UserRecord[] {
  const users = wellKnownUsersData as unknown as Omit<UserRecord, 'organization_id' | 'organization_name'>[];
  return users.map((user) => ({ ...user, organization_id: org.id, organization_name: org.name }));
}
