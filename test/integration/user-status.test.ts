import { beforeAll, describe, expect, it } from 'vitest';
import { generateDemoUsers } from '#local/demo-users.ts';
import { seedUsers } from '#local/seed-demo-data.ts';
import { parseUserRecord } from '#shared/domain/users/user-record-schema.ts';
import { USER_RECORD_FIELDS, type UserRecord } from '#shared/domain/users/user-record.ts';
import {
  DEFAULT_RESULT_KEYS,
  STRING_FILTER_FIELDS,
  REGISTRATION_CATEGORIES,
  toCalendarDate,
  toInstant,
} from '#shared/domain/users/user-status-query.ts';
import { seededRandom, type Random } from '#test/unit/users/json-corpus.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';

/**
 * The oracle: a deliberately plain in-memory reading of the contract's query semantics. The
 * service (SQL conditions, ordering and paging in PostgreSQL) must agree with
 * it for every generated query.
 */
type Filters = Record<string, unknown>;

const SQL_INJECTIONS = [
  "x' OR '1'='1",
  "'; DROP TABLE users; --",
  'x") OR 1=1 --',
  "' UNION SELECT org_id, id FROM users --",
  '$1',
];

function matches(user: UserRecord, filters: Filters): boolean {
  return Object.entries(filters).every(([field, wanted]) => {
    const actual = (user as unknown as Record<string, unknown>)[field];
    if (field === 'email')
      return typeof actual === 'string' && actual.toLowerCase() === String(wanted).trim().toLowerCase();
    if (field === 'registration_status') {
      const allowed: readonly string[] = Object.hasOwn(REGISTRATION_CATEGORIES, wanted as string)
        ? REGISTRATION_CATEGORIES[wanted as keyof typeof REGISTRATION_CATEGORIES]
        : [wanted as string];
      return allowed.includes(actual as string);
    }
    if (field === 'mobile_registration_status') return actual === String(wanted).trim();
    if (typeof wanted !== 'object' || wanted === null) return actual === wanted;
    if (actual === undefined || actual === null) return false;
    return Object.entries(wanted as Record<string, number | string>).every(([op, bound]) => {
      const [a, b] =
        field === 'dob' || field === 'guardian_dob'
          ? [String(actual), toCalendarDate(String(bound))]
          : typeof bound === 'number'
            ? [actual as number, bound]
            : [Date.parse(String(actual)), Date.parse(toInstant(String(bound)))];
      return op === 'gt' ? a > b : op === 'gte' ? a >= b : op === 'lt' ? a < b : op === 'lte' ? a <= b : a === b;
    });
  });
}

function oracle(users: UserRecord[], filters: Filters, keys: readonly string[], limit: number, offset: number) {
  const matching = users
    .filter((user) => matches(user, filters))
    .sort((x, y) => (x.created_at === y.created_at ? (x.id < y.id ? -1 : 1) : x.created_at < y.created_at ? -1 : 1));
  const results = matching
    .slice(offset, offset + limit)
    .map((user) =>
      Object.fromEntries(keys.map((key) => [key, (user as unknown as Record<string, unknown>)[key] ?? null])),
    );
  return { results, pagination: { limit, offset, total: matching.length } };
}

type Rng = Random;
const field = (user: UserRecord, name: string) => (user as unknown as Record<string, unknown>)[name];

