import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbEmailReputationStore } from '#shared/adapters/dynamodb/email-reputation-store.ts';
import { emailReputationCommands, type EmailReputationFigures } from '#shared/domain/onboarding/email-reputation.ts';
import { parseCommandLine } from './command-line.ts';
import { parseEmailReputationArguments, usage } from './email-reputation/arguments.ts';

/** `npm run -s org:email -- <show|resume> <orgId>`: an organization's e-mail figures and pause (scripts/email-reputation/). */

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

function describe(orgId: string, figures: EmailReputationFigures): string {
  const pause = figures.paused ? `paused since ${figures.paused.since} (${figures.paused.reason})` : 'not paused';
  return (
    `${orgId}: ${pause}; last ${figures.sent} e-mail(s): ${figures.bounces} bounce(s) (${percent(figures.bounceRate)}), ` +
    `${figures.complaints} complaint(s) (${percent(figures.complaintRate)})`
  );
}

async function main(): Promise<number> {
  const options = parseCommandLine('org:email', usage, () => parseEmailReputationArguments(process.argv.slice(2)));
  if (options === undefined) return 2;
  if ('help' in options) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const documents = DynamoDBDocumentClient.from(new DynamoDBClient(options.region ? { region: options.region } : {}));
  const commands = emailReputationCommands({ store: new DynamoDbEmailReputationStore(documents, options.tableName) });
  try {
    if (options.action === 'show') {
      process.stdout.write(`${describe(options.orgId, await commands.show(options.orgId))}\n`);
    } else {
      const before = await commands.resume(options.orgId);
      process.stdout.write(`resumed; before: ${describe(options.orgId, before)}\n`);
    }
    return 0;
  } catch (error) {
    process.stderr.write(`org:email: ${(error as Error).name}: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main();
