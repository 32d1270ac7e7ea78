import { parseArgs } from 'node:util';
import { ROLE_SCOPES, ROLES, isRole, type Role } from '#shared/domain/identity/staff-roles.ts';
import { UsageError } from '#scripts/command-line.ts';

export const usage = `Usage: npm run -s staff:role -- <email> <role> [options]

Sets a staff member's role in the Cognito user pool of a stack deployed with -c identity=cognito:
puts them in the role's group and takes them out of the other roles' groups. Their next access
token holds the role's scopes (the current one keeps its scopes until it expires, within the hour).
Roles:
${ROLES.map((role) => `  ${role.padEnd(9)} ${ROLE_SCOPES[role].join(' ')}`).join('\n')}

Options:
  --user-pool-id <id>   stack output UserPoolId (or USER_POOL_ID)
  --region <region>     the stack's region (or AWS_REGION)
  -h, --help            this text

Exit status: 0 done; 1 failed (not a staff member, or Cognito refused); 2 usage error.
Example: npm run -s staff:role -- ada@acme.example auditor --user-pool-id eu-west-1_AbC123`;

export interface StaffRoleOptions {
  email: string;
  role: Role;
  userPoolId: string;
  region: string | undefined;
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export function parseStaffRoleArguments(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): StaffRoleOptions | { help: true } {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      'user-pool-id': { type: 'string' },
      region: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true };
  if (positionals.length !== 2) throw new UsageError('an e-mail address and a role are required');
  const [email, role] = positionals as [string, string];
  if (!EMAIL.test(email)) throw new UsageError(`not an e-mail address: ${email}`);
  if (!isRole(role)) throw new UsageError(`the role must be one of ${ROLES.join(', ')}`);
  const userPoolId = values['user-pool-id'] ?? env.USER_POOL_ID;
  if (!userPoolId) throw new UsageError('--user-pool-id (or USER_POOL_ID) is required: the stack output UserPoolId');
  return { email: email.trim().toLowerCase(), role, userPoolId, region: values.region ?? env.AWS_REGION };
}
