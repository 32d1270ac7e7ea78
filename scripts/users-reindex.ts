import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { usersTable } from '../lib/table-definitions.ts';
import { parseCommandLine, UsageError } from './command-line.ts';
import { reindexUsers, type ReindexState } from './users-reindex/reindex-users.ts';

/** `npm run -s users:reindex`: writes the index attributes of every stored user (backfill after a new index). */

const LOCAL_REGION = 'us-east-1';
const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const localEndpoint = () => `http://127.0.0.1:${process.env.LOCAL_DYNAMODB_PORT || '8000'}`;

const usage = `Usage: npm run -s users:reindex -- [options]

Backfills the index attributes (createdAtSk, emailPk, statusPk: what users:import writes) of
every user record in the Users table, for every organization, e.g. after a release adds an index
(byStatus). Scans the table in parallel segments and updates only the items whose attributes are
missing or stale; an item rewritten meanwhile is left to its writer. Then rebuilds the user
digest of every organization it saw (after a release that adds it, or an import that stopped);
an organization with an import at work is left to that import.

Idempotent (a second run updates nothing) and resumable: the position of every segment is saved
to the state file after each page; run the same command again to continue an interrupted run.
The state file is removed when the run completes. Progress goes to stderr.

Target:
  default              the running local stack (npm start): DynamoDB Local at
                       http://127.0.0.1:\${LOCAL_DYNAMODB_PORT:-8000}, table ${usersTable.id}
  --table <name>       a real DynamoDB table (standard AWS credential chain)
  --region <region>    with --table: the table's region

Options:
  --segments <n>       parallel Scan segments, 1-64, default 4 (a resumed run keeps its own)
  --state <file>       state file, default .users-reindex-<table>.json
  --restart            ignore a saved state and start from the beginning
  -h, --help           this text

Exit status: 0 done; 1 the run stopped (run again to resume); 2 usage error.`;

interface ReindexOptions {
  table?: string;
  region?: string;
  segments: number;
  stateFile?: string;
  restart: boolean;
}

function parse(argv: string[]): ReindexOptions | { help: true } {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      table: { type: 'string' },
      region: { type: 'string' },
      segments: { type: 'string' },
      state: { type: 'string' },
      restart: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true };
  if (values.region !== undefined && values.table === undefined) throw new UsageError('--region needs --table');
  const segments = values.segments === undefined ? 4 : Number(values.segments);
  if (!Number.isInteger(segments) || segments < 1 || segments > 64)
    throw new UsageError('--segments must be a whole number from 1 to 64');
  return { table: values.table, region: values.region, segments, stateFile: values.state, restart: values.restart };
}

async function main(): Promise<number> {
  const options = parseCommandLine('users:reindex', usage, () => parse(process.argv.slice(2)));
  if (options === undefined) return 2;
  if ('help' in options) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const tableName = options.table ?? usersTable.id;
  const stateFile = options.stateFile ?? `.users-reindex-${tableName}.json`;
  const config: DynamoDBClientConfig =
    options.table === undefined
      ? { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: localEndpoint() }
      : options.region === undefined
        ? {}
        : { region: options.region };
  const client = new DynamoDBClient(config);

  let resumeFrom: ReindexState | undefined;
  if (!options.restart) {
    try {
      resumeFrom = JSON.parse(await readFile(stateFile, 'utf8')) as ReindexState;
      process.stderr.write(`resuming from ${stateFile} (${resumeFrom.counts.scanned} users already scanned)\n`);
    } catch {
      resumeFrom = undefined;
    }
  }
  let lastReport = 0;
  try {
    const counts = await reindexUsers({
      documents: DynamoDBDocumentClient.from(client),
      tableName,
      segments: options.segments,
      resumeFrom,
      onDigest: (orgId, outcome) => process.stderr.write(`user digest of ${orgId}: ${outcome}\n`),
      onCheckpoint: async (state) => {
        await writeFile(stateFile, JSON.stringify(state));
        if (Date.now() - lastReport >= 1_000) {
          lastReport = Date.now();
          const done = state.segments.filter((segment) => segment.done).length;
          const { scanned, updated, unchanged, skipped } = state.counts;
          process.stderr.write(
            `${scanned} users scanned, ${updated} updated, ${unchanged} unchanged, ${skipped} rewritten meanwhile; ${done}/${state.segments.length} segments done\n`,
          );
        }
      },
    });
    await rm(stateFile, { force: true });
    process.stdout.write(
      `reindexed ${tableName}: ${counts.scanned} users scanned, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.skipped} rewritten meanwhile; ${counts.digestsRebuilt} user digest(s) rebuilt, ${counts.digestsLeftToWriters} left to imports at work\n`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(
      `users:reindex: stopped: ${(error as Error).message}; run again to resume from ${stateFile}\n`,
    );
    return 1;
  } finally {
    client.destroy();
  }
}

process.exitCode = await main();
