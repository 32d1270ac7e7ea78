import type { UserEraser } from '#shared/domain/users/ports.ts';
import type { SqlRunner } from './users-database.ts';
import { deleteNameWords } from './user-name-words.ts';

/** Primary key only: the organization is always `$1`, as in every other statement on users. */
const DELETE_USER = 'DELETE FROM users WHERE org_id = $1 AND id = $2';

/** The erasure's last step; the function running it connects as `users_eraser` (SELECT and DELETE on users). */
export class PostgresUserEraser implements UserEraser {
  constructor(private readonly database: Pick<SqlRunner, 'transaction'>) {}

  /**
   * The user's search words and row in one transaction: a concurrent import of the same user
   * (which locks the row while it writes its words) conflicts with it instead of leaving words of
   * an erased name; a conflict runs both deletes again.
   */
  async erase(orgId: string, userId: string): Promise<void> {
    await this.database.transaction(async (run) => {
      await deleteNameWords(run, orgId, userId);
      // No row (a parallel erasure deleted it first) is success: that call did the same work.
      await run.query(DELETE_USER, [orgId, userId]);
    });
  }
}
