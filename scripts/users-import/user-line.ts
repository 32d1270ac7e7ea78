import { storageProblems } from '#shared/adapters/postgres/user-rows.ts';
import { parseUserRecord } from '#shared/domain/users/user-record-schema.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';

/** What one line of a JSON Lines user file holds. */
export type UserLine =
  { kind: 'blank' } | { kind: 'valid'; record: UserRecord } | { kind: 'rejected'; problems: string[] };

/**
 * One line, checked all the way to "the database will store it": JSON, then the user record
 * schema for the organization, then what the users table cannot hold (U+0000 in text, a row
 * over 1 MiB). A line that passes can only fail to be written for reasons outside the line
 * (the database unavailable, permissions).
 */
export function parseUserLine(orgId: string, line: string): UserLine {
  const text = line.replace(/^\uFEFF/, '').trim();
  if (text === '') return { kind: 'blank' };
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    return { kind: 'rejected', problems: [`not valid JSON (${(error as Error).message})`] };
  }
  const parsed = parseUserRecord(orgId, input);
  if (!parsed.success) return { kind: 'rejected', problems: parsed.problems };
  const problems = storageProblems(orgId, parsed.record);
  return problems.length > 0 ? { kind: 'rejected', problems } : { kind: 'valid', record: parsed.record };
}
