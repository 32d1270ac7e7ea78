import type { SandboxUserStore } from '#shared/domain/sandbox/import-sandbox-users.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { replaceNameWords } from './user-name-words.ts';
import { storageProblems, toUserRowValues, USER_ROW_COLUMNS } from './user-rows.ts';
import type { SqlRunner } from './users-database.ts';

const UPDATED_COLUMNS = USER_ROW_COLUMNS.filter((column) => column !== 'org_id' && column !== 'id');

/**
 * A sandbox's own users (POST /v1/sandbox/users): every record in one `INSERT ... ON CONFLICT DO
 * UPDATE` under the sandbox's key, one statement and so one transaction (1,000 rows of 42 columns
 * are under PostgreSQL's 65,535 parameters and Aurora DSQL's 3,000 rows), so the call stores all of
 * them or none; then their search words, as the import writes them (user-name-words.ts), which a
 * retry of the call replaces. Records are checked against the database's limits first.
 */
export class PostgresSandboxUserStore implements SandboxUserStore {
  constructor(private readonly database: Pick<SqlRunner, 'query' | 'transaction'>) {}

  storageProblems(key: string, records: readonly UserRecord[]): Array<{ index: number; problems: string[] }> {
    return records
      .map((record, index) => ({ index, problems: storageProblems(key, record) }))
      .filter((refused) => refused.problems.length > 0);
  }

  async putAll(key: string, records: readonly UserRecord[]): Promise<void> {
    if (records.length === 0) return;
    const values: unknown[] = [];
    const rows = records.map((record) => {
      const row = toUserRowValues(key, record);
      const placeholders = row.map((_, i) => `$${values.length + i + 1}`);
      values.push(...row);
      return `(${placeholders.join(', ')})`;
    });
    await this.database.query(
      `INSERT INTO users (${USER_ROW_COLUMNS.join(', ')}) VALUES ${rows.join(', ')} ` +
        `ON CONFLICT (org_id, id) DO UPDATE SET ${UPDATED_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`,
      values,
    );
    await replaceNameWords(
      this.database,
      key,
      records.map((record) => record.id),
    );
  }
}
