import { describe, expect, it } from 'vitest';
import {
  ImportAbortedError,
  importUserLines,
  type ImportCounts,
  type RejectedLine,
} from '#scripts/users-import/import-user-lines.ts';
import { createProgressReporter } from '#scripts/users-import/progress.ts';
import { parseUserLine } from '#scripts/users-import/user-line.ts';
import { USER_ROW_COLUMNS } from '#shared/adapters/postgres/user-rows.ts';
import type { SqlRunner } from '#shared/adapters/postgres/users-database.ts';
import { MAX_USER_BATCH_SIZE } from '#shared/adapters/postgres/user-writer.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';

const line = (record: Record<string, unknown>) => JSON.stringify(record);
const user = (id: string, extra: Record<string, unknown> = {}) =>
  line({ id, created_at: '2024-01-01T00:00:00Z', ...extra });

async function* linesOf(lines: string[]): AsyncIterable<string> {
  yield* lines;
}

interface Statement {
  text: string;
  values: readonly unknown[];
}

/** A users database without a server: records every statement; `answer` scripts each reply (return rows or throw). */
/** The statements that write users' rows (each batch's search words follow in statements of their own). */
const userInserts = (database: FakeDatabase) =>
  database.statements.filter((statement) => statement.text.startsWith('INSERT INTO users '));

class FakeDatabase implements SqlRunner {
  readonly statements: Statement[] = [];
  constructor(private readonly answer: (statement: Statement, call: number) => unknown[] = () => []) {}

  async query<TRow extends object = Record<string, unknown>>(
    text: string,
    values: readonly unknown[] = [],
  ): Promise<TRow[]> {
    const statement = { text, values: [...values] };
    this.statements.push(statement);
    // A real round trip is asynchronous: let other work interleave as it would.
    await Promise.resolve();
    return this.answer(statement, this.statements.length) as TRow[];
  }

  async transaction<T>(work: (run: Pick<SqlRunner, 'query'>) => Promise<T>): Promise<T> {
    return work(this);
  }

  async close(): Promise<void> {}
}

/** The rows one INSERT statement carries, as column → value (values are bound in USER_ROW_COLUMNS order). */
function rowsOf(statement: Statement): Array<Record<string, unknown>> {
  const width = USER_ROW_COLUMNS.length;
  const rows: Array<Record<string, unknown>> = [];
  for (let start = 0; start < statement.values.length; start += width) {
    rows.push(Object.fromEntries(USER_ROW_COLUMNS.map((column, i) => [column, statement.values[start + i]])));
  }
  return rows;
}

const insertsOf = (database: FakeDatabase) =>
  database.statements.filter((statement) => statement.text.startsWith('INSERT INTO users '));
const storedRows = (database: FakeDatabase) => insertsOf(database).flatMap(rowsOf);

const dataError = (code: string, message: string) => Object.assign(new Error(message), { code });
const unavailable = () => new DependencyUnavailableError('users database', { retryAfterSeconds: 2 });
const noWait = { sleep: async () => {} };

