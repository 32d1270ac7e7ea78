import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { ORGANIZATION_ID, ORGANIZATION_ID_RULE, parseCommandLine, UsageError } from './command-line.ts';
import { openCheckedUsersDatabase, USERS_DATABASE_TARGET_HELP } from './users-database-target.ts';
import { ImportAbortedError, importUserLines, type ImportCounts } from './users-import/import-user-lines.ts';
import { createProgressReporter } from './users-import/progress.ts';

/** `npm run -s users:import -- --org <id> <file.jsonl>`: validates and writes user records. */

const usage = `Usage: npm run -s users:import -- --org <id> [options] <file.jsonl>

Imports user status records from a JSON Lines file (one JSON object per line; blank lines are
skipped; "-" reads standard input) into the users table, for one organization.

Each line is validated against the user record schema first. A bad line is reported on stderr
with its line number and reasons and is never written; the other lines are still imported.
Records are written with multi-row INSERT ... ON CONFLICT (500 rows per statement, inside Aurora
DSQL's 3,000 rows per transaction), a few statements at a time; a database that is unavailable
is retried with backoff. A record with an id that is already stored is replaced. If an id occurs
on several lines of the file, the last of those lines wins. At the end the table's statistics are
refreshed (ANALYZE), so the first queries after the import are planned as well as later ones.

${USERS_DATABASE_TARGET_HELP}

Options:
  --org <id>           organization the records belong to, 1-64 chars [A-Za-z0-9_.-] (required);
                       a record's organization_id, when present, must be this organization
  --concurrency <n>    statements in flight at once, 1-8, default 4
  -h, --help           this text

Exit status: 0 all lines imported; 1 a line was rejected or the import stopped; 2 usage error.
Example: npm run -s users:import -- --org demo-org users.jsonl`;

interface ImportOptions {
  orgId: string;
  file: string;
  database?: string;
  region?: string;
  concurrency: number;
}

function parse(argv: string[]): ImportOptions | { help: true } {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      database: { type: 'string' },
      region: { type: 'string' },
      concurrency: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true };
  if (values.org === undefined) throw new UsageError('--org is required');
  if (!ORGANIZATION_ID.test(values.org)) throw new UsageError(ORGANIZATION_ID_RULE);
  if (positionals.length !== 1)
    throw new UsageError(positionals.length === 0 ? 'a file is required' : `unexpected argument: ${positionals[1]}`);
  if (values.region !== undefined && values.database === undefined)
    throw new UsageError('--region needs --database (the local stack needs no region)');
  if (values.database !== undefined && values.database.trim() === '')
    throw new UsageError('--database must name a cluster endpoint');
  const concurrency = values.concurrency === undefined ? 4 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 8)
    throw new UsageError('--concurrency must be a whole number from 1 to 8');
  return { orgId: values.org, file: positionals[0]!, database: values.database, region: values.region, concurrency };
}

async function main(): Promise<number> {
  const options = parseCommandLine('users:import', usage, () => parse(process.argv.slice(2)));
  if (options === undefined) return 2;
  if ('help' in options) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (options.file !== '-') {
    try {
      await access(options.file);
    } catch {
      process.stderr.write(`users:import: cannot read ${options.file}\n`);
      return 2;
    }
  }

  // A missing table or an unreachable database is reported before any work.
  const target = await openCheckedUsersDatabase('users:import', options);
  if (!target) return 1;
  const { database, description } = target;
  try {
    const input = options.file === '-' ? process.stdin : createReadStream(options.file, { encoding: 'utf8' });
    const lines = createInterface({ input, crlfDelay: Infinity });
    const progress = createProgressReporter(process.stderr);
    process.stderr.write(
      `importing ${options.file === '-' ? 'standard input' : options.file} into ${description} for organization ${options.orgId}\n`,
    );

    let counts: ImportCounts;
    try {
      counts = await importUserLines({
        lines,
        orgId: options.orgId,
        database,
        writer: { concurrency: options.concurrency },
        onRejected: ({ lineNumber, problems }) => progress.message(`line ${lineNumber}: ${problems.join('; ')}`),
        onProgress: (current) => progress.update(current),
      });
    } catch (error) {
      progress.finish();
      if (!(error instanceof ImportAbortedError)) throw error;
      process.stderr.write(`users:import: ${error.message}\n`);
      process.stdout.write(
        `imported ${error.counts.imported}, rejected ${error.counts.rejected} (stopped after line ${error.counts.lines})\n`,
      );
      return 1;
    }
    progress.finish();
    if (counts.duplicateIds > 0) {
      process.stderr.write(
        `note: ${counts.duplicateIds} line(s) repeated an earlier id; the last line of each id was kept\n`,
      );
    }
    if (database.conflictRetries > 0) {
      process.stderr.write(
        `note: ${database.conflictRetries} statement(s) conflicted with another writer of the same users and were run again\n`,
      );
    }
    process.stdout.write(`imported ${counts.imported}, rejected ${counts.rejected}\n`);
    return counts.rejected > 0 ? 1 : 0;
  } finally {
    await database.close();
  }
}

process.exitCode = await main();
