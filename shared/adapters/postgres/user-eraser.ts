import type { UserEraser } from '#shared/domain/users/ports.ts';
import type { SqlRunner } from './users-database.ts';
import { deleteNameWords } from './user-name-words.ts';

/** Primary key only: the organization is always `$1`, as in every other statement on users. */
const DELETE_USER = 'DELETE FROM users WHERE org_id = $1 AND id = $2';

/** The erasure's last step; the function running it connects as `users_eraser` (SELECT and DELETE on users). */
export class PostgresUserEraser implements UserEraser {
  constructor(private readonly database: Pick<SqlRunner, 'query'>) {}

  async erase(orgId: string, userId: string): Promise<void> {
    // The words first: an erasure stopped between the two leaves the user (found again, erased
    // again), never words of a name whose user is gone.
    await deleteNameWords(this.database, orgId, userId);
    // No row (a parallel erasure deleted it first) is success: that call did the same work.
    await this.database.query(DELETE_USER, [orgId, userId]);
  }
}
