import { nameWordsOf } from '#shared/domain/users/user-search.ts';
import type { SqlRunner } from './users-database.ts';

/**
 * The word table behind `filters.search`: one row per (organization, user, folded word of the
 * user's name), with the user's `created_at`. The primary key `(org_id, user_id, word)` finds a
 * user's words to replace or erase them; `user_name_words_by_prefix (org_id, word, created_at,
 * user_id)` makes "users with a word starting with p, in page order" one range scan that reads no
 * other table (`word >= p AND word < successor(p)`, C collation). Each statement has one index
 * whose leading columns fit it, so no plan depends on fresh statistics (an import writes faster
 * than they follow). Aurora DSQL has B-tree indexes only (no trigram or GIN
 * index, no triggers), so the words are computed in TypeScript and written by the same code that
 * writes the user (PostgresUserWriter), and deleted by the erasure (PostgresUserEraser).
 */
export const USER_NAME_WORDS_TABLE = 'user_name_words';

/** Rows per statement: a DSQL transaction changes at most 3,000 rows, and each statement is one. */
const WORD_ROWS_PER_STATEMENT = 2_500;
/**
 * Users per replacing transaction: each has at most MAX_WORDS_PER_USER (16) words, so at most
 * 1,280 rows deleted and 1,280 added (DSQL: 3,000 changed rows per transaction).
 */
const USERS_PER_REPLACE = 80;

type Database = Pick<SqlRunner, 'query'>;
/** What the words of a user are made from, and what they carry. */
type NamedUser = { id: string; created_at: string; name?: string | null | undefined };

/**
 * Makes the stored words of these users those of their names as stored now: per group of users,
 * one transaction locks their rows (`SELECT ... FOR UPDATE`: on DSQL the rows join the
 * transaction's conflict check, locally they wait), replaces their words and adds those of the
 * names it read. Two writers of the same user then leave the words of the name the row keeps, and
 * an erasure (PostgresUserEraser, one transaction) never leaves words of a user it deleted: the
 * loser of either race conflicts and runs again. A user no longer stored gets no words. Safe to
 * repeat.
 */
export async function replaceNameWords(
  database: Pick<SqlRunner, 'transaction'>,
  orgId: string,
  userIds: readonly string[],
): Promise<void> {
  for (let start = 0; start < userIds.length; start += USERS_PER_REPLACE) {
    const ids = userIds.slice(start, start + USERS_PER_REPLACE);
    const placeholders = ids.map((_, i) => `$${i + 2}`).join(', ');
    await database.transaction(async (run) => {
      const stored = await run.query<NamedUser>(
        `SELECT id, created_at, name FROM users WHERE org_id = $1 AND id IN (${placeholders}) FOR UPDATE`,
        [orgId, ...ids],
      );
      await run.query(`DELETE FROM ${USER_NAME_WORDS_TABLE} WHERE org_id = $1 AND user_id IN (${placeholders})`, [
        orgId,
        ...ids,
      ]);
      await insertNameWords(run, orgId, stored);
    });
  }
}

/** Adds the words of these users' names (ON CONFLICT DO NOTHING: a word already stored stays). */
export async function insertNameWords(
  database: Database,
  orgId: string,
  users: ReadonlyArray<NamedUser>,
): Promise<void> {
  const rows = users.flatMap((user) => nameWordsOf(user.name).map((word) => [word, user.created_at, user.id] as const));
  for (let start = 0; start < rows.length; start += WORD_ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + WORD_ROWS_PER_STATEMENT);
    const values: unknown[] = [orgId];
    const tuples = chunk.map(([word, createdAt, userId]) => {
      values.push(userId, word, createdAt);
      return `($1, $${values.length - 2}, $${values.length - 1}, $${values.length})`;
    });
    await database.query(
      `INSERT INTO ${USER_NAME_WORDS_TABLE} (org_id, user_id, word, created_at) VALUES ${tuples.join(', ')} ` +
        'ON CONFLICT (org_id, user_id, word) DO NOTHING',
      values,
    );
  }
}

/** Removes one user's words (the erasure's step before the user's row). */
export async function deleteNameWords(database: Database, orgId: string, userId: string): Promise<void> {
  await database.query(`DELETE FROM ${USER_NAME_WORDS_TABLE} WHERE org_id = $1 AND user_id = $2`, [orgId, userId]);
}

const BACKFILL_PAGE = 1_000;

/**
 * Writes the words of every stored user (0004_user_name_words.sql: users written before the word table
 * existed), in key order, a page at a time. Safe to run again: existing words stay.
 */
export async function backfillNameWords(database: Database): Promise<number> {
  let after: { org_id: string; id: string } | undefined;
  let users = 0;
  for (;;) {
    const page = await database.query<{ org_id: string; id: string; created_at: string; name: string | null }>(
      after === undefined
        ? 'SELECT org_id, id, created_at, name FROM users ORDER BY org_id, id LIMIT $1'
        : 'SELECT org_id, id, created_at, name FROM users WHERE (org_id, id) > ($2, $3) ORDER BY org_id, id LIMIT $1',
      after === undefined ? [BACKFILL_PAGE] : [BACKFILL_PAGE, after.org_id, after.id],
    );
    if (page.length === 0) return users;
    const byOrg = new Map<string, NamedUser[]>();
    for (const row of page) {
      const list = byOrg.get(row.org_id) ?? [];
      list.push(row);
      byOrg.set(row.org_id, list);
    }
    for (const [orgId, rows] of byOrg) await insertNameWords(database, orgId, rows);
    users += page.length;
    after = page.at(-1)!;
  }
}