describe('parseUserLine', () => {
  it.each(['', '   ', '\t', '\r', '\uFEFF'])('skips the blank line %j', (text) => {
    expect(parseUserLine('acme', text)).toEqual({ kind: 'blank' });
  });

  it('turns a valid line into its normalised record for the organization, a leading BOM and CR ignored', () => {
    const parsed = parseUserLine('acme', `\uFEFF${user('u-1', { email: 'Jane@Example.com' })}\r`);

    expect(parsed).toEqual({
      kind: 'valid',
      record: { id: 'u-1', email: 'Jane@Example.com', created_at: '2024-01-01T00:00:00.000Z', organization_id: 'acme' },
    });
  });

  it('rejects a line that is not JSON', () => {
    expect(parseUserLine('acme', '{"id": "u-1",')).toEqual({
      kind: 'rejected',
      problems: [expect.stringMatching(/^not valid JSON \(/)],
    });
  });

  it('rejects a line of another organization, naming both', () => {
    expect(parseUserLine('acme', user('u-1', { organization_id: 'globex' }))).toEqual({
      kind: 'rejected',
      problems: ['organization_id: is globex, not acme'],
    });
  });

  it.each([
    ['a missing created_at', line({ id: 'u-1' }), 'created_at is required'],
    ['an age that is not a number', user('u-1', { age: '31' }), 'age must be a number'],
    ['an e-mail that is not one', user('u-1', { email: 'nope' }), 'email must be an e-mail address'],
    ['an unknown member', user('u-1', { nickname: 'JJ' }), expect.stringMatching(/^nickname: /)],
    ['a value that is not an object', '"u-1"', expect.stringMatching(/^record: /)],
  ])('rejects %s with the schema reason', (_, text, problem) => {
    expect(parseUserLine('acme', text)).toEqual({ kind: 'rejected', problems: [problem] });
  });

  it('rejects text holding U+0000, which PostgreSQL cannot store, naming the field', () => {
    expect(parseUserLine('acme', user('u-1', { city: 'Lima\u0000' }))).toEqual({
      kind: 'rejected',
      problems: ['city: text cannot contain the character U+0000'],
    });
  });

  it('accepts U+0000 inside the screening result, which is stored as escaped JSON text', () => {
    const screening = {
      status: 'Cleared',
      timestamp: '2024-01-01T00:00:00Z',
      pep_result: [{ notes: ['a\u0000b'] }],
      sanction_result: [],
    };

    expect(parseUserLine('acme', user('u-1', { idcheck_pep_sanction_result: screening }))).toMatchObject({
      kind: 'valid',
    });
  });

  it('rejects a record over 1 MiB stored', () => {
    const parsed = parseUserLine('acme', user('u-1', { override_notes: 'x'.repeat(1_100_000) }));

    expect(parsed).toEqual({
      kind: 'rejected',
      problems: [expect.stringMatching(/^record is \d+ bytes stored; at most 1048576 are allowed$/)],
    });
  });

  it('accepts a record just under 1 MiB stored', () => {
    expect(parseUserLine('acme', user('u-1', { override_notes: 'x'.repeat(1_000_000) }))).toMatchObject({
      kind: 'valid',
    });
  });

  // Aurora DSQL refuses an index key over 1 KiB (SQLSTATE 54000, "key size too large"); e-mail,
  // last_name, city, country and high_level_result are indexed (users-schema.ts). The parser
  // promises that a valid line can only fail to be written for reasons outside the line.
  it.each([
    ['an email', 'email', `${'a'.repeat(60)}@${'b'.repeat(60)}.${'c'.repeat(2000)}`],
    ['a last_name', 'last_name', 'x'.repeat(2000)],
    ['a city', 'city', 'x'.repeat(2000)],
  ])('rejects %s too long for its index key in Aurora DSQL (over 1 KiB)', (_, field, value) => {
    expect(parseUserLine('acme', user('u-1', { [field]: value }))).toMatchObject({ kind: 'rejected' });
  });
});

describe('importUserLines', () => {
  it('writes the valid lines, reports each bad line with its number and reasons, and never writes a bad line', async () => {
    const database = new FakeDatabase();
    const rejected: RejectedLine[] = [];

    const counts = await importUserLines({
      lines: linesOf([user('u-1'), '', 'not json', user('u-2', { email: 'nope' }), user('u-3'), '   ']),
      orgId: 'acme',
      database,
      onRejected: (rejection) => rejected.push(rejection),
    });

    expect(counts).toEqual({ lines: 6, imported: 2, rejected: 2, duplicateIds: 0 });
    expect(rejected).toEqual([
      { lineNumber: 3, problems: [expect.stringMatching(/^not valid JSON/)] },
      { lineNumber: 4, problems: ['email must be an e-mail address'] },
    ]);
    expect(storedRows(database).map((row) => row.id)).toEqual(['u-1', 'u-3']);
  });

  it('ends by refreshing the statistics of users and their words, after the last write, so the table is ready for queries', async () => {
    const database = new FakeDatabase();

    await importUserLines({ lines: linesOf([user('u-1'), user('u-2')]), orgId: 'acme', database });

    const texts = database.statements.map((statement) => statement.text);
    expect(texts.slice(-2)).toEqual(['ANALYZE users', 'ANALYZE user_name_words']);
    expect(texts.filter((text) => text.startsWith('ANALYZE'))).toHaveLength(2);
  });

  it('analyzes nothing when nothing was imported, and reports a failed refresh as a stopped import', async () => {
    const nothing = new FakeDatabase();
    await importUserLines({ lines: linesOf(['not json']), orgId: 'acme', database: nothing });
    expect(nothing.statements.filter((statement) => statement.text.startsWith('ANALYZE'))).toEqual([]);

    const refusing = new FakeDatabase(({ text }) => {
      if (text.startsWith('ANALYZE')) throw dataError('42501', 'must be owner of table users');
      return [];
    });
    await expect(importUserLines({ lines: linesOf([user('u-1')]), orgId: 'acme', database: refusing })).rejects.toThrow(
      'import stopped: must be owner of table users',
    );
  });

  it('writes one multi-row INSERT ... ON CONFLICT (org_id, id) DO UPDATE with every value bound', async () => {
    const database = new FakeDatabase();
    const city = "Saint-Lô' OR '1'='1";

    await importUserLines({
      lines: linesOf([user('u-1', { email: ' Jane@Example.COM', city }), user('u-2', { age: 31 })]),
      orgId: 'acme',
      database,
    });

    expect(userInserts(database)).toHaveLength(1);
    const [insert] = userInserts(database);
    expect(insert!.text).toMatch(
      /^INSERT INTO users \(org_id, email_key, id, .*\) VALUES \(\$1, \$2, .*\), \(\$\d+, .*\) ON CONFLICT \(org_id, id\) DO UPDATE SET /,
    );
    expect(insert!.text).toContain('city = EXCLUDED.city');
    // One placeholder per value, numbered in order; no value in the text.
    const placeholders = insert!.text.match(/\$\d+/g)!;
    expect(placeholders).toEqual(insert!.values.map((_, i) => `$${i + 1}`));
    expect(insert!.values).toContain(city);
    expect(insert!.text).not.toContain('Saint');
    expect(insert!.text).not.toContain("'");
    expect(rowsOf(insert!)).toEqual([
      expect.objectContaining({
        org_id: 'acme',
        organization_id: 'acme',
        id: 'u-1',
        email: 'Jane@Example.COM',
        email_key: 'jane@example.com',
        city,
        age: null,
      }),
      expect.objectContaining({ org_id: 'acme', id: 'u-2', age: 31, email_key: null, city: null }),
    ]);
  });

  it(`writes at most ${MAX_USER_BATCH_SIZE} rows per statement`, async () => {
    const database = new FakeDatabase();
    const lines = Array.from({ length: 1_201 }, (_, i) => user(`u-${i}`));

    const counts = await importUserLines({ lines: linesOf(lines), orgId: 'acme', database });

    expect(counts).toEqual({ lines: 1_201, imported: 1_201, rejected: 0, duplicateIds: 0 });
    expect(insertsOf(database).map((statement) => rowsOf(statement).length)).toEqual([500, 500, 201]);
    // PostgreSQL binds at most 65,535 parameters per statement.
    for (const statement of insertsOf(database)) expect(statement.values.length).toBeLessThanOrEqual(65_535);
    expect(new Set(storedRows(database).map((row) => row.id)).size).toBe(1_201);
  });

  // Aurora DSQL refuses a write transaction over 10 MiB (SQLSTATE 54000); every INSERT is its own
  // transaction, so a batch of large (but individually valid) records must be split by size too.
  it("keeps every INSERT under Aurora DSQL's 10 MiB per-transaction write limit", async () => {
    const database = new FakeDatabase();
    const lines = Array.from({ length: 20 }, (_, i) => user(`u-${i}`, { override_notes: 'x'.repeat(900_000) }));

    const counts = await importUserLines({ lines: linesOf(lines), orgId: 'acme', database });

    expect(counts.imported).toBe(20);
    for (const statement of insertsOf(database)) {
      expect(Buffer.byteLength(JSON.stringify(statement.values))).toBeLessThanOrEqual(10 * 1024 * 1024);
    }
  });

  it('keeps the last line of an id that occurs twice, and counts the repeat', async () => {
    const database = new FakeDatabase();

    const counts = await importUserLines({
      lines: linesOf([user('u-1', { name: 'first' }), user('u-2'), user('u-1', { name: 'last' })]),
      orgId: 'acme',
      database,
    });

    expect(counts).toEqual({ lines: 3, imported: 3, rejected: 0, duplicateIds: 1 });
    // One statement never holds an id twice (PostgreSQL refuses ON CONFLICT touching a row twice).
    expect(storedRows(database)).toEqual([
      expect.objectContaining({ id: 'u-2' }),
      expect.objectContaining({ id: 'u-1', name: 'last' }),
    ]);
  });

  it('writes a repeated id in a later batch after the earlier one, so the last line wins', async () => {
    const database = new FakeDatabase();

    const counts = await importUserLines({
      lines: linesOf([user('u-1', { name: 'first' }), user('u-2'), user('u-1', { name: 'last' })]),
      orgId: 'acme',
      database,
      writer: { batchSize: 2 },
    });

    expect(counts).toEqual({ lines: 3, imported: 3, rejected: 0, duplicateIds: 1 });
    expect(
      storedRows(database)
        .filter((row) => row.id === 'u-1')
        .map((row) => row.name),
    ).toEqual(['first', 'last']);
  });

  it.each(['22P02', '23514'])(
    'retries a batch the database refuses with data error %s row by row, and rejects only the bad row',
    async (code) => {
      const database = new FakeDatabase(({ values }) => {
        if (values.includes('u-2')) throw dataError(code, 'invalid input syntax for type double precision: "NaN-ish"');
        return [];
      });
      const rejected: RejectedLine[] = [];

      const counts = await importUserLines({
        lines: linesOf([user('u-1'), user('u-2'), user('u-3')]),
        orgId: 'acme',
        database,
        onRejected: (rejection) => rejected.push(rejection),
      });

      expect(counts).toEqual({ lines: 3, imported: 2, rejected: 1, duplicateIds: 0 });
      expect(rejected).toEqual([
        {
          lineNumber: 2,
          problems: ['refused by the database: invalid input syntax for type double precision: "NaN-ish"'],
        },
      ]);
      // The whole batch once, then one statement per row.
      expect(insertsOf(database).map((statement) => rowsOf(statement).map((row) => row.id))).toEqual([
        ['u-1', 'u-2', 'u-3'],
        ['u-1'],
        ['u-2'],
        ['u-3'],
      ]);
    },
  );

  it('retries a batch while the database is unavailable, then stores it once', async () => {
    const database = new FakeDatabase((_, call) => {
      if (call <= 2) throw unavailable();
      return [];
    });

    const counts = await importUserLines({
      lines: linesOf([user('u-1'), user('u-2')]),
      orgId: 'acme',
      database,
      writer: noWait,
    });

    expect(counts).toEqual({ lines: 2, imported: 2, rejected: 0, duplicateIds: 0 });
    expect(userInserts(database)).toHaveLength(3);
    expect(new Set(userInserts(database).map((statement) => JSON.stringify(statement)))).toHaveProperty('size', 1);
  });

  it('waits longer after each unavailable attempt', async () => {
    const waits: number[] = [];
    const database = new FakeDatabase((_, call) => {
      if (call <= 3) throw unavailable();
      return [];
    });

    await importUserLines({
      lines: linesOf([user('u-1')]),
      orgId: 'acme',
      database,
      writer: { baseDelayMs: 100, sleep: async (ms) => void waits.push(ms) },
    });

    expect(waits).toHaveLength(3);
    // Half the ceiling plus jitter: 100·2^(n-1) → [50, 100], [100, 200], [200, 400].
    waits.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(50 * 2 ** i);
      expect(ms).toBeLessThanOrEqual(100 * 2 ** i);
    });
  });

  it('stops with ImportAbortedError, saying how far it got, when the database stays unavailable', async () => {
    const database = new FakeDatabase(() => {
      throw unavailable();
    });

    const importing = importUserLines({
      lines: linesOf([user('u-1'), 'not json', user('u-2')]),
      orgId: 'acme',
      database,
      writer: noWait,
    });

    await expect(importing).rejects.toBeInstanceOf(ImportAbortedError);
    await expect(importing).rejects.toMatchObject({
      counts: { lines: 3, imported: 0, rejected: 1, duplicateIds: 0 },
      message: expect.stringMatching(/stayed unavailable after 6 attempts/),
    });
    expect(database.statements).toHaveLength(6);
  });

  it('counts the batches already stored when the database becomes unavailable', async () => {
    // Unavailable from the second batch's rows on (the first batch's words are stored).
    const database = new FakeDatabase((statement, call) => {
      if (call > 1 && statement.text.startsWith('INSERT INTO users ')) throw unavailable();
      return [];
    });
    const lines = Array.from({ length: 600 }, (_, i) => user(`u-${i}`));

    const importing = importUserLines({ lines: linesOf(lines), orgId: 'acme', database, writer: noWait });

    await expect(importing).rejects.toMatchObject({
      name: 'ImportAbortedError',
      counts: { lines: 600, imported: 500, rejected: 0, duplicateIds: 0 },
    });
  });

  it('stops with ImportAbortedError when the database refuses a batch for a reason no row explains', async () => {
    const database = new FakeDatabase(() => {
      throw Object.assign(new Error('permission denied for table users'), { code: '42501' });
    });

    const importing = importUserLines({ lines: linesOf([user('u-1'), user('u-2')]), orgId: 'acme', database });

    await expect(importing).rejects.toMatchObject({
      name: 'ImportAbortedError',
      counts: { lines: 2, imported: 0, rejected: 0 },
      message: 'import stopped: permission denied for table users',
    });
    // Not a data error: not retried row by row.
    expect(database.statements).toHaveLength(1);
  });

  it('reports progress as lines are read and batches are stored', async () => {
    const seen: Array<Readonly<ImportCounts>> = [];

    await importUserLines({
      lines: linesOf([user('u-1'), user('u-2')]),
      orgId: 'acme',
      database: new FakeDatabase(),
      onProgress: (counts) => seen.push({ ...counts }),
    });

    expect(seen.map((counts) => counts.lines * 10 + counts.imported)).toEqual([10, 20, 22]);
  });
});

