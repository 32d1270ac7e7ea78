import { parseArgs } from 'node:util';
import { parseCommandLine, UsageError } from './command-line.ts';
import { runSmokeChecks } from './smoke/smoke-checks.ts';

const usage = `npm run -s smoke -- --api-url <ApiUrl> --token <access token> [--user-id <id>]

Checks a deployed stage end to end through its API, one line per check (docs/deploy.md "Smoke test"): every read
route, an onboarding token created and redeemed and another revoked (e-mails to SES's mailbox simulator), a report
requested, downloaded and its signature verified against GET /v1/report-signing-certificates. The token needs every
scope those routes name. Exits 1 when a check fails, or at once when the API cannot be reached or refuses the token.

  --user-id   the user the report is about (default: the organization's first user)`;

function parseSmokeArguments(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      'api-url': { type: 'string' },
      token: { type: 'string' },
      'user-id': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return { help: true } as const;
  const apiUrl = values['api-url'];
  if (!apiUrl) throw new UsageError('--api-url is required');
  if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol))
    throw new UsageError(`--api-url ${apiUrl} is not an http(s) address`);
  if (!values.token) throw new UsageError('--token is required');
  return { apiUrl, token: values.token, ...(values['user-id'] ? { userId: values['user-id'] } : {}) };
}

async function main(): Promise<number> {
  const options = parseCommandLine('smoke', usage, () => parseSmokeArguments(process.argv.slice(2)));
  if (options === undefined) return 2;
  if ('help' in options) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const result = await runSmokeChecks({ ...options, out: (line) => process.stdout.write(`${line}\n`) });
  if (result.stoppedBecause) {
    process.stdout.write(`smoke: stopped: ${result.stoppedBecause}\n`);
    return 1;
  }
  process.stdout.write(`smoke: ${result.passed} passed, ${result.failed} failed\n`);
  return result.failed === 0 ? 0 : 1;
}

process.exitCode = await main();
