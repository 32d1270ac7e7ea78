import { describe, expect, it } from 'vitest';
import type { SqlRunner } from '#shared/adapters/postgres/users-database.ts';
import {
  columnTypeOf,
  ensureReaderRole,
  REQUIRED_FIELDS,
  ensureRole,
  grantReaderToIamRoles,
  grantRoleToIamRoles,
  USERS_ERASER_ROLE,
  USERS_READER_ROLE,
} from '#shared/adapters/postgres/users-schema.ts';
import { forDialect, migrateUsersDatabase, usersMigrations } from '#shared/adapters/postgres/users-migrations.ts';
import { USER_RECORD_FIELDS } from '#shared/domain/users/user-record.ts';

const USERS_MIGRATIONS = usersMigrations();

// ---------------------------------------------------------------------------------------------
// What Aurora DSQL accepts: a checker over statement text. Quoted text (string literals, quoted
// identifiers, dollar-quoted bodies) and comments are masked first, so a value such as
// 'a;b' or an ARN cannot trip a rule, and a keyword hidden in a comment cannot pass one.
// ---------------------------------------------------------------------------------------------

interface DsqlRule {
  refuse: string;
  /** Matched against the statement with quoted text and comments masked. */
  matches: RegExp | ((sql: string) => boolean);
}

const DSQL_RULES: readonly DsqlRule[] = [
  { refuse: 'sequences', matches: /\bCREATE\s+SEQUENCE\b|\bnextval\s*\(/i },
  { refuse: 'SERIAL / BIGSERIAL / SMALLSERIAL', matches: /\b(small|big)?serial[248]?\b/i },
  { refuse: 'identity columns', matches: /\bGENERATED\s+(ALWAYS|BY\s+DEFAULT)\s+AS\s+IDENTITY\b/i },
  { refuse: 'triggers', matches: /\bTRIGGER\b/i },
  { refuse: 'extensions', matches: /\bEXTENSION\b/i },
  { refuse: 'temporary tables', matches: /\bCREATE\s+((GLOBAL|LOCAL)\s+)?(TEMP|TEMPORARY)\b/i },
  {
    refuse: 'json/jsonb columns',
    matches: (sql) => columnDefinitions(sql).some(({ type }) => /^jsonb?\b/i.test(type)),
  },
  { refuse: 'foreign keys', matches: /\bREFERENCES\b|\bFOREIGN\s+KEY\b/i },
  { refuse: 'COLLATE', matches: /\bCOLLATE\b/i },
  { refuse: 'TRUNCATE', matches: /\bTRUNCATE\b/i },
  { refuse: 'VACUUM', matches: /\bVACUUM\b/i },
  { refuse: 'partitioning', matches: /\bPARTITION\b/i },
  { refuse: 'table inheritance', matches: /\bINHERITS\b/i },
  { refuse: 'CREATE TABLE ... AS', matches: /\bCREATE\s+(\w+\s+)*TABLE\s+(IF\s+NOT\s+EXISTS\s+)?[\w.]+\s+AS\b/i },
  { refuse: 'synchronous CREATE INDEX', matches: /\bCREATE\s+(UNIQUE\s+)?INDEX\s+(?!ASYNC\b)/i },
  { refuse: 'ASC/DESC in an index column list', matches: (sql) => /\b(ASC|DESC)\b/i.test(indexColumnList(sql) ?? '') },
  {
    refuse: 'functions in a language other than SQL',
    matches: (sql) =>
      /\bLANGUAGE\s+(?!sql\b)\w+/i.test(sql) ||
      /^\s*DO\b/i.test(sql) ||
      (/\bCREATE\s+(OR\s+REPLACE\s+)?(FUNCTION|PROCEDURE)\b/i.test(sql) && !/\bLANGUAGE\s+sql\b/i.test(sql)),
  },
  { refuse: 'CREATE TYPE / DOMAIN', matches: /\bCREATE\s+(TYPE|DOMAIN)\b/i },
  { refuse: 'savepoints', matches: /\bSAVEPOINT\b/i },
  { refuse: 'more than one statement per string', matches: /;/ },
  {
    refuse: 'column types outside the allow-list',
    matches: (sql) => columnDefinitions(sql).some(({ type }) => !ALLOWED_COLUMN_TYPE.test(type)),
  },
];

/** text, varchar, integer, bigint, smallint, boolean, double precision, real, numeric, date, timestamp, timestamptz, uuid, bytea. */
const ALLOWED_COLUMN_TYPE = new RegExp(
  '^(' +
    [
      'text',
      'varchar(\\s*\\(\\s*\\d+\\s*\\))?',
      'integer',
      'bigint',
      'smallint',
      'boolean',
      'double\\s+precision',
      'real',
      'numeric(\\s*\\(\\s*\\d+\\s*(,\\s*\\d+\\s*)?\\))?',
      'date',
      'timestamptz',
      'timestamp(\\s+with(out)?\\s+time\\s+zone)?',
      'uuid',
      'bytea',
    ].join('|') +
    // Then only column constraints: no array brackets, no further type words.
    ')(\\s+(NOT\\s+NULL|NULL|PRIMARY\\s+KEY|UNIQUE|DEFAULT\\s+\\S+))*$',
  'i',
);

/** The problems Aurora DSQL has with `statement`: empty when it accepts it. */
function dsqlProblems(statement: string): string[] {
  const sql = maskQuotedText(statement);
  return DSQL_RULES.filter((rule) => (rule.matches instanceof RegExp ? rule.matches.test(sql) : rule.matches(sql))).map(
    (rule) => rule.refuse,
  );
}

/** Replaces the inside of '...', "...", $tag$...$tag$ and comments with spaces, keeping the delimiters. */
function maskQuotedText(sql: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const rest = sql.slice(i);
    const dollar = /^\$([A-Za-z_]\w*)?\$/.exec(rest);
    if (sql[i] === "'" || sql[i] === '"') {
      const quote = sql[i]!;
      let end = i + 1;
      while (end < sql.length && !(sql[end] === quote && sql[end + 1] !== quote)) end += sql[end] === quote ? 2 : 1;
      out += quote + ' '.repeat(Math.max(0, end - i - 1)) + quote;
      i = end + 1;
    } else if (dollar) {
      const close = sql.indexOf(dollar[0], i + dollar[0].length);
      const end = close < 0 ? sql.length : close + dollar[0].length;
      out += `$$${' '.repeat(Math.max(0, end - i - 4))}$$`;
      i = end;
    } else if (rest.startsWith('--')) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
    } else if (rest.startsWith('/*')) {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      out += ' ';
    } else {
      out += sql[i];
      i++;
    }
  }
  return out;
}