describe('createProgressReporter', () => {
  const recorder = (isTTY: boolean) => {
    const chunks: string[] = [];
    return { stream: { isTTY, write: (text: string) => chunks.push(text) }, chunks };
  };
  const counts = (lines: number) => ({ lines, imported: lines - 1, rejected: 1, duplicateIds: 0 });

  it('on a terminal, rewrites one line in place at most every interval, and keeps messages on their own lines', () => {
    let now = 0;
    const { stream, chunks } = recorder(true);
    const progress = createProgressReporter(stream, { now: () => now, intervalMs: 100 });

    now = 150;
    progress.update(counts(10));
    now = 200;
    progress.update(counts(11));
    progress.message('line 12: id: too long');
    progress.finish();

    expect(chunks).toEqual([
      '\r\u001b[2Kimporting: 10 lines read, 9 imported, 1 rejected',
      '\r\u001b[2K',
      'line 12: id: too long\n',
      'importing: 11 lines read, 10 imported, 1 rejected',
      '\r\u001b[2K',
    ]);
  });

  it('in a log, prints plain lines every interval and no control characters', () => {
    let now = 0;
    const { stream, chunks } = recorder(false);
    const progress = createProgressReporter(stream, { now: () => now });

    for (now = 0; now <= 12_000; now += 1_000) progress.update(counts(now / 100));
    progress.message('line 3: not valid JSON');
    progress.finish();

    expect(chunks).toEqual([
      'progress: 50 lines read, 49 imported, 1 rejected\n',
      'progress: 100 lines read, 99 imported, 1 rejected\n',
      'line 3: not valid JSON\n',
    ]);
  });
});
