import type { UserStatusReader } from '#shared/domain/users/query-user-status.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import type { UserField, UserFilter } from '#shared/domain/users/user-status-query.ts';
import type { SqlRunner } from './users-database.ts';
import { buildUserStatusStatements, walkPays, type UserStatusStatements } from './user-status-sql.ts';
import { fromUserRow } from './user-rows.ts';
import { withScenarioUsers } from './scenario-users-sql.ts';

/**
 * Answers user-status queries from the users table: the page first, then the count of every
 * match, unless the page already tells it (a page shorter than the limit ends the matches; an
 * empty first page means none). A search alone is counted first: the count picks its page's plan.
 * A sandbox key's statements read its scenario users beside its stored ones (scenario-users-sql.ts).
 */
export class PostgresUserStatusReader implements UserStatusReader {
  constructor(
    private readonly database: Pick<SqlRunner, 'query'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async findPage(
    orgId: string,
    filters: readonly UserFilter[],
    window: { offset: number; limit: number; fields: readonly UserField[] },
  ): Promise<{ records: Array<Partial<UserRecord>>; total: number; accessPath: string }> {
    const statements = this.withScenarioUsers(orgId, buildUserStatusStatements(orgId, filters, window));
    if (statements.walkPage) {
      // A search alone: how many match decides how the page is best found.
      const total = (await this.database.query<{ total: number }>(statements.count.text, statements.count.values))[0]!
        .total;
      const walk = walkPays(total, window);
      const page = walk ? statements.walkPage : statements.page;
      const found = total === 0 ? [] : await this.database.query(page.text, page.values);
      return { records: found.map(fromUserRow), total, accessPath: walk ? 'sql:count+walk' : 'sql:count+page' };
    }
    const rows = await this.database.query(statements.page.text, statements.page.values);
    const pageEndsMatches = (rows.length > 0 || window.offset === 0) && rows.length < window.limit;
    const total = pageEndsMatches
      ? window.offset + rows.length
      : (await this.database.query<{ total: number }>(statements.count.text, statements.count.values))[0]!.total;
    return { records: rows.map(fromUserRow), total, accessPath: pageEndsMatches ? 'sql:page' : 'sql:page+count' };
  }

  private withScenarioUsers(tenantKey: string, statements: UserStatusStatements): UserStatusStatements {
    const today = this.now();
    return {
      page: withScenarioUsers(tenantKey, statements.page, today),
      count: withScenarioUsers(tenantKey, statements.count, today),
      ...(statements.walkPage && { walkPage: withScenarioUsers(tenantKey, statements.walkPage, today) }),
    };
  }
}
