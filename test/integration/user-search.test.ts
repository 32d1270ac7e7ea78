import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoUsers } from '#local/demo-users.ts';
import { seedUsers } from '#local/seed-demo-data.ts';
import { PostgresUserEraser } from '#shared/adapters/postgres/user-eraser.ts';
import { backfillNameWords } from '#shared/adapters/postgres/user-name-words.ts';
import { PostgresUserWriter } from '#shared/adapters/postgres/user-writer.ts';
import type { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import { parseUserRecord } from '#shared/domain/users/user-record-schema.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { foldForSearch } from '#shared/domain/users/user-search.ts';
import { seededRandom } from '#test/unit/users/json-corpus.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';

/**
 * `filters.search` end to end: the local stack's API over the real PostgreSQL, its word table
 * written by the same writer the import uses and emptied by the same eraser the API uses.
 */

const orgId = uniqueOrg('search');
const otherOrgId = uniqueOrg('search-other');

function valid(org: string, record: Partial<UserRecord> & { id: string }, template: UserRecord): UserRecord {
  const parsed = parseUserRecord(org, { ...template, organization_id: org, ...record });
  if (!parsed.success) throw new Error(`record ${record.id} is invalid: ${parsed.problems.join('; ')}`);
  return parsed.record;
}

/** The contract's reading of a search, over records in memory (names folded the same way). */
function oracleMatches(user: UserRecord, search: string): boolean {
  const text = search.trim();
  if (user.id === text) return true;
  if (typeof user.email === 'string' && user.email.trim().toLowerCase().startsWith(text.normalize('NFC').toLowerCase()))
    return true;
  const words = foldForSearch(user.name ?? '')
    .split(/\s+/)
    .flatMap((word) => [word, ...word.split(/[^\p{L}\p{M}\p{N}]+/u)])
    .filter(Boolean);
  const terms = foldForSearch(text).split(/\s+/).filter(Boolean);
  return terms.every((term) => words.some((word) => word.startsWith(term)));
}

describe('POST /v1/user-status with filters.search', () => {
  let users: UserRecord[];
  let token: string;
  let database: PostgresUsersDatabase;

  const search = async (text: unknown, extra: Record<string, unknown> = {}, limit = 1000) => {
    const response = await callApi('POST', '/v1/user-status', {
      token,
      body: { filters: { search: text, ...extra }, result_keys: ['id', 'name', 'email'], pagination: { limit } },
    });
    return response;
  };
  const idsFound = async (text: string, extra: Record<string, unknown> = {}) => {
    const response = await search(text, extra);
    expect(response.status).toBe(200);
    return (response.body.results as Array<{ id: string }>).map((row) => row.id);
  };

  beforeAll(async () => {
    const generated = generateDemoUsers({ orgId, count: 300, seed: 11 });
    const template = generated[0]!;
    const crafted = [
      { id: 'zoe-1', name: 'Zoë Ångström', email: 'Zoe.Angstrom@Example.test' },
      { id: 'obrien', name: "Jean-Luc O'Brien", email: 'jl@example.test' },
      { id: 'strasse', name: 'Petra STRAßE', email: 'petra@example.test' },
      { id: 'celik', name: 'ÇELİK Ayşe', email: 'ayse@example.test' },
      { id: 'zo', name: 'Zofia Nowak', email: 'zn@example.test' },
    ].map((record, i) => valid(orgId, { ...record, created_at: `2000-01-0${i + 1}T00:00:00.000Z` }, template));
    users = [...crafted, ...generated.map((record) => valid(orgId, record, record))];
    const others = [valid(otherOrgId, { id: 'zoe-1', name: 'Zoë Other', email: 'zoe@other.test' }, template)];
    database = usersDatabaseAsAdmin();
    await seedUsers({ database, orgId, users });
    await seedUsers({ database, orgId: otherOrgId, users: others });
    token = await tokenFor(orgId);
  });
  afterAll(() => database?.close());

  /** What the in-memory reading expects, sorted as the service orders (created_at, id). */
  const expected = (text: string) =>
    users
      .filter((user) => oracleMatches(user, text))
      .sort((x, y) => (x.created_at === y.created_at ? (x.id < y.id ? -1 : 1) : x.created_at < y.created_at ? -1 : 1))
      .map((user) => user.id);
  const finds = async (text: string, id: string) => {
    const found = await idsFound(text);
    expect(found, `search ${JSON.stringify(text)}`).toEqual(expected(text));
    expect(found, `search ${JSON.stringify(text)}`).toContain(id);
  };

  it('finds "Zoë" by "zoë", "ZOË", a decomposed "zoë" and "ångs"; not by "zoe" (accents are kept)', async () => {
    await finds('zoë', 'zoe-1');
    await finds('ZOË', 'zoe-1');
    await finds('zoe\u0308', 'zoe-1');
    await finds('ångs', 'zoe-1');
    expect(await idsFound('zoe ång')).not.toContain('zoe-1');
  });

  it('matches the start of any word of the name, parts after inner punctuation included', async () => {
    await finds('brien', 'obrien');
    await finds("o'bri", 'obrien');
    await finds('luc', 'obrien');
    expect(await idsFound('rien')).not.toContain('obrien');
  });

  it('folds case beyond ASCII: ß and ss, İ and i', async () => {
    await finds('strasse', 'strasse');
    await finds('straße', 'strasse');
    await finds('çelik', 'celik');
    await finds('ayşe', 'celik');
  });

  it('needs every word of a multi-word search to start a word of the name', async () => {
    await finds('zoë ång', 'zoe-1');
    await finds('  zo   now ', 'zo');
    expect(await idsFound('zoë nowak')).not.toContain('zoe-1');
    expect(await idsFound('zoë nowak')).not.toContain('zo');
  });

  it('matches the start of the e-mail case-insensitively, and the id exactly', async () => {
    await finds('ZOE.ANG', 'zoe-1');
    await finds('obrien', 'obrien');
    expect(await idsFound('obri')).not.toContain('obrien');
  });

  it('combines with the other filters (AND), keeps the order and counts every match', async () => {
    const zo = await search('zo');
    expect(zo.body.results.map((row: { id: string }) => row.id).slice(0, 2)).toEqual(['zoe-1', 'zo']);
    expect(zo.body.pagination.total).toBe(users.filter((user) => oracleMatches(user, 'zo')).length);
    expect(await idsFound('zo', { email: 'zn@example.test' })).toEqual(['zo']);
    const paged = await search('zo', {}, 1);
    expect(paged.body.results).toHaveLength(1);
    expect(paged.body.pagination.total).toBe(zo.body.pagination.total);
  });

  it("never returns another organization's users", async () => {
    const found = await search('zoë');
    expect(found.body.results).toContainEqual({
      id: 'zoe-1',
      name: 'Zoë Ångström',
      email: 'Zoe.Angstrom@Example.test',
    });
    expect(found.body.results.map((row: { name: string }) => row.name)).not.toContain('Zoë Other');
    expect(found.body.results.map((row: { id: string }) => row.id)).toEqual(expected('zoë'));
  });

  it('agrees with the in-memory reading for word starts drawn from the population', async () => {
    const rng = seededRandom(5);
    for (let i = 0; i < 25; i++) {
      const user = rng.pick(users);
      const words = (user.name ?? '').split(/\s+/).filter(Boolean);
      const word = rng.pick(words);
      const text = [...word].slice(0, 1 + Math.floor(rng.next() * 3)).join('');
      const expected = users
        .filter((candidate) => oracleMatches(candidate, text))
        .map((candidate) => candidate.id)
        .sort();
      const found = (await idsFound(text)).sort();
      expect(found, `search ${JSON.stringify(text)}`).toEqual(expected);
      expect(found).toContain(user.id);
    }
  });

  it('treats SQL and LIKE characters as text', async () => {
    for (const text of ["zo' OR '1'='1", 'z%', 'z_', '\\', "'; DROP TABLE user_name_words; --"]) {
      const response = await search(text);
      expect(response.status).toBe(200);
      expect(response.body.results).toEqual([]);
    }
  });

  it('refuses a blank search, a non-string and more than 8 words with 400s naming filters.search', async () => {
    const blank = await search('   ');
    expect(blank.status).toBe(400);
    expect(blank.body.errors).toEqual([
      { field: 'filters.search', code: 'isNotEmpty', hint: expect.stringContaining('filters.search') },
    ]);
    expect((await search(42)).body.errors[0]).toMatchObject({ field: 'filters.search', code: 'isString' });
    const wordy = await search('a b c d e f g h i');
    expect(wordy.status).toBe(400);
    expect(wordy.body.errors[0]).toMatchObject({ field: 'filters.search', code: 'maxLength' });
  });

  it('follows a rename: the old name is no longer found, the new one is', async () => {
    const writer = new PostgresUserWriter<string>({ database, orgId });
    const before = users.find((user) => user.id === 'zo')!;
    await writer.put({ ...before, name: 'Zuzanna Kowalska' }, 'zo');
    await writer.close();
    expect(await idsFound('zofia')).not.toContain('zo');
    expect(await idsFound('zuzanna kowal')).toEqual(['zo']);
  });

  it('an erased user leaves no words behind', async () => {
    await new PostgresUserEraser(database).erase(orgId, 'strasse');
    const words = await database.query('SELECT word FROM user_name_words WHERE org_id = $1 AND user_id = $2', [
      orgId,
      'strasse',
    ]);
    expect(words).toEqual([]);
    expect(await idsFound('petra')).not.toContain('strasse');
  });

  it('migration 4 backfills the words of users written before the word table existed', async () => {
    await database.query('DELETE FROM user_name_words WHERE org_id = $1', [orgId]);
    expect(await idsFound('ångström')).not.toContain('zoe-1');
    expect(await backfillNameWords(database)).toBeGreaterThanOrEqual(users.length - 1);
    expect(await idsFound('ångström')).toContain('zoe-1');
    expect(await idsFound('zoë ångström')).toEqual(expected('zoë ångström'));
  });
});
