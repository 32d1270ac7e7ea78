import { parseArgs } from 'node:util';
import { MACHINE_CLIENT_SCOPES } from '#shared/domain/identity/machine-clients.ts';
import { SCOPES, type Scope } from '#shared/domain/identity/staff-roles.ts';
import { ORGANIZATION_ID, UsageError } from '#scripts/command-line.ts';

/** `npm run -s org:add -- <orgId> --admin <email>`: an organization in the Cognito user pool. */

export const usage = `Usage: npm run -s org:add -- <orgId> --admin <email> [options]

Adds an organization to the Cognito user pool of a stack deployed with -c identity=cognito:
  1. creates its machine client (client credentials grant, a client secret, the API scopes but
     users:erase unless --scopes names it),
  2. creates its sandbox client (the same scopes plus sandbox: its tokens reach the organization's
     sandbox alone, docs/sandbox.md),
  3. records which organization each client acts for, and in which mode (table
     MachineClientsTableName), so their access tokens carry the organization claim and the API
     accepts them,
  4. invites its first staff member by e-mail (custom:org_id set; Cognito sends a temporary
     password, the first sign-in sets a password and an authenticator app).
Prints each client's id and secret once, on standard output: hand them to the organization.
Running it again for the same organization adds another pair of clients (to rotate a secret) and
invites nobody already in it.

Options:
  --admin <email>                  first staff member (required)
  --user-pool-id <id>              stack output UserPoolId (or USER_POOL_ID)
  --machine-clients-table <name>   stack output MachineClientsTableName (or MACHINE_CLIENTS_TABLE_NAME)
  --region <region>                the stack's region (or AWS_REGION)
  --scopes "<scope> ..."           the machine client's scopes, default every one but users:erase
                                   (it erases people: a client gets it only when asked for here):
                                   ${MACHINE_CLIENT_SCOPES.join(' ')}
  -h, --help                       this text

Exit status: 0 done; 1 failed (nothing half done but an invitation that failed: rerun); 2 usage error.
Example: npm run -s org:add -- acme --admin admin@acme.example --user-pool-id eu-west-1_AbC123 \\
           --machine-clients-table OnboardingReportsService-dev-IdentityMachineClients1A2B3C`;

export interface OrgAddOptions {
  orgId: string;
  adminEmail: string;
  userPoolId: string;
  machineClientsTable: string;
  region: string | undefined;
  scopes: Scope[];
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export function parseOrgAddArguments(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): OrgAddOptions | { help: true } {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      admin: { type: 'string' },
      'user-pool-id': { type: 'string' },
      'machine-clients-table': { type: 'string' },
      region: { type: 'string' },
      scopes: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true };
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0 ? 'an organization id is required' : `unexpected argument: ${positionals[1]}`,
    );
  }
  const orgId = positionals[0]!;
  if (!ORGANIZATION_ID.test(orgId))
    throw new UsageError('the organization id must be 1-64 characters of A-Z a-z 0-9 _ . -');
  if (values.admin === undefined || !EMAIL.test(values.admin))
    throw new UsageError('--admin must be an e-mail address');
  const userPoolId = values['user-pool-id'] ?? env.USER_POOL_ID;
  if (!userPoolId) throw new UsageError('--user-pool-id (or USER_POOL_ID) is required: the stack output UserPoolId');
  const machineClientsTable = values['machine-clients-table'] ?? env.MACHINE_CLIENTS_TABLE_NAME;
  if (!machineClientsTable) {
    throw new UsageError(
      '--machine-clients-table (or MACHINE_CLIENTS_TABLE_NAME) is required: the stack output MachineClientsTableName',
    );
  }
  const requested = values.scopes?.split(/\s+/).filter(Boolean) ?? [...MACHINE_CLIENT_SCOPES];
  const unknown = requested.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0 || requested.length === 0) {
    throw new UsageError(
      `--scopes must name API scopes (${SCOPES.join(' ')}); unknown: ${unknown.join(' ') || '(none given)'}`,
    );
  }
  return {
    orgId,
    adminEmail: values.admin.trim().toLowerCase(),
    userPoolId,
    machineClientsTable,
    region: values.region ?? env.AWS_REGION,
    scopes: [...new Set(requested)] as Scope[],
  };
}