/** Filter generators drawing their values from the population, so most queries match something. */
const filterMakers: Array<(rng: Rng, users: UserRecord[]) => Filters> = [
  (rng, users) => ({ city: field(rng.pick(users), 'city') }),
  (rng, users) => ({ country: field(rng.pick(users), 'country') }),
  (rng, users) => ({ email: String(field(rng.pick(users), 'email')).toUpperCase() }),
  (rng, users) => ({ id: rng.pick(users).id }),
  (rng) => ({ registration_status: rng.pick([...Object.keys(REGISTRATION_CATEGORIES), 'For Review', 'Complete']) }),
  (rng, users) => ({ mobile_registration_status: `${field(rng.pick(users), 'mobile_registration_status')} ` }),
  (rng, users) => ({ connection_status: field(rng.pick(users), 'connection_status') }),
  (rng) => ({ data_sharing_agreed: rng.next() < 0.5 }),
  (rng) => ({ is_deleted: rng.next() < 0.2 }),
  (rng) => ({ age: { [rng.pick(['gt', 'gte', 'lt', 'lte'])]: 10 + rng.int(60) } }),
  (rng) => ({ age: { gte: 18, lt: 18 + rng.int(40) } }),
  (rng, users) => ({ guardian_age: { gte: Number(field(rng.pick(users), 'guardian_age') ?? 40) - 5 } }),
  (rng) => ({ selfie_liveness_score: { gte: Math.round(rng.next() * 100) / 100 } }),
  (rng) => ({ fmc_score: { lt: Math.round(rng.next() * 10000) / 100 } }),
  (rng, users) => ({ dob: { gte: String(field(rng.pick(users), 'dob') ?? '1990-01-01') } }),
  (rng, users) => ({ dob: { lte: `${String(field(rng.pick(users), 'dob') ?? '2000-06-01')}T23:59:59Z` } }),
  (rng, users) => ({ dob: { eq: String(field(rng.pick(users), 'dob') ?? '1990-01-01') } }),
  (rng, users) => {
    const [a, b] = [rng.pick(users).created_at, rng.pick(users).created_at].sort();
    return { created_at: { gte: a, lte: b } };
  },
  (rng, users) => ({ created_at: { gt: rng.pick(users).created_at } }),
  (rng, users) => ({ created_at: { lt: rng.pick(users).created_at } }),
  (rng, users) => ({ created_at: { eq: rng.pick(users).created_at } }),
  (rng, users) => ({ updated_at: { gte: String(field(rng.pick(users), 'updated_at') ?? '2025-01-01T00:00:00Z') } }),
  (rng, users) => ({
    connection_status_updated_at: {
      lte: String(field(rng.pick(users), 'connection_status_updated_at') ?? '2026-01-01'),
    },
  }),
];

