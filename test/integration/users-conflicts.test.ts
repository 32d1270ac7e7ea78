import { afterAll, describe, expect, inject, it } from 'vitest';
import { generateDemoUsers } from '#local/demo-users.ts';
import { PostgresUserEraser } from '#shared/adapters/postgres/user-eraser.ts';
import { PostgresUserWriter } from '#shared/adapters/postgres/user-writer.ts';
import { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import { nameWordsOf } from '#shared/domain/users/user-search.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { uniqueOrg } from '#test/support/api-client.ts';

/**
 * Concurrent writers of the same users on the tier's PostgreSQL, which runs in repeatable read as
 * DSQL does: the conflicts are real (40001 from the server), each is retried and counted, and no
 * row is lost, half written, or left with search words of another name or of an erased user.
 */

const local = inject('usersDatabase');
const pools: PostgresUsersDatabase[] = [];
/** A pool of its own (own connections, own retry count), as a second importer or function container has. */
function connect(role: 'admin' | 'eraser' = 'admin'): PostgresUsersDatabase {
  const pool = PostgresUsersDatabase.withPassword({
    host: local.host,
    port: local.port,
    ...local[role],
    maxConnections: 4,
  });
  pools.push(pool);
  return pool;
}
const admin = connect();

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
});

async function write(database: PostgresUsersDatabase, orgId: string, users: readonly UserRecord[]): Promise<void> {
  const writer = new PostgresUserWriter<string>({ database, orgId, batchSize: 100, concurrency: 4 });
  for (const user of users) await writer.put(user, user.id);
  await writer.close();
}

interface StoredUser {
  id: string;
  name: string | null;
  city: string | null;
}

async function storedUsers(orgId: string): Promise<Map<string, StoredUser>> {
  const rows = await admin.query<StoredUser>('SELECT id, name, city FROM users WHERE org_id = $1', [orgId]);
  return new Map(rows.map((row) => [row.id, row]));
}

async function storedWords(orgId: string): Promise<Map<string, string[]>> {
  const rows = await admin.query<{ user_id: string; word: string }>(
    'SELECT user_id, word FROM user_name_words WHERE org_id = $1 ORDER BY user_id, word',
    [orgId],
  );
  const words = new Map<string, string[]>();
  for (const row of rows) words.set(row.user_id, [...(words.get(row.user_id) ?? []), row.word]);
  return words;
}

const wordsOf = (name: string | null | undefined) => [...new Set(nameWordsOf(name))].sort();

/** Runs `round` until the pools have retried a conflict (they race; a round may happen to miss), at most `rounds` times. */
async function untilConflicted(rounds: number, round: (index: number) => Promise<void>): Promise<number> {
  const retries = () => pools.reduce((sum, pool) => sum + pool.conflictRetries, 0);
  const before = retries();
  for (let index = 0; index < rounds && retries() === before; index++) await round(index);
  return retries() - before;
}

describe('users database under concurrent writers (repeatable read, as DSQL)', () => {
  it('runs in repeatable read by default', async () => {
    const [row] = await admin.query<{ level: string }>(
      "SELECT current_setting('default_transaction_isolation') AS level",
    );
    expect(row!.level).toBe('repeatable read');
  });

  it('two importers of the same 1,000 users, each with other names: conflicts retried, every row whole, words of the stored name', async () => {
    const orgId = uniqueOrg('race-import');
    const first = generateDemoUsers({ orgId, count: 1_000, seed: 31 });
    const second = first.map((user) => ({ ...user, name: `${user.name ?? ''} Zweite`, city: 'Zweitstadt' }));
    const [a, b] = [connect(), connect()];

    const retried = await untilConflicted(10, () =>
      Promise.all([write(a, orgId, first), write(b, orgId, second)]).then(),
    );

    expect(retried).toBeGreaterThan(0);
    const users = await storedUsers(orgId);
    const words = await storedWords(orgId);
    expect(users.size).toBe(1_000);
    const byId = new Map(first.map((user, index) => [user.id, [user, second[index]!] as const]));
    for (const [id, stored] of users) {
      const [fromFirst, fromSecond] = byId.get(id)!;
      // One importer's record, never a mix of both.
      const whole =
        (stored.name === (fromFirst.name ?? null) && stored.city === (fromFirst.city ?? null)) ||
        (stored.name === fromSecond.name && stored.city === fromSecond.city);
      expect(whole, `user ${id}`).toBe(true);
      expect(words.get(id) ?? [], `words of ${id}`).toEqual(wordsOf(stored.name));
    }
  });

  it('an import racing the erasure of its users: each user either whole with its words, or gone with its words', async () => {
    const orgId = uniqueOrg('race-erase');
    const users = generateDemoUsers({ orgId, count: 600, seed: 32 });
    const erased = users.filter((_, index) => index % 3 === 0).map((user) => user.id);
    const [importer, eraser] = [connect(), connect('eraser')];
    const eraseAll = async () => {
      const erasure = new PostgresUserEraser(eraser);
      // Four erasures in flight, as parallel DELETE /v1/users/{id} calls would be.
      const queue = [...erased];
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let id = queue.shift(); id !== undefined; id = queue.shift()) await erasure.erase(orgId, id);
        }),
      );
    };

    const retried = await untilConflicted(10, async () => {
      await write(importer, orgId, users);
      await Promise.all([write(importer, orgId, users), eraseAll()]);
    });

    expect(retried).toBeGreaterThan(0);
    const stored = await storedUsers(orgId);
    const words = await storedWords(orgId);
    for (const user of users) {
      const row = stored.get(user.id);
      if (row === undefined) expect(words.get(user.id), `words of erased ${user.id}`).toBeUndefined();
      else {
        expect(row.name).toBe(user.name ?? null);
        expect(words.get(user.id) ?? [], `words of ${user.id}`).toEqual(wordsOf(row.name));
      }
    }
    // Users the race did not touch are all there.
    const kept = users.filter((user) => !erased.includes(user.id));
    expect(kept.every((user) => stored.has(user.id))).toBe(true);
    // No search word names a user who is not stored.
    expect([...words.keys()].filter((id) => !stored.has(id))).toEqual([]);
  });

  it('parallel erasures of the same users: conflicts retried, every one succeeds, nothing of the users left', async () => {
    const orgId = uniqueOrg('race-erasures');
    const users = generateDemoUsers({ orgId, count: 40, seed: 33 });
    const erasers = [connect('eraser'), connect('eraser'), connect('eraser')].map(
      (pool) => new PostgresUserEraser(pool),
    );

    const retried = await untilConflicted(10, async () => {
      await write(admin, orgId, users);
      await Promise.all(
        erasers.map(async (erasure) => {
          for (const user of users) await erasure.erase(orgId, user.id);
        }),
      );
    });

    expect(retried).toBeGreaterThan(0);
    expect((await storedUsers(orgId)).size).toBe(0);
    expect((await storedWords(orgId)).size).toBe(0);
  });
});
