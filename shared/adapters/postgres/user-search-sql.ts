import { prefixUpperBound } from '#shared/domain/users/user-search.ts';
import type { UserFilter } from '#shared/domain/users/user-status-query.ts';
import { USER_NAME_WORDS_TABLE } from './user-name-words.ts';
import { emailKeyOf, hasNulCharacter } from './user-rows.ts';

/**
 * `filters.search` in SQL (docs/user-status.md "Search"). The matches are a union of three
 * index-only reads, each giving `(created_at, user_id)`: a key range of `user_name_words` per
 * search word (intersected when there are several), a key range of `users_by_email_prefix`, and
 * the primary key for the text as an id. A user can appear more than once (two words of one
 * name start with the same letters, or name and e-mail both match), so consumers group by user.
 */
export type SearchFilter = Extract<UserFilter, { kind: 'search' }>;
type Bind = (value: unknown) => string;

/** `column` starts with `prefix`: a range that an index on `column` (C collation) reads and nothing more. */
function startsWith(column: string, prefix: string, bind: Bind): string {
  const upper = prefixUpperBound(prefix);
  return `${column} >= ${bind(prefix)}` + (upper === undefined ? '' : ` AND ${column} < ${bind(upper)}`);
}

/** `SELECT created_at, user_id` of every match (with repeats), or undefined when nothing can match. */
export function searchMatches(filter: SearchFilter, bind: Bind): string | undefined {
  if (hasNulCharacter(filter.text)) return undefined;
  const byName = filter.terms
    .map(
      (term) =>
        `SELECT created_at, user_id FROM ${USER_NAME_WORDS_TABLE} WHERE org_id = $1 AND ${startsWith('word', term, bind)}`,
    )
    .join(' INTERSECT ');
  const sets = [`(${byName})`];
  // E-mail keys are stored trimmed and lower-cased (user-rows.ts emailKeyOf); one has no white space.
  const emailPrefix = emailKeyOf(filter.text.normalize('NFC'));
  if (!/\s/.test(emailPrefix)) {
    sets.push(`(SELECT created_at, id FROM users WHERE org_id = $1 AND ${startsWith('email_key', emailPrefix, bind)})`);
  }
  sets.push(`(SELECT created_at, id FROM users WHERE org_id = $1 AND id = ${bind(filter.text)})`);
  return sets.join(' UNION ALL ');
}

/**
 * As a condition beside other filters: the matching ids as one array, computed once before the
 * users are read (a semi-join would leave the planner free to re-run the ranges for every user,
 * which it does when statistics are stale, e.g. right after an import, and which costs seconds).
 */
export function searchCondition(filter: SearchFilter, bind: Bind): string {
  const matches = searchMatches(filter, bind);
  return matches === undefined ? 'FALSE' : `id = ANY(ARRAY(SELECT m.user_id FROM (${matches}) m))`;
}

/**
 * The same matches as a condition on one user row (`users` unaliased): each word's range probed
 * in that user's words by primary key `(org_id, user_id, word)`, or the e-mail's start, or the id.
 * What a walk along `users_by_created_at` checks per user, when the matches are so many that the
 * walk finds a page after a few rows.
 */
export function searchRowCondition(filter: SearchFilter, bind: Bind): string {
  if (hasNulCharacter(filter.text)) return 'FALSE';
  const byName = filter.terms
    .map(
      (term) =>
        `EXISTS (SELECT 1 FROM ${USER_NAME_WORDS_TABLE} w WHERE w.org_id = $1 AND w.user_id = users.id AND ${startsWith('w.word', term, bind)})`,
    )
    .join(' AND ');
  const alternatives = [`(${byName})`];
  const emailPrefix = emailKeyOf(filter.text.normalize('NFC'));
  if (!/\s/.test(emailPrefix)) alternatives.push(`(${startsWith('email_key', emailPrefix, bind)})`);
  alternatives.push(`id = ${bind(filter.text)}`);
  return `(${alternatives.join(' OR ')})`;
}