/** The text inside the parentheses that open at `open`. */
function parenthesized(sql: string, open: number): string {
  let depth = 0;
  for (let i = open; i < sql.length; i++) {
    if (sql[i] === '(') depth++;
    if (sql[i] === ')' && --depth === 0) return sql.slice(open + 1, i);
  }
  return sql.slice(open + 1);
}

/** Splits on commas outside parentheses. */
function splitTopLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] === '(') depth++;
    if (list[i] === ')') depth--;
    if (list[i] === ',' && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(list.slice(start));
  return parts.map((part) => part.trim()).filter(Boolean);
}

/** Column definitions of a CREATE TABLE (...) or ALTER TABLE ... ADD [COLUMN]: name and the type with its constraints. */
function columnDefinitions(sql: string): Array<{ name: string; type: string }> {
  const definitions: string[] = [];
  const create = /\bCREATE\s+(\w+\s+)*TABLE\s+(IF\s+NOT\s+EXISTS\s+)?[\w.]+\s*\(/i.exec(sql);
  if (create) definitions.push(...splitTopLevel(parenthesized(sql, create.index + create[0].length - 1)));
  const alter = /\bALTER\s+TABLE\b[\s\S]*?\bADD\s+(COLUMN\s+)?(IF\s+NOT\s+EXISTS\s+)?([\s\S]*)$/i.exec(sql);
  if (alter && !/^(CONSTRAINT|PRIMARY|UNIQUE|CHECK|FOREIGN)\b/i.test(alter[3]!)) definitions.push(alter[3]!.trim());
  return definitions
    .filter((definition) => !/^(PRIMARY\s+KEY|UNIQUE|CONSTRAINT|CHECK|EXCLUDE|FOREIGN\s+KEY|LIKE)\b/i.test(definition))
    .map((definition) => {
      const [, name = '', type = ''] = /^("\s*"|\w+)\s+([\s\S]*)$/.exec(definition) ?? [];
      return { name, type: type.replace(/\s+/g, ' ').trim() };
    });
}

/** The column list of a CREATE INDEX (`ON table (...)`), if the statement is one. */
function indexColumnList(sql: string): string | undefined {
  if (!/\bCREATE\s+(UNIQUE\s+)?INDEX\b/i.test(sql)) return undefined;
  const on = /\bON\s+(ONLY\s+)?[\w.]+\s*(USING\s+\w+\s*)?\(/i.exec(sql);
  return on ? parenthesized(sql, on.index + on[0].length - 1) : undefined;
}

// ---------------------------------------------------------------------------------------------

interface Statement {
  text: string;
  values: readonly unknown[];
}

/** Records statements; `answer` scripts the rows of each. */
class FakeDatabase implements Pick<SqlRunner, 'query'> {
  readonly statements: Statement[] = [];
  constructor(private readonly answer: (text: string) => unknown[] = () => []) {}

  async query<TRow extends object = Record<string, unknown>>(
    text: string,
    values: readonly unknown[] = [],
  ): Promise<TRow[]> {
    this.statements.push({ text, values: [...values] });
    return this.answer(text) as TRow[];
  }
}

const ROLE_ARN = 'arn:aws:iam::123456789012:role/onboarding-query-user-status';

/** Everything the service sends DSQL to set up the users database: migrations, bookkeeping, the reader role. */
async function dsqlSetupStatements(): Promise<string[]> {
  // Each index job is answered and completed at once.
  const database = new FakeDatabase((text) => {
    if (text.startsWith('CREATE INDEX ASYNC')) return [{ job_id: 'job-1' }];
    if (text.startsWith('SELECT status, details FROM sys.jobs')) return [{ status: 'completed', details: null }];
    return [];
  });
  await migrateUsersDatabase(database, { dialect: 'dsql' });
  await ensureReaderRole(database, { dialect: 'dsql', localPassword: "ignored in DSQL'" });
  await grantReaderToIamRoles(database, [ROLE_ARN, 'arn:aws-us-gov:iam::210987654321:role/path/reports-worker']);
  await ensureRole(database, { dialect: 'dsql', role: USERS_ERASER_ROLE });
  await grantRoleToIamRoles(database, USERS_ERASER_ROLE, [ROLE_ARN]);
  return database.statements.map((statement) => statement.text);
}

describe('the Aurora DSQL checker (self-test)', () => {
  it.each([
    ['CREATE INDEX users_x ON users (org_id)', 'synchronous CREATE INDEX'],
    ['CREATE UNIQUE INDEX users_x ON users (org_id, id)', 'synchronous CREATE INDEX'],
    ['CREATE TABLE t (a jsonb)', 'json/jsonb columns'],
    ['CREATE TABLE t (a json NOT NULL)', 'json/jsonb columns'],
    ['CREATE SEQUENCE users_seq', 'sequences'],
    ["CREATE TABLE t (id integer DEFAULT nextval('s'))", 'sequences'],
    ['CREATE TABLE t (id bigserial PRIMARY KEY)', 'SERIAL / BIGSERIAL / SMALLSERIAL'],
    ['CREATE TABLE t (id serial)', 'SERIAL / BIGSERIAL / SMALLSERIAL'],
    ['CREATE TABLE t (id bigint GENERATED ALWAYS AS IDENTITY)', 'identity columns'],
    ['CREATE TRIGGER t BEFORE INSERT ON users FOR EACH ROW EXECUTE FUNCTION f()', 'triggers'],
    ['CREATE EXTENSION IF NOT EXISTS pg_trgm', 'extensions'],
    ['CREATE TEMP TABLE t (a text)', 'temporary tables'],
    ['CREATE TEMPORARY TABLE t (a text)', 'temporary tables'],
    ['CREATE TABLE t (org_id text REFERENCES orgs (id))', 'foreign keys'],
    ['CREATE TABLE t (a text, FOREIGN KEY (a) REFERENCES u (b))', 'foreign keys'],
    ['CREATE TABLE t (a text COLLATE "C")', 'COLLATE'],
    ['TRUNCATE users', 'TRUNCATE'],
    ['VACUUM users', 'VACUUM'],
    ['CREATE TABLE t (a text) PARTITION BY HASH (a)', 'partitioning'],
    ['CREATE TABLE t (a text) INHERITS (users)', 'table inheritance'],
    ['CREATE TABLE t AS SELECT * FROM users', 'CREATE TABLE ... AS'],
    ['CREATE INDEX ASYNC users_x ON users (org_id, created_at DESC)', 'ASC/DESC in an index column list'],
    ['CREATE INDEX ASYNC users_x ON users (org_id ASC)', 'ASC/DESC in an index column list'],
    [
      'CREATE FUNCTION f() RETURNS integer AS $$ BEGIN RETURN 1; END $$ LANGUAGE plpgsql',
      'functions in a language other than SQL',
    ],
    ['CREATE FUNCTION f() RETURNS integer AS $$ SELECT 1 $$', 'functions in a language other than SQL'],
    ['DO $$ BEGIN PERFORM 1; END $$', 'functions in a language other than SQL'],
    ["CREATE TYPE mood AS ENUM ('sad', 'ok')", 'CREATE TYPE / DOMAIN'],
    ['CREATE DOMAIN score AS double precision', 'CREATE TYPE / DOMAIN'],
    ['SAVEPOINT before_import', 'savepoints'],
    ['CREATE TABLE a (x text); CREATE TABLE b (y text)', 'more than one statement per string'],
    ['SELECT 1;', 'more than one statement per string'],
    ['CREATE TABLE t (a text[])', 'column types outside the allow-list'],
    ['CREATE TABLE t (a money)', 'column types outside the allow-list'],
    ['CREATE TABLE t (a inet)', 'column types outside the allow-list'],
    ['ALTER TABLE users ADD COLUMN tags jsonb', 'json/jsonb columns'],
    ['ALTER TABLE users ADD COLUMN IF NOT EXISTS spot point', 'column types outside the allow-list'],
  ])('refuses %s (%s)', (statement, rule) => {
    expect(dsqlProblems(statement)).toContain(rule);
  });

  it.each([
    'CREATE INDEX ASYNC IF NOT EXISTS users_x ON users (org_id, city)',
    'SELECT \'a;b -- TRIGGER\' AS "weird;name" FROM users WHERE city = $1',
    `CREATE TABLE IF NOT EXISTS t (
  a text NOT NULL,
  b varchar(20),
  c numeric(10, 2) DEFAULT 0,
  d timestamp with time zone,
  e timestamptz,
  f double precision,
  g uuid PRIMARY KEY,
  h bytea,
  i smallint, j bigint, k integer, l real, m date, n boolean,
  PRIMARY KEY (a, g)
)`,
    "AWS IAM GRANT users_reader TO 'arn:aws:iam::123456789012:role/x'",
    'INSERT INTO t (a) VALUES ($1) ON CONFLICT (a) DO NOTHING',
    'CREATE FUNCTION f() RETURNS integer AS $$ SELECT 1; $$ LANGUAGE sql',
  ])('accepts %s', (statement) => {
    expect(dsqlProblems(statement)).toEqual([]);
  });
});

describe('users schema: only what Aurora DSQL supports', () => {
  const migrationStatements = USERS_MIGRATIONS.flatMap((migration) =>
    migration.statements.map((statement, i) => [`${migration.file}, statement ${i + 1}`, statement] as const),
  );

  it.each(migrationStatements)('%s is in the DSQL subset', (_, statement) => {
    expect(dsqlProblems(statement)).toEqual([]);
  });

  it('sends DSQL only statements in its subset while migrating and granting the reader role', async () => {
    const statements = await dsqlSetupStatements();

    expect(statements.length).toBeGreaterThan(migrationStatements.length);
    expect(statements.map((statement) => [statement, dsqlProblems(statement)])).toEqual(
      statements.map((statement) => [statement, []]),
    );
  });

  it('creates a column of its type for every record field, in the migration files as they are (the checker sees them all), and checks every index (their PostgreSQL form is refused)', () => {
    const usersColumns = USERS_MIGRATIONS.flatMap((migration) => migration.statements)
      .filter((statement) => /^(CREATE TABLE IF NOT EXISTS users \(|ALTER TABLE users )/.test(statement))
      .flatMap((statement) => columnDefinitions(maskQuotedText(statement)));
    const indexes = USERS_MIGRATIONS.flatMap((migration) => migration.statements).filter((s) =>
      /CREATE INDEX/i.test(s),
    );

    const typeOf = new Map(usersColumns.map(({ name, type }) => [name, type]));
    expect(usersColumns.slice(0, 2).map(({ name }) => name)).toEqual(['org_id', 'email_key']);
    for (const field of USER_RECORD_FIELDS) {
      expect(typeOf.get(field), field).toBe(`${columnTypeOf(field)}${REQUIRED_FIELDS.has(field) ? ' NOT NULL' : ''}`);
    }
    expect(indexes.length).toBeGreaterThan(0);
    for (const index of indexes)
      expect(dsqlProblems(forDialect(index, 'postgres'))).toContain('synchronous CREATE INDEX');
  });

  it('stores every record field in a column of the allowed types, the screening result as text', () => {
    const types = new Set(USER_RECORD_FIELDS.map(columnTypeOf));

    expect([...types].sort()).toEqual(['boolean', 'double precision', 'text']);
    expect(columnTypeOf('idcheck_pep_sanction_result')).toBe('text');
    expect(columnTypeOf('age')).toBe('double precision');
    expect(columnTypeOf('is_deleted')).toBe('boolean');
  });

  it('keeps every index within DSQL limits: at most 8 key columns, at most 24 indexes', () => {
    const indexes = USERS_MIGRATIONS.flatMap((migration) => migration.statements).filter((s) =>
      /CREATE INDEX/i.test(s),
    );

    expect(indexes.length).toBeLessThanOrEqual(24);
    for (const index of indexes) expect(splitTopLevel(indexColumnList(index)!).length).toBeLessThanOrEqual(8);
  });

  it('numbers migrations uniquely and in increasing order', () => {
    const versions = USERS_MIGRATIONS.map((migration) => migration.version);

    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
  });
});

describe('reader role', () => {
  it(`creates ${USERS_READER_ROLE} when missing, and grants it SELECT on users`, async () => {
    const database = new FakeDatabase();

    await ensureReaderRole(database, { dialect: 'dsql' });

    expect(database.statements).toEqual([
      { text: 'SELECT 1 FROM pg_roles WHERE rolname = $1', values: [USERS_READER_ROLE] },
      { text: `CREATE ROLE ${USERS_READER_ROLE} WITH LOGIN`, values: [] },
      { text: `GRANT SELECT ON users, user_name_words TO ${USERS_READER_ROLE}`, values: [] },
    ]);
  });

  it('does not create a role that exists; locally sets its password with quotes doubled', async () => {
    const database = new FakeDatabase((text) => (text.startsWith('SELECT 1 FROM pg_roles') ? [{ '?column?': 1 }] : []));

    await ensureReaderRole(database, { dialect: 'postgres', localPassword: "it's" });

    expect(database.statements.map((statement) => statement.text)).toEqual([
      'SELECT 1 FROM pg_roles WHERE rolname = $1',
      `ALTER ROLE ${USERS_READER_ROLE} WITH PASSWORD 'it''s'`,
      `GRANT SELECT ON users, user_name_words TO ${USERS_READER_ROLE}`,
    ]);
  });

  it('refuses a role name that is not a plain identifier, before sending anything', async () => {
    const database = new FakeDatabase();

    await expect(ensureReaderRole(database, { dialect: 'dsql', role: 'reader; DROP TABLE users' })).rejects.toThrow(
      /not a plain SQL identifier/,
    );
    expect(database.statements).toEqual([]);
  });

  it('maps the reader role to each IAM role ARN not yet mapped, with AWS IAM GRANT', async () => {
    const mappedAlready = 'arn:aws:iam::123456789012:role/onboarding-process-report-jobs';
    const database = new FakeDatabase((text) =>
      text.includes('sys.iam_pg_role_mappings') ? [{ arn: mappedAlready }] : [],
    );

    await grantReaderToIamRoles(database, [ROLE_ARN, mappedAlready]);

    expect(database.statements).toEqual([
      { text: 'SELECT arn FROM sys.iam_pg_role_mappings WHERE pg_role_name = $1', values: [USERS_READER_ROLE] },
      { text: `AWS IAM GRANT ${USERS_READER_ROLE} TO '${ROLE_ARN}'`, values: [] },
    ]);
  });

  it(`creates ${USERS_ERASER_ROLE} with SELECT and DELETE on users, nothing more, and maps it like the reader`, async () => {
    const database = new FakeDatabase();

    await ensureRole(database, { dialect: 'postgres', role: USERS_ERASER_ROLE, localPassword: 'pw' });
    await grantRoleToIamRoles(database, USERS_ERASER_ROLE, [ROLE_ARN]);

    expect(database.statements.map((statement) => statement.text)).toEqual([
      'SELECT 1 FROM pg_roles WHERE rolname = $1',
      `CREATE ROLE ${USERS_ERASER_ROLE} WITH LOGIN`,
      `ALTER ROLE ${USERS_ERASER_ROLE} WITH PASSWORD 'pw'`,
      `GRANT SELECT, DELETE ON users, user_name_words TO ${USERS_ERASER_ROLE}`,
      'SELECT arn FROM sys.iam_pg_role_mappings WHERE pg_role_name = $1',
      `AWS IAM GRANT ${USERS_ERASER_ROLE} TO '${ROLE_ARN}'`,
    ]);
  });

  it.each([
    "x'; DROP TABLE users; --",
    "arn:aws:iam::123456789012:role/x'; DROP TABLE users; --",
    'arn:aws:iam::123456789012:user/alice',
    'arn:aws:iam::12345:role/x',
  ])('refuses %j, which is not an IAM role ARN, and sends nothing', async (arn) => {
    const database = new FakeDatabase();

    await expect(grantReaderToIamRoles(database, [arn])).rejects.toThrow(/not an IAM role ARN/);
    expect(database.statements).toEqual([]);
  });
});
