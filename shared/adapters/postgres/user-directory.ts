import type { UserDirectory } from '#shared/domain/reports/ports.ts';
import { USER_RECORD_FIELDS, type UserRecord } from '#shared/domain/users/user-record.ts';
import type { SqlRunner } from './users-database.ts';
import { fromUserRow } from './user-rows.ts';

const SELECT_USER = `SELECT ${USER_RECORD_FIELDS.join(', ')} FROM users WHERE org_id = $1 AND id = $2`;

/** One user by organization and id (the primary key): what report creation and the worker read. */
export class PostgresUserDirectory implements UserDirectory {
  constructor(private readonly database: Pick<SqlRunner, 'query'>) {}

  async find(orgId: string, userId: string): Promise<UserRecord | undefined> {
    if (userId.includes('\u0000')) return undefined;
    const [row] = await this.database.query(SELECT_USER, [orgId, userId]);
    return row ? (fromUserRow(row) as UserRecord) : undefined;
  }
}
