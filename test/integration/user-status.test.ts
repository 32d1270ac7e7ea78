import { beforeAll, describe, expect, it, vi } from 'vitest';
import { generateDemoUsers } from '../../local/demo-users.ts';
import { seedUsers } from '../../local/seed-demo-data.ts';
import { parseUserRecord } from '../../shared/domain/users/user-record-schema.ts';
import { USER_RECORD_FIELDS, type UserRecord } from '../../shared/domain/users/user-record.ts';
import {
  DEFAULT_RESULT_KEYS,
  REGISTRATION_CATEGORIES,
  toCalendarDate,
  toInstant,
} from '../../shared/domain/users/user-status-query.ts';
import { DIGEST_FILTER_FIELDS } from '../../shared/adapters/dynamodb/user-digest.ts';
import { forgetCachedDigests } from '../../shared/adapters/dynamodb/user-digest-store.ts';
import { DynamoDbUserStatusReader } from '../../shared/adapters/dynamodb/user-status-reader.ts';
import { queryUserStatus } from '../../shared/domain/users/query-user-status.ts';
import type { UserField } from '../../shared/domain/users/user-status-query.ts';
import { userStatusRequestSchema } from '../../shared/http/schemas/user-status-schemas.ts';
import { parseInput } from '../../shared/http/validation.ts';
import { seededRandom, type Random } from '../unit/users/json-corpus.ts';
import { callApi, tokenFor, uniqueOrg } from './api-client.ts';
import { documentClient } from './report-support.ts';
import { inject } from 'vitest';

/**
 * The oracle: a deliberately plain in-memory reading of the contract's query semantics. The
 * service (DynamoDB key conditions, filter and projection expressions, paging) must agree with
 * it for every generated query.
 */
type Filters = Record<string, unknown>;

function matches(user: UserRecord, filters: Filters): boolean {
  return Object.entries(filters).every(([field, wanted]) => {
    const actual = (user as unknown as Record<string, unknown>)[field];
    if (field === 'email')
      return typeof actual === 'string' && actual.toLowerCase() === String(wanted).trim().toLowerCase();
    if (field === 'registration_status') {
      const allowed = REGISTRATION_CATEGORIES[wanted as string] ?? [wanted];
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

describe('POST /v1/user-status against DynamoDB Local', () => {
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
    const documents = documentClient();
    const tableName = inject('localEnv').USERS_TABLE_NAME!;
    await seedUsers({ documents, tableName, orgId, users });
    await seedUsers({ documents, tableName, orgId: otherOrgId, users: others });
    token = await tokenFor(orgId);
    // Queries read indexes DynamoDB updates shortly after the table: wait until both orgs are whole.
    const otherToken = await tokenFor(otherOrgId);
    const total = async (as: string) => (await query({ pagination: { limit: 1 } }, as)).body.pagination.total;
    await vi.waitFor(
      async () => {
        if ((await total(token)) !== 400 || (await total(otherToken)) !== 60)
          throw new Error('indexes not yet complete');
      },
      { timeout: 15_000, interval: 250 },
    );
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

  it('agrees with the oracle on the digest and on byStatus alike, for queries on the fields both carry', async () => {
    const rng = seededRandom(77);
    const documents = documentClient();
    const tableName = inject('localEnv').USERS_TABLE_NAME!;
    const paths = new Map<string, number>();
    const readers = [true, false].map((useDigest) => {
      const reader = new DynamoDbUserStatusReader(documents, tableName, { useDigest });
      return {
        findPage: async (...args: Parameters<DynamoDbUserStatusReader['findPage']>) => {
          const page = await reader.findPage(...args);
          paths.set(page.accessPath, (paths.get(page.accessPath) ?? 0) + 1);
          return page;
        },
      };
    });
    let checked = 0;
    while (checked < 40) {
      const filters: Filters = {};
      for (let n = rng.int(3) + 1; n > 0; n--) Object.assign(filters, rng.pick(filterMakers)(rng, users));
      if (!Object.keys(filters).every((name) => DIGEST_FILTER_FIELDS.has(name as UserField))) continue;
      const pagination = { limit: 1 + rng.int(40), offset: rng.int(60) };
      const query = parseInput(userStatusRequestSchema, { filters, result_keys: ['id', 'country'], pagination });
      const expected = oracle(users, filters, ['id', 'country'], pagination.limit, pagination.offset);

      for (const reader of readers) {
        forgetCachedDigests();
        expect(await queryUserStatus({ users: reader })(orgId, query), JSON.stringify(filters)).toEqual(expected);
      }
      checked++;
    }
    expect(paths.get('digest')).toBeGreaterThanOrEqual(35);
    expect(paths.get('byStatus')).toBeGreaterThanOrEqual(35);
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

  it('needs the users:read scope', async () => {
    const response = await query({}, await tokenFor(orgId, { scopes: ['reports:read'] }));

    expect(response.status).toBe(403);
  });
});