describe('POST /v1/user-status against the local PostgreSQL', () => {
  const orgId = uniqueOrg('status');
  const otherOrgId = uniqueOrg('other');
  let users: UserRecord[];
  let token: string;

  beforeAll(async () => {
    const normalise = (org: string, records: UserRecord[]) =>
      records.map((record) => {
        const parsed = parseUserRecord(org, record);
        if (!parsed.success) throw new Error(`generated record ${record.id} is invalid: ${parsed.problems.join('; ')}`);
        return parsed.record;
      });
    users = normalise(orgId, generateDemoUsers({ orgId, count: 400, seed: 7 }));
    // The other organization reuses ids and e-mails of the first: tenancy must keep them apart.
    const others = normalise(otherOrgId, generateDemoUsers({ orgId: otherOrgId, count: 60, seed: 7 }));
    const database = usersDatabaseAsAdmin();
    try {
      await seedUsers({ database, orgId, users });
      await seedUsers({ database, orgId: otherOrgId, users: others });
    } finally {
      await database.close();
    }
    token = await tokenFor(orgId);
  });

  const query = (body: unknown, as = token) => callApi('POST', '/v1/user-status', { token: as, body });

  it('agrees with the in-memory oracle on many generated filter, key and page combinations', async () => {
    const rng = seededRandom(2026);
    for (let run = 0; run < 60; run++) {
      const filters: Filters = {};
      for (let n = rng.int(3) + 1; n > 0; n--) Object.assign(filters, rng.pick(filterMakers)(rng, users));
      const keys =
        rng.next() < 0.3 ? undefined : Array.from({ length: 1 + rng.int(5) }, () => rng.pick(USER_RECORD_FIELDS));
      const pagination = rng.next() < 0.3 ? undefined : { limit: 1 + rng.int(40), offset: rng.int(30) };
      const body = { filters, ...(keys ? { result_keys: keys } : {}), ...(pagination ? { pagination } : {}) };

      const response = await query(body);

      const expected = oracle(
        users,
        filters,
        keys ? [...new Set(keys)] : DEFAULT_RESULT_KEYS,
        pagination?.limit ?? 50,
        pagination?.offset ?? 0,
      );
      expect({ status: response.status, body: response.body }, JSON.stringify(body)).toEqual({
        status: 200,
        body: expected,
      });
    }
  });

  it('returns pages that concatenate to the full ordered list', async () => {
    const filters = { registration_status: 'active' };
    const expected = oracle(users, filters, ['id'], 1000, 0).results.map((r) => r.id);
    const seen: unknown[] = [];
    for (let offset = 0; offset < expected.length + 7; offset += 7) {
      const page = await query({ filters, result_keys: ['id'], pagination: { limit: 7, offset } });
      expect(page.body.pagination.total).toBe(expected.length);
      seen.push(...page.body.results.map((r: { id: string }) => r.id));
    }
    expect(expected.length).toBeGreaterThan(20);
    expect(seen).toEqual(expected);
  });

  it("never shows another organization's records, even for the same id or e-mail", async () => {
    const shared = users[5]!;
    const otherToken = await tokenFor(otherOrgId);

    const byId = await query({ filters: { id: shared.id }, result_keys: ['id', 'organization_id'] }, otherToken);
    const byEmail = await query({ filters: { email: shared.email }, result_keys: ['organization_id'] }, otherToken);
    const all = await query({ result_keys: ['organization_id'], pagination: { limit: 1000 } }, otherToken);

    expect(byId.body.results).toEqual([{ id: shared.id, organization_id: otherOrgId }]);
    expect(byEmail.body.results.every((r: { organization_id: string }) => r.organization_id === otherOrgId)).toBe(true);
    expect(all.body.pagination.total).toBe(60);
    expect(new Set(all.body.results.map((r: { organization_id: string }) => r.organization_id))).toEqual(
      new Set([otherOrgId]),
    );
  });

  it('returns the default dataset, the nested screening result whole, and null for absent fields', async () => {
    const flagged = users.find((u) => (u.idcheck_pep_sanction_result?.pep_result.length ?? 0) > 0)!;

    const defaults = await query({ filters: { id: flagged.id } });
    const nested = await query({
      filters: { id: flagged.id },
      result_keys: ['idcheck_pep_sanction_result', 'middle_name', 'id'],
    });

    expect(Object.keys(defaults.body.results[0])).toEqual([...DEFAULT_RESULT_KEYS]);
    expect(nested.body.results[0]).toEqual({
      idcheck_pep_sanction_result: flagged.idcheck_pep_sanction_result,
      middle_name: flagged.middle_name ?? null,
      id: flagged.id,
    });
  });

  it('answers a contradictory range with no records rather than an error', async () => {
    const response = await query({ filters: { created_at: { gt: '2026-01-01', lt: '2025-01-01' } } });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ results: [], pagination: { limit: 50, offset: 0, total: 0 } });
  });

  it.each([
    [{ filters: 'x' }, 'filters', 'isObject'],
    [{ result_keys: 'id' }, 'resultKeys', 'isArray'],
    [{ pagination: { limit: 'ten' } }, 'pagination.limit', 'isNumber'],
    [{ filter: {} }, 'filter', 'isIn'],
    [{ filters: { favourite_colour: 'blue' } }, 'filters.favouriteColour', 'isIn'],
  ])('refuses %j with 400 %s %s', async (body, fieldName, code) => {
    const response = await query(body);

    expect(response.status).toBe(400);
    expect(response.body.errors).toContainEqual(expect.objectContaining({ field: fieldName, code }));
  });

  it.each(STRING_FILTER_FIELDS.map((field) => [field]))(
    'treats SQL in the %s filter as a plain value that matches nothing',
    async (field) => {
      for (const attack of SQL_INJECTIONS) {
        const response = await query({ filters: { [field]: attack }, result_keys: ['id'] });

        expect(response.status, attack).toBe(
          field === 'registration_status' || field === 'mobile_registration_status' ? 400 : 200,
        );
        if (response.status === 200) expect(response.body.pagination.total, attack).toBe(0);
      }
    },
  );

  it('finds a stored value that looks like SQL exactly, and only it', async () => {
    const sqlOrgId = uniqueOrg('sql');
    const [plain, tricky] = generateDemoUsers({ orgId: sqlOrgId, count: 2, seed: 3 });
    const database = usersDatabaseAsAdmin();
    try {
      await seedUsers({
        database,
        orgId: sqlOrgId,
        users: [plain!, { ...tricky!, override_notes: SQL_INJECTIONS[0] }],
      });
    } finally {
      await database.close();
    }
    const sqlToken = await tokenFor(sqlOrgId);

    const response = await query({ filters: { override_notes: SQL_INJECTIONS[0] }, result_keys: ['id'] }, sqlToken);
    const everyone = await query({ result_keys: ['id'] }, sqlToken);

    expect(response.body).toEqual({ results: [{ id: tricky!.id }], pagination: { limit: 50, offset: 0, total: 1 } });
    expect(everyone.body.pagination.total).toBe(2);
  });

  it('refuses SQL in result_keys with 400 isIn', async () => {
    const response = await query({ result_keys: ['id', 'id FROM users; --'] });

    expect(response.status).toBe(400);
    expect(response.body.errors).toContainEqual(expect.objectContaining({ field: 'resultKeys[1]', code: 'isIn' }));
  });

  it('matches nothing, rather than failing, for a value PostgreSQL cannot hold (U+0000)', async () => {
    const response = await query({ filters: { city: 'Lon\u0000don', email: 'a\u0000@example.com' } });

    expect(response.status).toBe(200);
    expect(response.body.pagination.total).toBe(0);
  });

  it('needs the users:read scope', async () => {
    const response = await query({}, await tokenFor(orgId, { scopes: ['reports:read'] }));

    expect(response.status).toBe(403);
  });
});
