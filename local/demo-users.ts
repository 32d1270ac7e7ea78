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
  postcode: () => string;
}

interface Locale {
  weight: number;
  country: string;
  countryIsoCode: string;
  phone: (random: SeededRandom) => string;
  /** `[name as written, ASCII form for the e-mail]`; an omitted ASCII form is the name with its accents removed. */
  givenNames: ReadonlyArray<readonly [string, string?]>;
  familyNames: ReadonlyArray<readonly [string, string?]>;
  /** Family name first, as in Vietnamese, Chinese and Japanese. */
  familyFirst?: boolean;
  /** Joins name parts; CJK names are written without spaces. */
  separator?: string;
  street: (random: SeededRandom) => string;
  secondLine: (random: SeededRandom) => string;
  places: (random: SeededRandom) => Place[];
}

const digits = (random: SeededRandom, n: number): string => Array.from({ length: n }, () => random.int(0, 9)).join('');

const LOCALES: readonly Locale[] = [
  {
    weight: 18,
    country: 'United Kingdom',
    countryIsoCode: 'GB',
    phone: (r) => `+44 7700 900${digits(r, 3)}`,
    givenNames: [
      ['Oliver'],
      ['Amelia'],
      ['Harry'],
      ['Isla'],
      ['George'],
      ['Ava'],
      ['Siobhán'],
      ['Niamh'],
      ['Rhys'],
      ['Eilidh'],
      ['Seán'],
      ['Chloë'],
    ],
    familyNames: [
      ['Smith'],
      ['Jones'],
      ["O'Brien", 'obrien'],
      ['Taylor'],
      ['Williams'],
      ['MacLeod'],
      ['Davies'],
      ['Evans'],
      ['Ní Bhriain'],
      ['Brontë'],
    ],
    street: (r) =>
      `${r.int(1, 220)} ${r.pick(['Baker Street', 'High Street', 'Station Road', 'Victoria Road', 'Church Lane', 'Mill Lane'])}`,
    secondLine: (r) => `Flat ${r.int(1, 40)}`,
    places: (r) => [
      {
        city: 'London',
        state: 'England',
        postcode: () => `${r.pick(['NW1', 'E14', 'SW9', 'N7'])} ${r.int(1, 9)}${r.pick(['AB', 'DX', 'QT', 'LR'])}`,
      },
      {
        city: 'Manchester',
        state: 'England',
        postcode: () => `M${r.int(1, 40)} ${r.int(1, 9)}${r.pick(['AA', 'HE', 'WS'])}`,
      },
      {
        city: 'Edinburgh',
        state: 'Scotland',
        postcode: () => `EH${r.int(1, 17)} ${r.int(1, 9)}${r.pick(['BX', 'NQ', 'TY'])}`,
      },
      {
        city: 'Cardiff',
        state: 'Wales',
        postcode: () => `CF${r.int(10, 24)} ${r.int(1, 9)}${r.pick(['AH', 'GP', 'LL'])}`,
      },
    ],
  },
  {
    weight: 10,
    country: 'France',
    countryIsoCode: 'FR',
    phone: (r) => `+33 6 ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`,
    givenNames: [
      ['Zoé'],
      ['Chloé'],
      ['Émile'],
      ['Hélène'],
      ['François'],
      ['Léa'],
      ['Noël'],
      ['Anaïs'],
      ['Jérôme'],
      ['Maëlle'],
    ],
    familyNames: [
      ['Lefèvre'],
      ['Dubois'],
      ['Fontaine'],
      ['Gauthier'],
      ['Bérénger'],
      ['Lemaître'],
      ['Château'],
      ['Mercier'],
    ],
    street: (r) =>
      `${r.int(1, 120)} ${r.pick(['rue de la Paix', 'avenue Jean-Jaurès', 'boulevard Saint-Michel', 'rue des Écoles', 'place de l’Église'])}`,
    secondLine: (r) => `Bâtiment ${r.pick(['A', 'B', 'C'])}, ${r.int(1, 6)}e étage`,
    places: (r) => [
      { city: 'Paris', state: 'Île-de-France', postcode: () => `750${String(r.int(1, 20)).padStart(2, '0')}` },
      { city: 'Lyon', state: 'Auvergne-Rhône-Alpes', postcode: () => `6900${r.int(1, 9)}` },
      { city: 'Besançon', state: 'Bourgogne-Franche-Comté', postcode: () => '25000' },
    ],
  },
  {
    weight: 10,
    country: 'Germany',
    countryIsoCode: 'DE',
    phone: (r) => `+49 151 ${digits(r, 8)}`,
    givenNames: [
      ['Jürgen'],
      ['Björn'],
      ['Sören'],
      ['Käthe'],
      ['Jörg'],
      ['Lukas'],
      ['Hannah'],
      ['Mia'],
      ['Günther'],
      ['Lena'],
    ],
    familyNames: [['Müller'], ['Schröder'], ['Weiß'], ['Groß'], ['Köhler'], ['Schäfer'], ['Becker'], ['Fuß']],
    street: (r) =>
      `${r.pick(['Hauptstraße', 'Schloßallee', 'Gartenstraße', 'Lindenweg', 'Bahnhofstraße'])} ${r.int(1, 90)}`,
    secondLine: (r) => `${r.pick(['Hinterhaus', 'Vorderhaus', 'Seitenflügel'])}, ${r.int(1, 5)}. OG`,
    places: (r) => [
      { city: 'Berlin', state: 'Berlin', postcode: () => `10${digits(r, 3)}` },
      { city: 'München', state: 'Bayern', postcode: () => `80${digits(r, 3)}` },
      { city: 'Köln', state: 'Nordrhein-Westfalen', postcode: () => `50${digits(r, 3)}` },
    ],
  },
  {
    weight: 8,
    country: 'Spain',
    countryIsoCode: 'ES',
    phone: (r) => `+34 6${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
    givenNames: [['José'], ['María'], ['Iñaki'], ['Begoña'], ['Íñigo'], ['Sofía'], ['Lucía'], ['Álvaro']],
    familyNames: [['Núñez'], ['Peña'], ['Ibáñez'], ['Fernández'], ['Muñoz'], ['Gómez'], ['Martínez']],
    street: (r) =>
      `${r.pick(['Calle de Alcalá', 'Avenida de la Constitución', 'Plaza Mayor', 'Calle Larios'])}, ${r.int(1, 150)}`,
    secondLine: (r) => `${r.int(1, 8)}º ${r.pick(['A', 'B', 'C', 'D'])}`,
    places: (r) => [
      { city: 'Madrid', state: 'Comunidad de Madrid', postcode: () => `280${digits(r, 2)}` },
      { city: 'Sevilla', state: 'Andalucía', postcode: () => `410${digits(r, 2)}` },
      { city: 'Málaga', state: 'Andalucía', postcode: () => `290${digits(r, 2)}` },
    ],
  },
  {
    weight: 6,
    country: 'Sweden',
    countryIsoCode: 'SE',
    phone: (r) => `+46 70 ${digits(r, 3)} ${digits(r, 2)} ${digits(r, 2)}`,
    givenNames: [['Åsa'], ['Örjan'], ['Märta'], ['Linnéa'], ['Björn'], ['Astrid'], ['Måns']],
    familyNames: [['Ångström'], ['Söderberg'], ['Löfgren'], ['Åkesson'], ['Lindqvist'], ['Nyström']],
    street: (r) => `${r.pick(['Drottninggatan', 'Storgatan', 'Kungsgatan', 'Östra Hamngatan'])} ${r.int(1, 80)}`,
    secondLine: (r) => `Lgh ${1000 + r.int(1, 400)}`,
    places: (r) => [
      { city: 'Stockholm', state: 'Stockholms län', postcode: () => `11${r.int(1, 9)} ${digits(r, 2)}` },
      { city: 'Göteborg', state: 'Västra Götalands län', postcode: () => `41${r.int(1, 9)} ${digits(r, 2)}` },
      { city: 'Malmö', state: 'Skåne län', postcode: () => `21${r.int(1, 9)} ${digits(r, 2)}` },
    ],
  },
  {
    weight: 7,
    country: 'Poland',
    countryIsoCode: 'PL',
    phone: (r) => `+48 5${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
    givenNames: [['Łukasz'], ['Zofia'], ['Wojciech'], ['Małgorzata'], ['Agnieszka'], ['Paweł'], ['Bożena']],
    familyNames: [['Wiśniewski'], ['Kowalczyk'], ['Łęcki'], ['Żółkiewska'], ['Nowak'], ['Wójcik'], ['Dąbrowska']],
    street: (r) => `ul. ${r.pick(['Długa', 'Świętokrzyska', 'Piękna', 'Żurawia', 'Marszałkowska'])} ${r.int(1, 120)}`,
    secondLine: (r) => `m. ${r.int(1, 60)}`,
    places: (r) => [
      { city: 'Kraków', state: 'małopolskie', postcode: () => `3${r.int(0, 1)}-${digits(r, 3)}` },
      { city: 'Łódź', state: 'łódzkie', postcode: () => `9${r.int(0, 4)}-${digits(r, 3)}` },
      { city: 'Gdańsk', state: 'pomorskie', postcode: () => `80-${digits(r, 3)}` },
    ],
  },
  {
    weight: 5,
    country: 'Czechia',
    countryIsoCode: 'CZ',
    phone: (r) => `+420 6${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
    givenNames: [['Jiří'], ['Šárka'], ['Tomáš'], ['Růžena'], ['Lukáš'], ['Kateřina']],
    familyNames: [['Dvořák'], ['Novotná'], ['Černý'], ['Procházka'], ['Kučerová'], ['Říha']],
    street: (r) => `${r.pick(['Národní', 'Václavské náměstí', 'Husova', 'Křižíkova'])} ${r.int(1, 90)}/${r.int(1, 30)}`,
    secondLine: (r) => `${r.int(1, 6)}. patro`,
    places: (r) => [
      { city: 'Praha', state: 'Hlavní město Praha', postcode: () => `1${r.int(1, 9)}0 00` },
      { city: 'Brno', state: 'Jihomoravský kraj', postcode: () => `60${r.int(2, 2)} 00` },
    ],
  },
  {
    weight: 5,
    country: 'Vietnam',
    countryIsoCode: 'VN',
    phone: (r) => `+84 9${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
    givenNames: [['Thảo'], ['Dũng'], ['Hương'], ['Quốc'], ['Ngọc'], ['Tuấn'], ['Phương']],
    familyNames: [['Nguyễn'], ['Trần'], ['Phạm'], ['Lê'], ['Hoàng'], ['Đặng']],
    familyFirst: true,
    street: (r) => `${r.int(1, 300)} ${r.pick(['Phố Huế', 'Đường Lê Lợi', 'Phố Hàng Bạc', 'Đường Nguyễn Huệ'])}`,
    secondLine: (r) => `Phường ${r.int(1, 14)}`,
    places: (r) => [
      { city: 'Hà Nội', state: 'Hà Nội', postcode: () => `100${digits(r, 3)}` },
      { city: 'Thành phố Hồ Chí Minh', state: 'Hồ Chí Minh', postcode: () => `700${digits(r, 3)}` },
    ],
  },
  {
    weight: 8,
    country: 'Greece',
    countryIsoCode: 'GR',
    phone: (r) => `+30 69${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
    givenNames: [
      ['Γιώργος', 'giorgos'],
      ['Ελένη', 'eleni'],
      ['Δημήτρης', 'dimitris'],
      ['Κατερίνα', 'katerina'],
      ['Νίκος', 'nikos'],
      ['Σοφία', 'sofia'],
      ['Αθηνά', 'athina'],
    ],
    familyNames: [
      ['Παπαδόπουλος', 'papadopoulos'],
      ['Οικονόμου', 'oikonomou'],
      ['Γεωργίου', 'georgiou'],
      ['Καραγιάννη', 'karagianni'],
      ['Βασιλείου', 'vasileiou'],
    ],
    street: (r) => `${r.pick(['Οδός Ερμού', 'Λεωφόρος Αλεξάνδρας', 'Οδός Αθηνάς', 'Οδός Τσιμισκή'])} ${r.int(1, 200)}`,
    secondLine: (r) => `${r.int(1, 7)}ος όροφος`,
    places: (r) => [
      { city: 'Αθήνα', state: 'Αττική', postcode: () => `1${r.int(0, 1)}${r.int(0, 9)} ${digits(r, 2)}` },
      { city: 'Θεσσαλονίκη', state: 'Κεντρική Μακεδονία', postcode: () => `54${r.int(0, 6)} ${digits(r, 2)}` },
    ],
  },
  {
    weight: 7,
    country: 'Ukraine',
    countryIsoCode: 'UA',
    phone: (r) => `+380 67 ${digits(r, 3)} ${digits(r, 2)} ${digits(r, 2)}`,
    givenNames: [
      ['Олександр', 'oleksandr'],
      ['Оксана', 'oksana'],
      ['Андрій', 'andrii'],
      ['Ірина', 'iryna'],
      ['Юлія', 'yuliia'],
      ['Богдан', 'bohdan'],
    ],
    familyNames: [
      ['Шевченко', 'shevchenko'],
      ['Коваленко', 'kovalenko'],
      ['Бондаренко', 'bondarenko'],
      ['Ткаченко', 'tkachenko'],
      ['Мельник', 'melnyk'],
    ],
    street: (r) => `вул. ${r.pick(['Хрещатик', 'Саксаганського', 'Шевченка', 'Городоцька'])}, ${r.int(1, 150)}`,
    secondLine: (r) => `кв. ${r.int(1, 120)}`,
    places: (r) => [
      { city: 'Київ', state: 'Київ', postcode: () => `0${r.int(1, 4)}${digits(r, 3)}` },
      { city: 'Львів', state: 'Львівська область', postcode: () => `79${digits(r, 3)}` },
      { city: 'Одеса', state: 'Одеська область', postcode: () => `65${digits(r, 3)}` },
    ],
  },
  {
    weight: 5,
    country: 'Bulgaria',
    countryIsoCode: 'BG',
    phone: (r) => `+359 88 ${digits(r, 3)} ${digits(r, 4)}`,
    givenNames: [
      ['Георги', 'georgi'],
      ['Мария', 'maria'],
      ['Иван', 'ivan'],
      ['Елена', 'elena'],
      ['Стоян', 'stoyan'],
      ['Цветелина', 'tsvetelina'],
    ],
    familyNames: [
      ['Димитров', 'dimitrov'],
      ['Петрова', 'petrova'],
      ['Георгиев', 'georgiev'],
      ['Николова', 'nikolova'],
      ['Стоянов', 'stoyanov'],
    ],
    street: (r) => `ул. ${r.pick(['Витоша', 'Граф Игнатиев', 'Шипка', 'Раковски'])} ${r.int(1, 120)}`,
    secondLine: (r) => `ет. ${r.int(1, 8)}, ап. ${r.int(1, 40)}`,
    places: (r) => [
      { city: 'София', state: 'София-град', postcode: () => `1${digits(r, 3)}` },
      { city: 'Пловдив', state: 'Пловдив', postcode: () => `4${digits(r, 3)}` },
      { city: 'Варна', state: 'Варна', postcode: () => `9${digits(r, 3)}` },
    ],
  },
  {
    weight: 2,
    country: 'China',
    countryIsoCode: 'CN',
    phone: (r) => `+86 139 ${digits(r, 4)} ${digits(r, 4)}`,
    givenNames: [
      ['伟', 'wei'],
      ['芳', 'fang'],
      ['娜', 'na'],
      ['静', 'jing'],
      ['强', 'qiang'],
    ],
    familyNames: [
      ['王', 'wang'],
      ['李', 'li'],
      ['张', 'zhang'],
      ['刘', 'liu'],
      ['陈', 'chen'],
    ],
    familyFirst: true,
    separator: '',
    street: (r) => `${r.pick(['长安街', '南京路', '建国路'])}${r.int(1, 200)}号`,
    secondLine: (r) => `${r.int(1, 30)}楼`,
    places: (r) => [
      { city: '北京', state: '北京市', postcode: () => `100${digits(r, 3)}` },
      { city: '上海', state: '上海市', postcode: () => `200${digits(r, 3)}` },
    ],
  },
  {
    weight: 2,
    country: 'Japan',
    countryIsoCode: 'JP',
    phone: (r) => `+81 90 ${digits(r, 4)} ${digits(r, 4)}`,
    givenNames: [
      ['花子', 'hanako'],
      ['一郎', 'ichiro'],
      ['さくら', 'sakura'],
      ['健太', 'kenta'],
    ],
    familyNames: [
      ['佐藤', 'sato'],
      ['鈴木', 'suzuki'],
      ['高橋', 'takahashi'],
      ['田中', 'tanaka'],
    ],
    familyFirst: true,
    street: (r) => `千代田${r.int(1, 5)}-${r.int(1, 20)}-${r.int(1, 30)}`,
    secondLine: (r) => `${r.int(1, 12)}階`,
    places: (r) => [
      { city: '東京', state: '東京都', postcode: () => `100-${digits(r, 4)}` },
      { city: '大阪', state: '大阪府', postcode: () => `530-${digits(r, 4)}` },
    ],
  },
  {
    weight: 2,
    country: 'Taiwan',
    countryIsoCode: 'TW',
    phone: (r) => `+886 9${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
    givenNames: [
      ['志明', 'zhiming'],
      ['淑芬', 'shufen'],
      ['家豪', 'jiahao'],
      ['怡君', 'yijun'],
      ['俊傑', 'junjie'],
      ['雅婷', 'yating'],
    ],
    familyNames: [
      ['陳', 'chen'],
      ['林', 'lin'],
      ['黃', 'huang'],
      ['張', 'chang'],
      ['吳', 'wu'],
    ],
    familyFirst: true,
    separator: '',
    street: (r) => `${r.pick(['忠孝東路', '信義路', '中山北路', '松仁路'])}${r.int(1, 300)}號`,
    secondLine: (r) => `${r.int(1, 30)}樓`,
    places: (r) => [
      { city: '臺北市', state: '臺灣', postcode: () => `1${digits(r, 2)}` },
      { city: '臺中市', state: '臺灣', postcode: () => `4${digits(r, 2)}` },
      { city: '高雄市', state: '臺灣', postcode: () => `8${digits(r, 2)}` },
    ],
  },
  {
    weight: 2,
    country: 'South Korea',
    countryIsoCode: 'KR',
    phone: (r) => `+82 10 ${digits(r, 4)} ${digits(r, 4)}`,
    givenNames: [
      ['민준', 'minjun'],
      ['서연', 'seoyeon'],
      ['지훈', 'jihoon'],
      ['지우', 'jiwoo'],
      ['현우', 'hyunwoo'],
      ['수아', 'sua'],
    ],
    familyNames: [
      ['김', 'kim'],
      ['이', 'lee'],
      ['박', 'park'],
      ['최', 'choi'],
      ['정', 'jung'],
    ],
    familyFirst: true,
    separator: '',
    street: (r) => `${r.pick(['세종대로', '테헤란로', '을지로', '해운대로'])} ${r.int(1, 300)}`,
    secondLine: (r) => `${r.int(1, 20)}층`,
    places: (r) => [
      { city: '서울', state: '서울특별시', postcode: () => `0${digits(r, 4)}` },
      { city: '부산', state: '부산광역시', postcode: () => `4${digits(r, 4)}` },
    ],
  },
  {
    weight: 3,
    country: 'Egypt',
    countryIsoCode: 'EG',
    phone: (r) => `+20 10 ${digits(r, 4)} ${digits(r, 4)}`,
    givenNames: [
      ['محمد', 'mohamed'],
      ['فاطمة', 'fatma'],
      ['أحمد', 'ahmed'],
      ['مريم', 'mariam'],
      ['يوسف', 'youssef'],
      ['نور', 'nour'],
    ],
    familyNames: [
      ['عبد الله', 'abdallah'],
      ['المصري', 'elmasry'],
      ['حسن', 'hassan'],
      ['إبراهيم', 'ibrahim'],
      ['سالم', 'salem'],
    ],
    street: (r) => `${r.int(1, 120)} ${r.pick(['شارع التحرير', 'شارع الهرم', 'شارع قصر النيل', 'شارع طلعت حرب'])}`,
    secondLine: (r) => `الدور ${r.int(1, 12)}`,
    places: (r) => [
      { city: 'القاهرة', state: 'محافظة القاهرة', postcode: () => `11${digits(r, 3)}` },
      { city: 'الإسكندرية', state: 'محافظة الإسكندرية', postcode: () => `21${digits(r, 3)}` },
      { city: 'الجيزة', state: 'محافظة الجيزة', postcode: () => `12${digits(r, 3)}` },
    ],
  },
  {
    weight: 2,
    country: 'Israel',
    countryIsoCode: 'IL',
    phone: (r) => `+972 5${r.int(0, 8)} ${digits(r, 3)} ${digits(r, 4)}`,
    givenNames: [
      ['דוד', 'david'],
      ['שרה', 'sarah'],
      ['יוסף', 'yosef'],
      ['רחל', 'rachel'],
      ['נועה', 'noa'],
      ['אורי', 'uri'],
    ],
    familyNames: [
      ['כהן', 'cohen'],
      ['לוי', 'levi'],
      ['מזרחי', 'mizrahi'],
      ['פרץ', 'peretz'],
      ['ביטון', 'biton'],
    ],
    street: (r) => `${r.pick(['רחוב הרצל', 'שדרות רוטשילד', 'רחוב יפו', 'רחוב דיזנגוף'])} ${r.int(1, 150)}`,
    secondLine: (r) => `דירה ${r.int(1, 40)}`,
    places: (r) => [
      { city: 'תל אביב-יפו', state: 'מחוז תל אביב', postcode: () => `6${digits(r, 6)}` },
      { city: 'ירושלים', state: 'מחוז ירושלים', postcode: () => `9${digits(r, 6)}` },
      { city: 'חיפה', state: 'מחוז חיפה', postcode: () => `3${digits(r, 6)}` },
    ],
  },
  {
    weight: 3,
    country: 'India',
    countryIsoCode: 'IN',
    phone: (r) => `+91 98${digits(r, 3)} ${digits(r, 5)}`,
    givenNames: [
      ['अर्जुन', 'arjun'],
      ['प्रिया', 'priya'],
      ['राहुल', 'rahul'],
      ['अनीता', 'anita'],
      ['विकास', 'vikas'],
      ['सुनीता', 'sunita'],
    ],
    familyNames: [
      ['शर्मा', 'sharma'],
      ['वर्मा', 'verma'],
      ['गुप्ता', 'gupta'],
      ['सिंह', 'singh'],
      ['यादव', 'yadav'],
    ],
    street: (r) => `${r.int(1, 200)}, ${r.pick(['महात्मा गांधी मार्ग', 'नेहरू मार्ग', 'स्टेशन रोड', 'लाल बहादुर शास्त्री मार्ग'])}`,
    secondLine: (r) => `फ़्लैट ${r.int(1, 60)}`,
    places: (r) => [
      { city: 'नई दिल्ली', state: 'दिल्ली', postcode: () => `110${digits(r, 3)}` },
      { city: 'जयपुर', state: 'राजस्थान', postcode: () => `302${digits(r, 3)}` },
      { city: 'लखनऊ', state: 'उत्तर प्रदेश', postcode: () => `226${digits(r, 3)}` },
    ],
  },
  {
    weight: 2,
    country: 'Thailand',
    countryIsoCode: 'TH',
    phone: (r) => `+66 8${r.int(1, 9)} ${digits(r, 3)} ${digits(r, 4)}`,
    givenNames: [
      ['สมชาย', 'somchai'],
      ['สมศรี', 'somsri'],
      ['วิชัย', 'wichai'],
      ['มาลี', 'malee'],
      ['ประเสริฐ', 'prasert'],
      ['นภา', 'napa'],
    ],
    familyNames: [
      ['ใจดี', 'jaidee'],
      ['รักไทย', 'rakthai'],
      ['ศรีสุข', 'srisuk'],
      ['แสงทอง', 'saengthong'],
    ],
    street: (r) => `${r.int(1, 300)} ${r.pick(['ถนนสุขุมวิท', 'ถนนสีลม', 'ถนนพระราม 4', 'ถนนเพชรบุรี'])}`,
    secondLine: (r) => `ชั้น ${r.int(1, 20)}`,
    places: (r) => [
      { city: 'กรุงเทพมหานคร', state: 'กรุงเทพมหานคร', postcode: () => `10${digits(r, 3)}` },
      { city: 'เชียงใหม่', state: 'เชียงใหม่', postcode: () => `50${digits(r, 3)}` },
    ],
  },
];

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
  const place = random.pick(locale.places(random));
  const address1 = locale.street(random);
  const address2 = random.chance(0.4) ? locale.secondLine(random) : undefined;
  const postcode = place.postcode();

  const deleted = registration === 'Deleted';
  const verified = hasGiven(mobile, 'SELFIE_VERIFICATION');
  const screened = hasGiven(mobile, 'REQUEST_ID_VERIFICATION');
  const user: UserRecord = {
    id: uniqueId(random, index, ids),
    name,
    first_name: given,
    ...(middleName ? { middle_name: middleName } : {}),
    last_name: family,
    phone: locale.phone(random),
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
  const place = random.pick(locale.places(random));
  return {
    city: place.city,
    line1: locale.street(random),
    line2: random.chance(0.3) ? locale.secondLine(random) : '',
    county: place.state,
    postcode: place.postcode(),
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
// The well-known users

function wellKnownUsers(org: Organization): UserRecord[] {
  const common = { organization_id: org.id, organization_name: org.name };
  return [
    {
      id: WELL_KNOWN_DEMO_USERS.adult,
      name: 'Zoë Élodie Ångström',
      first_name: 'Zoë',
      middle_name: 'Élodie',
      last_name: 'Ångström',
      phone: '+46 70 123 45 67',
      email: 'zoe.angstrom@example.com',
      dob: '1991-03-14',
      age: 35,
      full_address: 'Drottninggatan 71, Lgh 1102, 111 36 Stockholm, Sweden',
      address1: 'Drottninggatan 71',
      address2: 'Lgh 1102',
      city: 'Stockholm',
      state: 'Stockholms län',
      country: 'Sweden',
      postcode: '111 36',
      data_sharing_agreed: true,
      override_status: 'APPROVED',
      override_notes: 'PEP match is a namesake (different date of birth) — cleared by compliance.',
      is_deleted: false,
      selfie_liveness_score: 0.987,
      fmc_score: 0.942,
      provider_high_level_result: 'PASS',
      high_level_result: 'PASSED',
      document_overall_validation: 'VALID',
      registration_submitted: true,
      registration_status: 'Activated',
      mobile_registration_status: 'REGISTRATION_COMPLETED',
      ...common,
      idcheck_match_status: 'MATCH',
      idcheck_pep_sanction_status: 'CLEAR',
      idcheck_pep_sanction_result: {
        status: 'Cleared',
        timestamp: '2025-02-03T10:15:42.000Z',
        pep_result: [
          {
            notes: ['Municipal councillor, Uppsala (2010–2014).'],
            gender: 'female',
            qrCode: 'QR4839201734',
            status: 'Inactive',
            aliases: [],
            version: 2,
            datasets: ['PEP-FORMER'],
            lastName: 'Ångström',
            firstName: 'Zoë',
            middleName: '',
            addresses: [
              {
                city: 'Uppsala',
                line1: 'Svartbäcksgatan 12',
                line2: '',
                county: 'Uppsala län',
                postcode: '753 20',
                addressType: 'Residential',
                countryIsoCode: 'SE',
              },
            ],
            ddEntries: [],
            evidences: [],
            griEntries: [],
            insEntries: [],
            isDeleted: false,
            isDeceased: false,
          },
        ],
        sanction_result: [],
      },
      connection_status: 'CONNECTED',
      connection_status_updated_at: '2025-02-04T08:00:00.000Z',
      created_at: '2025-02-03T09:58:11.000Z',
      updated_at: '2025-06-18T14:22:05.000Z',
    },
    {
      id: WELL_KNOWN_DEMO_USERS.minor,
      name: 'Νικόλαος Παπαδόπουλος',
      first_name: 'Νικόλαος',
      last_name: 'Παπαδόπουλος',
      phone: '+30 6944 123 456',
      email: 'nikos.papadopoulos@example.org',
      dob: '2011-07-22',
      age: 15,
      full_address: 'Οδός Ερμού 54, 3ος όροφος, 105 63 Αθήνα, Greece',
      address1: 'Οδός Ερμού 54',
      address2: '3ος όροφος',
      city: 'Αθήνα',
      state: 'Αττική',
      country: 'Greece',
      postcode: '105 63',
      guardian_name: 'Ελένη Παπαδοπούλου',
      guardian_dob: '1979-11-02',
      guardian_age: 46,
      data_sharing_agreed: true,
      is_deleted: false,
      selfie_liveness_score: 0.913,
      fmc_score: 0.874,
      provider_high_level_result: 'REFER',
      high_level_result: 'REFERRED',
      document_overall_validation: 'VALID',
      registration_submitted: true,
      registration_status: 'For Review',
      mobile_registration_status: 'ADMIN_REVIEW',
      ...common,
      idcheck_match_status: 'PENDING',
      idcheck_pep_sanction_status: 'PENDING',
      idcheck_pep_sanction_result: {
        status: 'Pending',
        timestamp: '2026-09-12T16:40:00.000Z',
        pep_result: [],
        sanction_result: [],
      },
      connection_status: 'PENDING',
      connection_status_updated_at: '2026-09-12T16:41:30.000Z',
      created_at: '2026-09-10T07:12:45.000Z',
      updated_at: '2026-09-12T16:41:30.000Z',
    },
    {
      id: WELL_KNOWN_DEMO_USERS.flagged,
      name: 'Олександра Іванівна Шевченко',
      first_name: 'Олександра',
      middle_name: 'Іванівна',
      last_name: 'Шевченко',
      phone: '+380 67 555 12 34',
      email: 'Oleksandra.Shevchenko@Example.net',
      dob: '1968-01-30',
      age: 58,
      full_address: 'вул. Хрещатик, 22, кв. 17, 01001 Київ, Ukraine',
      address1: 'вул. Хрещатик, 22',
      address2: 'кв. 17',
      city: 'Київ',
      state: 'Київ',
      country: 'Ukraine',
      postcode: '01001',
      data_sharing_agreed: true,
      override_status: 'ON_HOLD',
      override_notes: 'Sanction match under review by the MLRO; do not activate until cleared.',
      is_deleted: false,
      selfie_liveness_score: 0.956,
      fmc_score: 0.901,
      provider_high_level_result: 'REFER',
      high_level_result: 'REFERRED',
      document_overall_validation: 'VALID',
      registration_submitted: true,
      registration_status: 'Referred',
      mobile_registration_status: 'REFERRED_APPLICATION',
      ...common,
      idcheck_match_status: 'MATCH',
      idcheck_pep_sanction_status: 'POTENTIAL_MATCH',
      idcheck_pep_sanction_result: {
        status: 'Flagged',
        timestamp: '2026-04-02T11:03:27.000Z',
        pep_result: [
          flaggedEntry(
            'Олександра',
            'Шевченко',
            'Іванівна',
            ['PEP-CURRENT'],
            ['Member of the city council of Kyiv (since 2020).'],
            [
              {
                city: 'Київ',
                line1: 'вул. Хрещатик, 22',
                line2: 'кв. 17',
                county: 'Київ',
                postcode: '01001',
                addressType: 'Residential',
                countryIsoCode: 'UA',
              },
              {
                city: 'Київ',
                line1: 'вул. Хрещатик, 36',
                line2: '',
                county: 'Київ',
                postcode: '01044',
                addressType: 'Business',
                countryIsoCode: 'UA',
              },
            ],
          ),
          flaggedEntry(
            'Oleksandra',
            'Shevchenko',
            '',
            ['PEP-FORMER'],
            ['Former board member of a state-owned energy company.'],
            [
              {
                city: 'Odesa',
                line1: 'Deribasivska St 5',
                line2: '',
                county: 'Odesa Oblast',
                postcode: '65026',
                addressType: 'Previous',
                countryIsoCode: 'UA',
              },
            ],
          ),
          flaggedEntry(
            'Олександр',
            'Шевченко',
            '',
            ['PEP-LINKED'],
            ['Spouse of a flagged person.'],
            [
              {
                city: 'Львів',
                line1: 'вул. Городоцька, 100',
                line2: '',
                county: 'Львівська область',
                postcode: '79000',
                addressType: 'Residential',
                countryIsoCode: 'UA',
              },
            ],
            'male',
          ),
        ],
        sanction_result: [
          flaggedEntry(
            'Aleksandra',
            'Shevchenko',
            'I.',
            ['SAN-CURRENT'],
            ['Listed under an asset-freeze regime.', 'Listing under review since 2026-03.'],
            [
              {
                city: 'Limassol',
                line1: 'Agiou Andreou 12',
                line2: 'Office 4',
                county: 'Limassol District',
                postcode: '3036',
                addressType: 'Business',
                countryIsoCode: 'CY',
              },
              {
                city: 'Wien',
                line1: 'Kärntner Straße 8',
                line2: '',
                county: 'Wien',
                postcode: '1010',
                addressType: 'Business',
                countryIsoCode: 'AT',
              },
            ],
          ),
          flaggedEntry(
            'Alexandra',
            'Ševčenko',
            '',
            ['SAN-FORMER'],
            ['Delisted entry kept for history.'],
            [
              {
                city: 'Praha',
                line1: 'Národní 33',
                line2: '',
                county: 'Hlavní město Praha',
                postcode: '110 00',
                addressType: 'Previous',
                countryIsoCode: 'CZ',
              },
            ],
          ),
        ],
      },
      connection_status: 'CONNECTED',
      connection_status_updated_at: '2026-04-01T09:30:00.000Z',
      created_at: '2026-03-29T18:45:09.000Z',
      updated_at: '2026-04-02T11:05:00.000Z',
    },
    {
      id: WELL_KNOWN_DEMO_USERS.multiScript,
      name: 'محمد عبد الله المصري',
      first_name: 'محمد',
      middle_name: 'عبد الله',
      last_name: 'المصري',
      phone: '+20 10 5550 1234',
      email: 'mohamed.elmasry@example.org',
      dob: '1979-06-14',
      age: 47,
      full_address: '12 شارع التحرير، الدور الثالث، 11511 القاهرة، Egypt',
      address1: '12 شارع التحرير',
      address2: 'الدور الثالث',
      city: 'القاهرة',
      state: 'محافظة القاهرة',
      country: 'Egypt',
      postcode: '11511',
      data_sharing_agreed: true,
      override_status: 'ON_HOLD',
      override_notes: 'المطابقات قيد المراجعة — sanction matches under review by the MLRO (2026-10-02).',
      is_deleted: false,
      selfie_liveness_score: 0.942,
      fmc_score: 0.918,
      provider_high_level_result: 'REFER',
      high_level_result: 'REFERRED',
      document_overall_validation: 'VALID',
      registration_submitted: true,
      registration_status: 'For Review',
      mobile_registration_status: 'ADMIN_REVIEW',
      ...common,
      idcheck_match_status: 'MATCH',
      idcheck_pep_sanction_status: 'POTENTIAL_MATCH',
      idcheck_pep_sanction_result: {
        status: 'Flagged',
        timestamp: '2026-10-01T08:20:11.000Z',
        pep_result: [
          {
            ...flaggedEntry(
              'محمد',
              'المصري',
              'عبد الله',
              ['PEP-FORMER'],
              ['عضو سابق في مجلس النواب (2012–2015).', 'Former member of parliament (2012–2015).'],
              [
                {
                  city: 'الجيزة',
                  line1: '45 شارع الهرم',
                  line2: '',
                  county: 'محافظة الجيزة',
                  postcode: '12511',
                  addressType: 'Previous',
                  countryIsoCode: 'EG',
                },
              ],
              'male',
            ),
            status: 'Inactive',
            aliases: ['Mohamed Abdallah El-Masry', 'أبو أحمد'],
          },
        ],
        sanction_result: [
          {
            ...flaggedEntry(
              '伟',
              '王',
              '',
              ['SAN-CURRENT'],
              ['列入资产冻结制度。', 'Listed under an asset-freeze regime.'],
              [
                {
                  city: '北京',
                  line1: '建国路88号',
                  line2: 'SOHO现代城 3号楼',
                  county: '北京市朝阳区',
                  postcode: '100022',
                  addressType: 'Business',
                  countryIsoCode: 'CN',
                },
              ],
              'male',
            ),
            aliases: ['Wang Wei', '王偉'],
            evidences: [{ evidenceId: 'EV-880412', title: 'Consolidated sanctions list', datePublished: '2025-11-20' }],
          },
          {
            ...flaggedEntry(
              'विकास',
              'गुप्ता',
              '',
              ['SAN-CURRENT', 'RRE'],
              ['संपत्ति फ्रीज़ सूची में दर्ज।', 'Travel ban; listing under review.'],
              [
                {
                  city: 'नई दिल्ली',
                  line1: '15, महात्मा गांधी मार्ग',
                  line2: '',
                  county: 'दिल्ली',
                  postcode: '110001',
                  addressType: 'Residential',
                  countryIsoCode: 'IN',
                },
              ],
              'male',
            ),
            aliases: ['Vikas Gupta', 'विकास कुमार गुप्ता'],
          },
        ],
      },
      connection_status: 'CONNECTED',
      connection_status_updated_at: '2026-10-02T09:00:00.000Z',
      created_at: '2026-09-30T15:12:40.000Z',
      updated_at: '2026-10-02T09:00:00.000Z',
    },
  ];
}

function flaggedEntry(
  firstName: string,
  lastName: string,
  middleName: string,
  datasets: string[],
  notes: string[],
  addresses: ScreeningAddress[],
  gender: 'female' | 'male' = 'female',
): ScreeningEntry {
  return {
    notes,
    gender,
    qrCode: `QR${(firstName.length * 7919 + lastName.length * 104_729).toString().padStart(10, '0')}`,
    status: 'Active',
    aliases: firstName === 'Aleksandra' ? ['Alexandra Shevchenko', 'Олександра Шевченко'] : [],
    version: 3,
    datasets,
    lastName,
    firstName,
    middleName,
    addresses,
    ddEntries: [],
    evidences: [],
    griEntries: [],
    insEntries: [],
    isDeleted: false,
    isDeceased: false,
  };
}
