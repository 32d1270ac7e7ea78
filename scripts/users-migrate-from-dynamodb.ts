import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseCommandLine, UsageError } from './command-line.ts';
import { copyDynamoDbUsers, type CopyProgress } from './users-migrate/copy-dynamodb-users.ts';
import { openCheckedUsersDatabase, USERS_DATABASE_TARGET_HELP } from './users-database-target.ts';

const usage = `Usage: npm run -s users:migrate-from-dynamodb -- --table <name> [options]

Copies every user of a DynamoDB Users table (the store of releases before users moved to SQL:
items ORG#{org} / USER#{id}) into the users table, once, for every organization in it. Each
item is validated as users:import validates a line; a refused one is reported on stderr and
skipped. Progress goes to stderr. The copy is resumable: after each page it saves where it got
to in .users-migrate-<table>.json (current folder); run the same command again to go on from
there, or pass --restart to start over. Copying a user twice is harmless (the last copy wins).
The DynamoDB table is only read; delete it yourself once you have checked the copy.

Source:
  --table <name>         the DynamoDB table (e.g. the old stack's Users table); the AWS SDK's
                         standard credential chain and endpoints (AWS_ENDPOINT_URL_DYNAMODB for
                         DynamoDB Local)
  --table-region <r>     the table's region (default: AWS_REGION or the profile's)

${USERS_DATABASE_TARGET_HELP}

Options:
  --restart              ignore a saved position and copy from the start
  -h, --help             this text

Exit status: 0 every user copied; 1 a user was refused or the copy stopped; 2 usage error.`;

interface MigrateOptions {
  table: string;
  tableRegion?: string;
  database?: string;
  region?: string;
  restart: boolean;
}

function parse(argv: string[]): MigrateOptions | { help: true } {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      table: { type: 'string' },
      'table-region': { type: 'string' },
      database: { type: 'string' },
      region: { type: 'string' },
      restart: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true };
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  if (values.table === undefined || values.table.trim() === '') throw new UsageError('--table is required');
  if (values.region !== undefined && values.database === undefined)
    throw new UsageError('--region needs --database (the local stack needs no region)');
  return {
    table: values.table,
    tableRegion: values['table-region'],
    database: values.database,
    region: values.region,
    restart: values.restart,
  };
}

async function main(): Promise<number> {
  const options = parseCommandLine('users:migrate-from-dynamodb', usage, () => parse(process.argv.slice(2)));
  if (options === undefined) return 2;
  if ('help' in options) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const checkpointFile = `.users-migrate-${options.table.replace(/[^\w.-]/g, '_')}.json`;
  let resumeFrom: CopyProgress | undefined;
  if (!options.restart) {
    resumeFrom = await readFile(checkpointFile, 'utf8').then(
      (text) => JSON.parse(text) as CopyProgress,
      () => undefined,
    );
    if (resumeFrom) process.stderr.write(`resuming from ${checkpointFile} (--restart to start over)\n`);
  }
  // A missing table or an unreachable database is reported before any work.
  const target = await openCheckedUsersDatabase('users:migrate-from-dynamodb', options);
  if (!target) return 1;
  const client = new DynamoDBClient(options.tableRegion ? { region: options.tableRegion } : {});
  try {
    process.stderr.write(`copying users from DynamoDB table ${options.table} into ${target.description}\n`);
    const counts = await copyDynamoDbUsers({
      documents: DynamoDBDocumentClient.from(client),
      tableName: options.table,
      database: target.database,
      ...(resumeFrom ? { resumeFrom } : {}),
      onRefused: ({ orgId, userId, problems }) =>
        process.stderr.write(`refused ${orgId}/${userId}: ${problems.join('; ')}\n`),
      onPage: async (progress) => {
        process.stderr.write(
          `progress: ${progress.counts.scanned} items read, ${progress.counts.copied} users copied, ${progress.counts.refused} refused\n`,
        );
        await writeFile(checkpointFile, JSON.stringify(progress));
      },
    });
    await rm(checkpointFile, { force: true });
    process.stdout.write(`copied ${counts.copied}, refused ${counts.refused}\n`);
    return counts.refused > 0 ? 1 : 0;
  } catch (error) {
    process.stderr.write(
      `users:migrate-from-dynamodb: stopped: ${(error as Error).message}\nrun the same command again to resume from ${checkpointFile}\n`,
    );
    return 1;
  } finally {
    client.destroy();
    await target.database.close();
  }
}

process.exitCode = await main();
