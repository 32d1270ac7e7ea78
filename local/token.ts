import { parseArgs } from 'node:util';
import { ORGANIZATION_ID, ORGANIZATION_ID_RULE, parseCommandLine, UsageError } from '#scripts/command-line.ts';
import { ALL_SCOPES, issueDevToken, keysDirectory, LOCAL_AUDIENCE, LOCAL_ISSUER } from './dev-keys.ts';

/** `npm run -s token -- --org <id> ...`: prints a development access token, and nothing else, on stdout. */
const usage = `Usage: npm run -s token -- --org <id> [options]

Prints a development access token (JWT) for the local stack on stdout.

Options:
  --org <id>            organization id (claim org_id), 1-64 chars [A-Za-z0-9_.-]   (required)
  --scopes "<a b>"      space-separated scopes; default all: ${ALL_SCOPES.join(' ')}
  --expires-in <s>      lifetime in seconds, default 3600; negative for an expired token
                        (--expires-in=-60 or --expires-in -60)
  --org-name <name>     organization name (claim org_name), shown in the onboarding e-mail
  --subject <sub>       subject (claim sub), default local-developer
  -h, --help            this text

Issuer ${LOCAL_ISSUER}, audience ${LOCAL_AUDIENCE}; signing key in ${keysDirectory()} (LOCAL_KEYS_DIR overrides).
Example: curl -H "Authorization: Bearer $(npm run -s token -- --org acme)" http://127.0.0.1:3000/v1/onboarding-tokens`;

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: joinNegativeNumbers(argv),
    strict: true,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      scopes: { type: 'string' },
      'expires-in': { type: 'string' },
      'org-name': { type: 'string' },
      subject: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true } as const;
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  if (values.org === undefined) throw new UsageError('--org is required');
  if (!ORGANIZATION_ID.test(values.org)) throw new UsageError(ORGANIZATION_ID_RULE);
  let expiresInSeconds: number | undefined;
  if (values['expires-in'] !== undefined) {
    if (!/^-?\d+$/.test(values['expires-in'].trim()))
      throw new UsageError('--expires-in must be a whole number of seconds');
    expiresInSeconds = Number(values['expires-in']);
  }
  return {
    help: false,
    orgId: values.org,
    scopes: values.scopes,
    expiresInSeconds,
    orgName: values['org-name'],
    subject: values.subject,
  } as const;
}

/** parseArgs reads `--expires-in -60` as a missing value followed by an option; make it `--expires-in=-60`. */
function joinNegativeNumbers(argv: string[]): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    if (arg === '--expires-in' && next !== undefined && /^-\d+$/.test(next)) {
      args.push(`${arg}=${next}`);
      i += 1;
    } else {
      args.push(arg);
    }
  }
  return args;
}

async function main(): Promise<number> {
  const options = parseCommandLine('token', usage, () => parse(process.argv.slice(2)));
  if (options === undefined) return 2;
  if (options.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const { help: _help, ...tokenOptions } = options;
  const scopes = tokenOptions.scopes?.split(/\s+/).filter(Boolean);
  const unknown = scopes?.filter((scope) => !(ALL_SCOPES as readonly string[]).includes(scope)) ?? [];
  if (unknown.length > 0) process.stderr.write(`token: note: unknown scope(s) ${unknown.join(', ')}\n`);
  process.stdout.write(`${await issueDevToken({ ...tokenOptions, scopes })}\n`);
  return 0;
}

process.exitCode = await main();
