import { scenarioUsersOf } from '#shared/domain/sandbox/scenarios.ts';
import { nameWordsOf } from '#shared/domain/users/user-search.ts';
import { USER_RECORD_FIELDS, type UserRecord } from '#shared/domain/users/user-record.ts';
import { USER_NAME_WORDS_TABLE } from './user-name-words.ts';
import { toUserRowValues, USER_ROW_COLUMNS } from './user-rows.ts';
import { columnTypeOf } from './users-schema.ts';
import type { SqlStatement } from './user-status-sql.ts';

/**
 * A sandbox's scenario users (shared/domain/sandbox/scenarios.ts) in the same statement as its
 * stored users (docs/sandbox.md "Scenario users"): a sandbox key's statement starts with two
 * common table expressions named `users` and `user_name_words`, which shadow the tables for the
 * rest of the statement, each the tenant's stored rows `UNION ALL` the scenario rows as literal
 * VALUES. The statement is otherwise the one a live key runs: every filter, field, search, count
 * and page applies to scenario users as to stored ones, in one round trip. `NOT MATERIALIZED`
 * lets the planner push the conditions into the stored branch, which then reads the same indexes
 * as for a live key; the scenario branch is a handful of rows in memory. A live key's statement
 * is returned as it is.
 */
export function withScenarioUsers(tenantKey: string, statement: SqlStatement, today: Date): SqlStatement {
  const scenarioUsers = scenarioUsersOf(tenantKey, today);
  if (scenarioUsers.length === 0) return statement;
  return { text: `${scenarioCommonTables(tenantKey, scenarioUsers)} ${statement.text}`, values: statement.values };
}

const STORED_USERS = `SELECT ${USER_ROW_COLUMNS.join(', ')} FROM public.users WHERE org_id = $1`;
const STORED_WORDS = `SELECT org_id, user_id, word, created_at FROM public.${USER_NAME_WORDS_TABLE} WHERE org_id = $1`;
const COLUMN_TYPES: readonly string[] = ['text', 'text', ...USER_RECORD_FIELDS.map(columnTypeOf)];

function scenarioCommonTables(tenantKey: string, scenarioUsers: readonly UserRecord[]): string {
  const userRows = scenarioUsers.map(
    (user) =>
      `(${toUserRowValues(tenantKey, user)
        .map((value, column) => (column === 0 ? '$1' : literal(value, COLUMN_TYPES[column]!)))
        .join(', ')})`,
  );
  const wordRows = scenarioUsers.flatMap((user) =>
    nameWordsOf(user.name).map(
      (word) => `($1, ${literal(user.id, 'text')}, ${literal(word, 'text')}, ${literal(user.created_at, 'text')})`,
    ),
  );
  const words = wordRows.length === 0 ? STORED_WORDS : `${STORED_WORDS} UNION ALL VALUES ${wordRows.join(', ')}`;
  return (
    `WITH users AS NOT MATERIALIZED (${STORED_USERS} UNION ALL VALUES ${userRows.join(', ')}), ` +
    `${USER_NAME_WORDS_TABLE} AS NOT MATERIALIZED (${words})`
  );
}

/** A constant of the scenario definition as SQL text, typed as its column (NULLs included, so VALUES and the table agree). */
function literal(value: unknown, type: string): string {
  if (value === null || value === undefined) return `NULL::${type}`;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  // Standard conforming strings: a quote is doubled, nothing else is special.
  return `'${text.replaceAll("'", "''")}'::${type}`;
}
