import { SeededRandom } from '#local/seeded-random.ts';
import { MOBILE_REGISTRATION_STATUSES, USER_RECORD_FIELDS } from '#shared/domain/users/user-record.ts';
import {
  BOOLEAN_FILTER_FIELDS,
  DATE_FILTER_FIELDS,
  INSTANT_FILTER_FIELDS,
  NUMBER_FILTER_FIELDS,
  RANGE_OPERATORS,
  STRING_FILTER_FIELDS,
} from '#shared/domain/users/user-status-query.ts';

/**
 * Seeded generators of JSON values (what JSON.parse can return: objects, arrays, strings,
 * numbers including ±Infinity from `1e400`, booleans, null), so a failing case replays.
 */

export interface Random {
  next(): number;
  int(max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

/** The project's seeded PRNG behind the small interface these generators use. */
export function seededRandom(seed: number): Random {
  const random = new SeededRandom(seed);
  return {
    next: () => random.next(),
    int: (max) => random.int(0, max - 1),
    pick: (items) => random.pick(items),
    chance: (probability) => random.chance(probability),
  };
}

const FILTER_NAMES = [
  ...STRING_FILTER_FIELDS,
  ...BOOLEAN_FILTER_FIELDS,
  ...DATE_FILTER_FIELDS,
  ...NUMBER_FILTER_FIELDS,
  ...INSTANT_FILTER_FIELDS,
];
/** Names that are dangerous as plain-object keys or lookups. */
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
const KEYS = [
  'filters',
  'result_keys',
  'pagination',
  'limit',
  'offset',
  'filter',
  '',
  ' ',
  'ID',
  ...RANGE_OPERATORS,
  ...FILTER_NAMES,
  ...PROTOTYPE_NAMES,
];
const STRINGS = [
  '',
  ' ',
  'active',
  'pending',
  'For Review',
  'archived',
  'VERIFICATION_FAILED ',
  'ADMIN_REVIEW',
  'u-1',
  'x'.repeat(1100),
  'Jane.Doe@Example.com',
  `${'a'.repeat(3000)}@example.com`,
  '2024-01-01',
  '2024-02-30',
  '2024-01-01T00:00:00Z',
  '2024-01-01T02:00:00+02:00',
  '0000-01-01T00:30:00+01:00',
  'not a date',
  '\u0000',
  '\uffff',
  '😀',
  'ä',
  ...PROTOTYPE_NAMES,
  ...USER_RECORD_FIELDS.slice(0, 8),
  ...MOBILE_REGISTRATION_STATUSES.slice(0, 3),
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  1.5,
  17,
  50,
  1000,
  1001,
  2 ** 53,
  2 ** 53 + 2,
  1e20,
  -1e20,
  1e-200,
  1e-100,
  Number.MAX_VALUE,
  Infinity,
  -Infinity,
];

/** Any JSON value; objects get their own keys (so `__proto__` is a member, as JSON.parse makes it). */
export function jsonValue(random: Random, depth = 0): unknown {
  const kind = random.int(depth >= 4 ? 4 : 6);
  switch (kind) {
    case 0:
      return random.chance(0.7) ? random.pick(STRINGS) : randomText(random);
    case 1:
      return random.chance(0.8) ? random.pick(NUMBERS) : (random.next() - 0.5) * 10 ** random.int(30);
    case 2:
      return random.chance(0.5);
    case 3:
      return null;
    case 4:
      return Array.from({ length: random.int(4) }, () => jsonValue(random, depth + 1));
    default:
      return jsonObject(
        random,
        random.int(5),
        () => random.pick(KEYS),
        () => jsonValue(random, depth + 1),
      );
  }
}

function randomText(random: Random): string {
  return Array.from({ length: random.int(12) }, () => String.fromCharCode(random.int(0x3000))).join('');
}

function jsonObject(random: Random, size: number, key: () => string, value: () => unknown): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: size }, () => [key(), value()]));
}

export function jsonCorpus(seed: number, size: number): unknown[] {
  const random = seededRandom(seed);
  return Array.from({ length: size }, () => jsonValue(random));
}

/** Bodies shaped like user-status requests, with values of every kind at every level. */
export function requestCorpus(seed: number, size: number): unknown[] {
  const random = seededRandom(seed);
  const sometimesWrong = <T>(good: () => T): unknown => (random.chance(0.85) ? good() : jsonValue(random, 3));
  const filterValue = (name: string): unknown => {
    if ((STRING_FILTER_FIELDS as readonly string[]).includes(name)) return sometimesWrong(() => random.pick(STRINGS));
    if ((BOOLEAN_FILTER_FIELDS as readonly string[]).includes(name)) return sometimesWrong(() => random.chance(0.5));
    const numeric = (NUMBER_FILTER_FIELDS as readonly string[]).includes(name);
    return sometimesWrong(() =>
      jsonObject(
        random,
        1 + random.int(3),
        () => (random.chance(0.9) ? random.pick(RANGE_OPERATORS) : random.pick(KEYS)),
        () => sometimesWrong(() => (numeric ? random.pick(NUMBERS) : random.pick(STRINGS))),
      ),
    );
  };
  return Array.from({ length: size }, () => {
    const body: Record<string, unknown> = {};
    if (random.chance(0.8)) {
      body.filters = sometimesWrong(() => {
        const names = Array.from({ length: random.int(4) }, () =>
          random.chance(0.95) ? random.pick(FILTER_NAMES) : random.pick(KEYS),
        );
        return Object.fromEntries(names.map((name) => [name, filterValue(name)]));
      });
    }
    if (random.chance(0.5)) {
      body.result_keys = sometimesWrong(() =>
        Array.from({ length: random.int(5) }, () =>
          random.chance(0.95) ? random.pick(USER_RECORD_FIELDS) : jsonValue(random, 3),
        ),
      );
    }
    if (random.chance(0.5)) {
      body.pagination = sometimesWrong(() =>
        jsonObject(
          random,
          random.int(3),
          () => random.pick(['limit', 'offset', 'limit', 'offset', 'page']),
          () => (random.chance(0.8) ? random.pick([1, 10, 50, 1000, 0, 5, 100]) : random.pick(NUMBERS)),
        ),
      );
    }
    if (random.chance(0.05)) {
      // defineProperty, not assignment: `body.__proto__ = ...` would set the prototype, not a member.
      Object.defineProperty(body, random.pick(KEYS), {
        value: jsonValue(random, 2),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return body;
  });
}
