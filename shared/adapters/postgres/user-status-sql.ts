import type { RangeOperator, UserField, UserFilter } from '#shared/domain/users/user-status-query.ts';
import { emailKeyOf, hasNulCharacter } from './user-rows.ts';
import { searchCondition, searchMatches, searchRowCondition, type SearchFilter } from './user-search-sql.ts';

/**
 * A user-status query as SQL: every filter a WHERE condition with bound parameters, in §5's
 * semantics (strings exactly, `email` case-insensitively and trimmed through `email_key`,
 * booleans exactly, numbers numerically, dates and instants by their canonical text in the C
 * collation), the organization always the first condition. Column names come only from the
 * domain's field lists, never from the request.
 */
export interface SqlStatement {
  text: string;
  values: unknown[];
}

export interface UserStatusStatements {
  /** The page: ids picked in `created_at, id` order (from an index where one covers the filters), then their rows. */
  page: SqlStatement;
  /** Every match, for `total`. */
  count: SqlStatement;
  /**
   * A search alone: the same page found by walking the users in page order and checking each,
   * which wins over `page` once the matches are many (`walkPays`). The reader counts first, then
   * picks one.
   */
  walkPage?: SqlStatement;
}

/**
 * The walk reads about `(offset + limit) x users / matches` rows, each with an index probe; the
 * grouped page reads every match. With 100 times more matches than the page reaches, the walk
 * reads at most 1% of the organization (10,000 rows at 1,000,000 users).
 */
export const walkPays = (total: number, window: { offset: number; limit: number }): boolean =>
  total >= 100 * (window.offset + window.limit);

const COMPARISON: Record<RangeOperator, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=', eq: '=' };

export function buildUserStatusStatements(
  orgId: string,
  filters: readonly UserFilter[],
  window: { offset: number; limit: number; fields: readonly UserField[] },
): UserStatusStatements {
  const values: unknown[] = [orgId];
  const bind = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const only = filters.length === 1 ? filters[0] : undefined;
  if (only?.kind === 'search') {
    const statements = searchOnlyStatements(only, values, bind, window);
    if (statements) return statements;
  }
  const conditions = ['org_id = $1', ...filters.map((filter) => conditionFor(filter, bind))];
  const where = conditions.join(' AND ');
  const count: SqlStatement = {
    text: `SELECT count(*)::integer AS total FROM users WHERE ${where}`,
    values: [...values],
  };

  const limit = bind(window.limit);
  const offset = bind(window.offset);
  const columns = window.fields.length > 0 ? window.fields.map((field) => `u.${field}`).join(', ') : 'u.id';
  // Paging over ids first lets a deep offset skip index entries rather than whole rows.
  const page: SqlStatement = {
    text:
      `SELECT ${columns} FROM users u JOIN (` +
      `SELECT id FROM users WHERE ${where} ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset}` +
      `) page ON u.org_id = $1 AND u.id = page.id ORDER BY u.created_at, u.id`,
    values,
  };
  return { page, count };
}

/**
 * A search and nothing else (the dashboard's search box): page and count from the matches'
 * `(created_at, user_id)` alone, which the word table's key and users_by_email_prefix hold, so
 * neither reads a user row but the page's; a user matched twice is grouped into one.
 */
function searchOnlyStatements(
  filter: SearchFilter,
  values: unknown[],
  bind: (value: unknown) => string,
  window: { offset: number; limit: number; fields: readonly UserField[] },
): UserStatusStatements | undefined {
  const matches = searchMatches(filter, bind);
  if (matches === undefined) return undefined;
  const count: SqlStatement = {
    text: `SELECT count(DISTINCT m.user_id)::integer AS total FROM (${matches}) m`,
    values: [...values],
  };
  const limit = bind(window.limit);
  const offset = bind(window.offset);
  const columns = window.fields.length > 0 ? window.fields.map((field) => `u.${field}`).join(', ') : 'u.id';
  const page: SqlStatement = {
    text:
      `SELECT ${columns} FROM users u JOIN (` +
      `SELECT m.created_at, m.user_id FROM (${matches}) m GROUP BY m.created_at, m.user_id ` +
      `ORDER BY m.created_at, m.user_id LIMIT ${limit} OFFSET ${offset}` +
      `) page ON u.org_id = $1 AND u.id = page.user_id ORDER BY u.created_at, u.id`,
    values,
  };
  const walkValues: unknown[] = [values[0]];
  const walkBind = (value: unknown): string => {
    walkValues.push(value);
    return `$${walkValues.length}`;
  };
  const condition = searchRowCondition(filter, walkBind);
  const walkLimit = walkBind(window.limit);
  const walkOffset = walkBind(window.offset);
  const walkPage: SqlStatement = {
    text:
      `SELECT ${columns} FROM users u JOIN (` +
      `SELECT id FROM users WHERE org_id = $1 AND ${condition} ORDER BY created_at, id LIMIT ${walkLimit} OFFSET ${walkOffset}` +
      `) page ON u.org_id = $1 AND u.id = page.id ORDER BY u.created_at, u.id`,
    values: walkValues,
  };
  return { page, count, walkPage };
}

function conditionFor(filter: UserFilter, bind: (value: unknown) => string): string {
  if (filter.kind === 'search') return searchCondition(filter, bind);
  if (filter.kind === 'boolean') return `${filter.field} = ${bind(filter.value)}`;
  if (filter.kind === 'equals') {
    // A value PostgreSQL cannot hold cannot be stored either: it matches nothing.
    const wanted = [...new Set(filter.values.filter((value) => !hasNulCharacter(value)))];
    if (wanted.length === 0) return 'FALSE';
    const column = filter.field === 'email' ? 'email_key' : filter.field;
    const placeholders = wanted.map((value) => bind(filter.field === 'email' ? emailKeyOf(value) : value));
    return placeholders.length === 1 ? `${column} = ${placeholders[0]}` : `${column} IN (${placeholders.join(', ')})`;
  }
  const bounds = Object.entries(filter.bounds) as Array<[RangeOperator, number | string]>;
  if (bounds.some(([, bound]) => hasNulCharacter(bound))) return 'FALSE';
  return bounds.map(([op, bound]) => `${filter.field} ${COMPARISON[op]} ${bind(bound)}`).join(' AND ');
}
