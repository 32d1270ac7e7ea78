import { parseArgs } from 'node:util';
import { ORGANIZATION_ID, ORGANIZATION_ID_RULE, parseCommandLine, UsageError } from './command-line.ts';
import { MACHINE_CLIENT_SCOPES } from '#shared/domain/identity/machine-clients.ts';
import { SANDBOX_SCOPE } from '#shared/domain/identity/tenant.ts';
import {
  ALL_SCOPES,
  issueDevToken,
  keysDirectory,
  LOCAL_AUDIENCE,
  localIssuer,
  machineClientId,
  tenantMachineClientId,
} from '#local/dev-keys.ts';
import { requestMachineToken } from '#local/machine-token.ts';

/**
 * `npm run -s token -- --org <id> ...`: prints an access token of the local identity provider, and
 * nothing else, on stdout: the organization's machine client asks for it (client credentials).
 */
const usage = `Usage: npm run -s token -- --org <id> [options]

Prints an access token (JWT) from the local identity provider (npm start) on stdout: the
organization's machine client (${machineClientId('<id>')}) gets it by client credentials, or with
--sandbox its sandbox machine client (${tenantMachineClientId({ orgId: '<id>', mode: 'sandbox' })}).

Options:
  --org <id>            organization id (claim org_id), 1-64 chars [A-Za-z0-9_.-]   (required)
  --scopes "<a b>"      space-separated scopes, of: ${ALL_SCOPES.join(' ')}
                        default every one but users:erase, which a machine client gets only
                        when it asks for it: --scopes users:erase (with the others it needs)
  --sandbox             a sandbox token: the scopes plus ${SANDBOX_SCOPE}, so it reaches the
                        organization's sandbox alone (docs/sandbox.md)
  --expires-in <s>      lifetime in seconds, default 3600, at most 86400; zero or negative: an expired
                        token (--expires-in=-60 or --expires-in -60), which the provider never issues,
                        so it is signed here with the provider's key
  -h, --help            this text

Issuer ${localIssuer()} (LOCAL_IDP_PORT sets the port), audience ${LOCAL_AUDIENCE};
the provider's keys in ${keysDirectory()}/idp-jwks.json (LOCAL_KEYS_DIR overrides).
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
      sandbox: { type: 'boolean' },
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
    mode: values.sandbox ? 'sandbox' : 'live',
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
  const { orgId, expiresInSeconds, mode } = options;
  const scopes = options.scopes?.split(/\s+/).filter(Boolean);
  const unknown = scopes?.filter((scope) => !(ALL_SCOPES as readonly string[]).includes(scope)) ?? [];
  if (unknown.length > 0) {
    process.stderr.write(`token: unknown scope(s) ${unknown.join(', ')}; known: ${ALL_SCOPES.join(' ')}\n`);
    return 2;
  }
  const issuer = localIssuer();
  if (expiresInSeconds !== undefined && expiresInSeconds <= 0) {
    const granted = scopes ?? [...MACHINE_CLIENT_SCOPES];
    const expired = await issueDevToken({
      orgId,
      scopes: mode === 'sandbox' ? [...granted, SANDBOX_SCOPE] : granted,
      expiresInSeconds,
      issuer,
      claims: { client_id: tenantMachineClientId({ orgId, mode }) },
    });
    process.stdout.write(`${expired}\n`);
    return 0;
  }
  try {
    const token = await requestMachineToken({ issuer, orgId, scope: scopes?.join(' '), expiresInSeconds, mode });
    process.stdout.write(`${token}\n`);
    return 0;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `token: the identity provider at ${issuer} issued no token (is npm start running?): ${reason}\n`,
    );
    return 1;
  }
}

process.exitCode = await main();
