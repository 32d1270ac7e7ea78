import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { parseCommandLine } from './command-line.ts';
import { CognitoUserPool } from './org-add/cognito-user-pool.ts';
import { parseStaffRoleArguments, usage } from './staff-role/arguments.ts';
import { NotStaffError, setStaffRole } from './staff-role/set-staff-role.ts';

/** `npm run -s staff:role -- <email> <role>`: a staff member's role in the Cognito user pool (scripts/staff-role/). */

async function main(): Promise<number> {
  const options = parseCommandLine('staff:role', usage, () => parseStaffRoleArguments(process.argv.slice(2)));
  if (options === undefined) return 2;
  if ('help' in options) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const cognito = new CognitoIdentityProviderClient(options.region ? { region: options.region } : {});
  try {
    const { orgId } = await setStaffRole(
      { email: options.email, role: options.role },
      { userPool: new CognitoUserPool(cognito, options.userPoolId) },
    );
    process.stdout.write(`${options.email} (organization ${orgId}) is now ${options.role}\n`);
    return 0;
  } catch (error) {
    const message =
      error instanceof NotStaffError ? error.message : `${(error as Error).name}: ${(error as Error).message}`;
    process.stderr.write(`staff:role: ${message}\n`);
    return 1;
  }
}

process.exitCode = await main();
