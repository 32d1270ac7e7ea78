import type { SandboxDataStore, SandboxKey } from '#shared/domain/sandbox/sandbox-wipe.ts';
import { USER_NAME_WORDS_TABLE } from './user-name-words.ts';
import type { SqlRunner } from './users-database.ts';

/**
 * Users per transaction: each has at most 16 name words, so one transaction changes at most
 * 150 + 2,400 rows, inside Aurora DSQL's 3,000 changed rows per transaction (docs/user-status.md).
 */
export const USERS_PER_WIPE_TRANSACTION = 150;

/**
 * The sandbox's stored users, a bounded transaction at a time: the ids of a page, then their name
 * words and their rows, every statement with the sandbox's key as `$1` and the ids read under it,
 * so no statement can reach another key. A page that commits is gone; one cut off is rolled back
 * and read again by the next run. Scenario users are not stored, so they stay (docs/sandbox.md).
 */
export function sandboxUsersStore(database: Pick<SqlRunner, 'transaction'>): SandboxDataStore {
  return {
    name: 'users',
    deletePage: (key: SandboxKey) =>
      database.transaction(async (run) => {
        const page = await run.query<{ id: string }>('SELECT id FROM users WHERE org_id = $1 ORDER BY id LIMIT $2', [
          key,
          USERS_PER_WIPE_TRANSACTION,
        ]);
        if (page.length === 0) return 0;
        const ids = page.map(({ id }) => id);
        // A list of parameters, as every other statement on users has it.
        const placeholders = ids.map((_, i) => `$${i + 2}`).join(', ');
        await run.query(`DELETE FROM ${USER_NAME_WORDS_TABLE} WHERE org_id = $1 AND user_id IN (${placeholders})`, [
          key,
          ...ids,
        ]);
        await run.query(`DELETE FROM users WHERE org_id = $1 AND id IN (${placeholders})`, [key, ...ids]);
        return ids.length;
      }),
  };
}
