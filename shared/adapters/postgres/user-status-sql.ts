import type { RangeOperator, UserField, UserFilter } from '#shared/domain/users/user-status-query.ts';
import { emailKeyOf, hasNulCharacter } from './user-rows.ts';

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
}

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

function conditionFor(filter: UserFilter, bind: (value: unknown) => string): string {
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
