import type { UserDirectory } from '#shared/domain/reports/ports.ts';
import { USER_RECORD_FIELDS, type UserRecord } from '#shared/domain/users/user-record.ts';
import type { SqlRunner } from './users-database.ts';
import { fromUserRow } from './user-rows.ts';
import { scenarioUserOf } from '#shared/domain/sandbox/scenarios.ts';

const SELECT_USER = `SELECT ${USER_RECORD_FIELDS.join(', ')} FROM users WHERE org_id = $1 AND id = $2`;

/**
 * One user by organization and id (the primary key): what report creation and the worker read. A
 * sandbox's scenario user is answered from its definition, with no statement.
 */
export class PostgresUserDirectory implements UserDirectory {
  constructor(
    private readonly database: Pick<SqlRunner, 'query'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async find(orgId: string, userId: string): Promise<UserRecord | undefined> {
    const scenarioUser = scenarioUserOf(orgId, userId, this.now());
    if (scenarioUser) return scenarioUser;
    if (userId.includes('\u0000')) return undefined;
    const [row] = await this.database.query(SELECT_USER, [orgId, userId]);
    return row ? (fromUserRow(row) as UserRecord) : undefined;
  }
}
