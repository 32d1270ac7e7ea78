import { DescribeTableCommand, DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { ORGANIZATION_ID, ORGANIZATION_ID_RULE, parseCommandLine, UsageError } from './command-line.ts';
import { usersTable } from '../lib/table-definitions.ts';
import { isDependencyUnavailable } from '../shared/adapters/aws-errors.ts';
import { ImportAbortedError, importUserLines, type ImportCounts } from './users-import/import-user-lines.ts';
import { createProgressReporter } from './users-import/progress.ts';

/** `npm run -s users:import -- --org <id> <file.jsonl>`: validates and writes user records. */

const LOCAL_REGION = 'us-east-1';
const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const localEndpoint = () => `http://127.0.0.1:${process.env.LOCAL_DYNAMODB_PORT || '8000'}`;

const usage = `Usage: npm run -s users:import -- --org <id> [options] <file.jsonl>

Imports user status records from a JSON Lines file (one JSON object per line; blank lines are
skipped; "-" reads standard input) into the Users table, for one organization.

Each line is validated against the user record schema first. A bad line is reported on stderr
with its line number and reasons and is never written; the other lines are still imported.
Records are written with BatchWriteItem, 25 per batch, a few batches at a time; unprocessed
items are retried with exponential backoff. A record with an id that is already stored is
replaced. If an id occurs on several lines of the file, the last of those lines wins.
At the end the organization's user digest (what user-status queries on the status fields read)
is brought up to date: merged with the imported records, or rebuilt from the table when another
import ran at the same time. An import that stops leaves the digest to the next import or to
npm run users:reindex; queries stay exact meanwhile, only slower.

Target:
  default              the running local stack (npm start): DynamoDB Local at
                       http://127.0.0.1:\${LOCAL_DYNAMODB_PORT:-8000}, table ${usersTable.id}, region ${LOCAL_REGION},
                       its fixed local credentials
  --table <name>       a real DynamoDB table instead: the AWS SDK's standard credential chain
                       (AWS_PROFILE, AWS_ACCESS_KEY_ID/..., SSO, instance roles) and its normal
                       endpoints; the table is the deployed stack's Users table (see its outputs)
  --region <region>    with --table: the table's region (default: AWS_REGION or the profile's)

Options:
  --org <id>           organization the records belong to, 1-64 chars [A-Za-z0-9_.-] (required);
                       a record's organization_id, when present, must be this organization
  --concurrency <n>    batches in flight at once, 1-32, default 4
  -h, --help           this text

Exit status: 0 all lines imported; 1 a line was rejected or the import stopped; 2 usage error.
Example: npm run -s users:import -- --org demo-org users.jsonl`;

interface ImportOptions {
  orgId: string;
  file: string;
  table?: string;
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
      table: { type: 'string' },
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
  if (values.region !== undefined && values.table === undefined)
    throw new UsageError('--region needs --table (the local stack is always us-east-1)');
  if (values.table !== undefined && values.table.trim() === '') throw new UsageError('--table must name a table');
  const concurrency = values.concurrency === undefined ? 4 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32)
    throw new UsageError('--concurrency must be a whole number from 1 to 32');
  return { orgId: values.org, file: positionals[0]!, table: values.table, region: values.region, concurrency };
}

function clientConfig(options: ImportOptions): DynamoDBClientConfig {
  if (options.table === undefined)
    return { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: localEndpoint() };
  return options.region === undefined ? {} : { region: options.region };
}

/** A missing table or an unreachable endpoint is reported before any line is read. */
async function checkTarget(client: DynamoDBClient, tableName: string, local: boolean): Promise<string | undefined> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return undefined;
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'ResourceNotFoundException')
      return `table ${tableName} does not exist${local ? ' (is the local stack running? npm start)' : ''}`;
    if (name === 'AccessDeniedException') return undefined; // May write without DescribeTable permission.
    if (local && isDependencyUnavailable(error))
      return `cannot reach DynamoDB Local at ${localEndpoint()}; start the local stack with npm start`;
    const message = (error as Error).message;
    return `cannot use table ${tableName}: ${message}${/region is missing/i.test(message) ? ' (pass --region or set AWS_REGION)' : ''}`;
  }
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

  const local = options.table === undefined;
  const tableName = options.table ?? usersTable.id;
  let client: DynamoDBClient;
  try {
    client = new DynamoDBClient(clientConfig(options));
  } catch (error) {
    process.stderr.write(`users:import: ${(error as Error).message}\n`);
    return 2;
  }
  try {
    const problem = await checkTarget(client, tableName, local);
    if (problem) {
      process.stderr.write(`users:import: ${problem}\n`);
      return 1;
    }
    const input = options.file === '-' ? process.stdin : createReadStream(options.file, { encoding: 'utf8' });
    const lines = createInterface({ input, crlfDelay: Infinity });
    const progress = createProgressReporter(process.stderr);
    process.stderr.write(
      `importing ${options.file === '-' ? 'standard input' : options.file} into ${tableName} for organization ${options.orgId}\n`,
    );

    let counts: ImportCounts;
    try {
      counts = await importUserLines({
        lines,
        orgId: options.orgId,
        documents: DynamoDBDocumentClient.from(client),
        tableName,
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
    process.stderr.write(`user digest: ${counts.digest}\n`);
    process.stdout.write(`imported ${counts.imported}, rejected ${counts.rejected}\n`);
    return counts.rejected > 0 ? 1 : 0;
  } finally {
    client.destroy();
  }
}

process.exitCode = await main();
